import { CURL_HASH_LENGTH } from "./curl.js";
import { powCurlInput } from "./powInput.js";
import { powDigest, readNonce, scoreForZeros } from "./score.js";
import { createSlicedCurl } from "./simdCurl.js";
import { type SlicedCurl, setLaneTrit } from "./slicedCurl.js";

/**
 * TIP-12 scores of many blocks at once on the bit-sliced hasher. Checking one block with the
 * scalar Curl costs about 170 µs; here each lane of a transform carries a different block, so
 * a full 128-lane transform scores 128 blocks for little more than the cost of one. Requests
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
      const trits = powCurlInput(powDigest(bytes), readNonce(bytes));
      for (let t = 0; t < CURL_HASH_LENGTH; t++) if (trits[t] !== 0) setLaneTrit(input, words, t, lane, trits[t]!);
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
