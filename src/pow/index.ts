/**
 * Proof of work (TIP-12): Curl-P-81, b1t6, the PoW score, and the worker-thread miner.
 */
export { B1T6_TRITS_PER_BYTE, b1t6Encode, b1t6EncodeInto } from "./b1t6.js";
export { BatchScorer } from "./batchScorer.js";
export { CURL_HASH_LENGTH, CURL_P81_ROUNDS, CURL_STATE_LENGTH, curlP81, curlTransform } from "./curl.js";
export { isPowError, PowError, PowErrorCode } from "./errors.js";
export {
  closeMinerPool,
  defaultPowOptions,
  type MineOptions,
  MinerPool,
  mine,
  minerPool,
  type PowOptions,
} from "./miner.js";
export { NONCE_LENGTH, POW_DIGEST_LENGTH, powCurlInput } from "./powInput.js";
export {
  powDigest,
  powHash,
  powScore,
  readNonce,
  scoreForZeros,
  targetTrailingZeros,
  trailingZeros,
  withNonce,
} from "./score.js";
export { type NonceSearchOptions, type NonceSearchResult, searchNonce } from "./search.js";
export { createSlicedCurl, type SlicedCurlOptions, simdAvailable } from "./simdCurl.js";
export type { SlicedCurl } from "./slicedCurl.js";
