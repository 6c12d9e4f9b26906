import { b1t6Encode } from "./b1t6.js";
import { CURL_HASH_LENGTH } from "./curl.js";
import { NONCE_LENGTH, NONCE_TRIT_OFFSET, POW_DIGEST_LENGTH } from "./powInput.js";
import { powDigest, scoreForZeros } from "./score.js";
import { createSlicedCurl } from "./simdCurl.js";
import type { SlicedCurl } from "./slicedCurl.js";

/** The six b1t6 trits of every byte value, row b at 6·b (TIP-5). */
const BYTE_TRITS: Int8Array = b1t6Encode(Uint8Array.from({ length: 256 }, (_, i) => i));

/**
 * Writes the six trits of `byte` from trit `first` on in lane `lane` of an all-zero input: a
 * zero trit has both planes set, so -1 clears the hi bit and 1 clears the lo bit (slicedCurl.ts).
 */
function setLaneByte(input: Int32Array, words: number, first: number, lane: number, byte: number): void {
  const bit = ~(1 << (lane & 31));
  let i = 2 * words * first + (lane >>> 5);
  for (let j = 0; j < 6; j++, i += 2 * words) {
    const trit = BYTE_TRITS[6 * byte + j]!;
    if (trit < 0) input[i + words] = input[i + words]! & bit;
    else if (trit > 0) input[i] = input[i]! & bit;
  }
}

/**
 * TIP-12 scores of many blocks at once on the bit-sliced hasher. Each lane of a transform
 * carries a different block, so a full 128-lane transform scores 128 blocks for little more
 * than the scalar Curl's cost of one (docs/decisions.md, HTTP API: PoW checks at intake). Requests
 * made in the same turn of the event loop share transforms; the answer is exact (the tests
 * compare it with `powScore`).
 */
export class BatchScorer {
  private readonly curl: SlicedCurl;
  private queue: { bytes: Uint8Array; resolve: (score: number) => void }[] = [];
  private scheduled = false;

  constructor(curl: SlicedCurl = createSlicedCurl()) {
    this.curl = curl;
  }

  /** Resolves to the PoW score of the serialized block (nonce included). */
  score(blockBytes: Uint8Array): Promise<number> {
    return new Promise((resolve) => {
      this.queue.push({ bytes: blockBytes, resolve });
      if (this.queue.length >= this.curl.lanes) this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Scores everything queued now, synchronously. */
  flush(): void {
    this.scheduled = false;
    while (this.queue.length > 0) this.run(this.queue.splice(0, this.curl.lanes));
  }

  private run(batch: { bytes: Uint8Array; resolve: (score: number) => void }[]): void {
    const { input, output, words } = this.curl;
    // every trit zero in every lane: a zero trit has both planes set (slicedCurl.ts)
    input.fill(-1);
    batch.forEach(({ bytes }, lane) => {
      // the Curl input is b1t6(digest) ‖ b1t6(nonce bytes, u64 LE) ‖ zero padding (powInput.ts);
      // written byte by byte from a table rather than through a trit array, which spares the
      // allocation and conversion of a trit array per block
      const digest = powDigest(bytes);
      for (let i = 0; i < POW_DIGEST_LENGTH; i++) setLaneByte(input, words, 6 * i, lane, digest[i]!);
      const nonceAt = bytes.length - NONCE_LENGTH;
      for (let i = 0; i < NONCE_LENGTH; i++)
        setLaneByte(input, words, NONCE_TRIT_OFFSET + 6 * i, lane, bytes[nonceAt + i]!);
    });
    this.curl.transform();
    batch.forEach(({ bytes, resolve }, lane) => {
      const word = lane >>> 5;
      const bit = 1 << (lane & 31);
      let zeros = 0;
      for (let t = CURL_HASH_LENGTH - 1; t >= 0; t--) {
        const i = 2 * words * t + word;
        if ((output[i]! & output[i + words]! & bit) === 0) break; // not both planes set: not zero
        zeros++;
      }
      resolve(scoreForZeros(zeros, bytes.length));
    });
  }
}
