import { B1T6_TRITS_PER_BYTE, b1t6Encode } from "./b1t6.js";
import { CURL_HASH_LENGTH, CURL_STATE_LENGTH } from "./curl.js";
import { NONCE_LENGTH, NONCE_TRIT_OFFSET } from "./powInput.js";
import { firstZeroRunLane, type SlicedCurl, setLaneTrit, setTritAllLanes } from "./slicedCurl.js";

/**
 * The inner loop of TIP-12 mining on one thread: lane k of a transform hashes nonce
 * `batch + k`, where `batch` is a multiple of the lane count. Only the six trits of the nonce's
 * low byte differ between lanes; the digest, the nonce's upper bytes, the padding and the
 * capacity are the same in every lane.
 */

const TWO_32 = 2 ** 32;

/** Where a search starts and when it gives up. */
export interface NonceSearchOptions {
  /** First nonce to try; rounded down to a multiple of the lane count. */
  start: bigint;
  /** Stop after this many transforms (default: until the nonce space ends). */
  maxBatches?: number;
  /** Polled once per transform; returning true abandons the search. */
  shouldStop?: () => boolean;
}

/** The outcome: the nonce found (or null) and how many hashes were computed. */
export interface NonceSearchResult {
  nonce: bigint | null;
  hashes: number;
}

/** The six trits of each byte value, row b at 6·b. */
const BYTE_TRITS: Int8Array = b1t6Encode(Uint8Array.from({ length: 256 }, (_, i) => i));

/**
 * Searches for a nonce whose PoW hash with `digest` ends in at least `targetZeros` zero trits,
 * trying nonces upward from `options.start` in batches of `curl.lanes`.
 */
export function searchNonce(
  curl: SlicedCurl,
  digest: Uint8Array,
  targetZeros: number,
  options: NonceSearchOptions,
): NonceSearchResult {
  const { lanes, words, input, output } = curl;
  // 1. the fixed part of every lane: digest trits, then zero padding and capacity
  const digestTrits = b1t6Encode(digest);
  for (let t = 0; t < CURL_STATE_LENGTH; t++)
    setTritAllLanes(input, words, t, t < NONCE_TRIT_OFFSET ? digestTrits[t]! : 0);

  // 2. the low nonce byte is (batch low byte) | lane: precompute its six trits' planes for
  //    each of the 256 / lanes possible batch low bytes, so a batch sets them with one copy
  const lowAt = 2 * words * NONCE_TRIT_OFFSET;
  const lowSpan = 2 * words * B1T6_TRITS_PER_BYTE;
  const lowPlanes: Int32Array[] = [];
  for (let base = 0; base < 256; base += lanes) {
    const planes = new Int32Array(lowSpan);
    for (let lane = 0; lane < lanes; lane++) {
      for (let k = 0; k < B1T6_TRITS_PER_BYTE; k++) {
        setLaneTrit(planes, words, k, lane, BYTE_TRITS[(base | lane) * B1T6_TRITS_PER_BYTE + k]!);
      }
    }
    lowPlanes.push(planes);
  }

  // 3. the nonce as two u32 halves; lanes is a power of two dividing 256
  let lo = Number(options.start & 0xffffffffn);
  let hi = Number((options.start >> 32n) & 0xffffffffn);
  lo -= lo % lanes;
  let lastMid = -1; // lo >>> 8 and hi as last written: the nonce's upper 7 bytes
  let lastHi = -1;
  const maxBatches = options.maxBatches ?? Number.POSITIVE_INFINITY;
  const zerosFrom = CURL_HASH_LENGTH - Math.min(targetZeros, CURL_HASH_LENGTH);
  let batches = 0;

  while (batches < maxBatches && !(options.shouldStop?.() ?? false)) {
    input.set(lowPlanes[(lo & 0xff) / lanes]!, lowAt);
    // the upper 7 bytes change every 256 nonces; compared as two parts because 56 bits do
    // not fit a double exactly, and a rounded key would skip rewrites and rehash stale nonces
    if (lo >>> 8 !== lastMid || hi !== lastHi) {
      lastMid = lo >>> 8;
      lastHi = hi;
      for (let b = 1; b < NONCE_LENGTH; b++) {
        const byte = b < 4 ? (lo >>> (8 * b)) & 0xff : (hi >>> (8 * (b - 4))) & 0xff;
        for (let k = 0; k < B1T6_TRITS_PER_BYTE; k++) {
          const t = NONCE_TRIT_OFFSET + B1T6_TRITS_PER_BYTE * b + k;
          setTritAllLanes(input, words, t, BYTE_TRITS[byte * B1T6_TRITS_PER_BYTE + k]!);
        }
      }
    }

    // 4. hash all lanes and look for a lane whose hash ends in enough zeros
    curl.transform();
    batches++;
    const lane = firstZeroRunLane(output, words, zerosFrom, CURL_HASH_LENGTH);
    if (lane >= 0) {
      return { nonce: (BigInt(hi) << 32n) | BigInt(lo + lane), hashes: batches * lanes };
    }

    // 5. next batch; the search ends at the top of the u64 range
    lo += lanes;
    if (lo >= TWO_32) {
      lo -= TWO_32;
      hi++;
      if (hi >= TWO_32) break;
    }
  }
  return { nonce: null, hashes: batches * lanes };
}
