import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { b1t6EncodeInto } from "./b1t6.js";
import { CURL_HASH_LENGTH } from "./curl.js";
import { PowErrorCode } from "./errors.js";

/**
 * The layout of the single 243-trit Curl block that TIP-12 hashes: the b1t6 encoding of the
 * 32-byte PoW digest (trits 0..191), of the 8-byte nonce as u64 little-endian (192..239), and
 * three zero trits of padding (240..242). Kept apart from the scorer so mining threads load it
 * without the BLAKE2b module.
 */

/** The nonce is the last field of a block, a u64 little-endian (TIP-24). */
export const NONCE_LENGTH = 8;
/** The PoW digest is a BLAKE2b-256 hash. */
export const POW_DIGEST_LENGTH = 32;
/** First trit of the nonce in the Curl block, right after the 192 digest trits. */
export const NONCE_TRIT_OFFSET = 192;

const MAX_U64 = (1n << 64n) - 1n;

/** Throws `InvalidInput` unless `nonce` fits a u64. */
export function checkNonce(nonce: bigint): void {
  if (nonce < 0n || nonce > MAX_U64)
    throw new LedgerNodeError(PowErrorCode.InvalidInput, `nonce ${nonce} is not a u64`);
}

/** The 243-trit Curl input for a digest and nonce. */
export function powCurlInput(digest: Uint8Array, nonce: bigint): Int8Array {
  if (digest.length !== POW_DIGEST_LENGTH) {
    throw new LedgerNodeError(PowErrorCode.InvalidInput, `PoW digest must be 32 bytes, got ${digest.length}`);
  }
  checkNonce(nonce);
  const nonceBytes = new Uint8Array(NONCE_LENGTH);
  new DataView(nonceBytes.buffer).setBigUint64(0, nonce, true);
  const trits = new Int8Array(CURL_HASH_LENGTH);
  b1t6EncodeInto(trits, 0, digest);
  b1t6EncodeInto(trits, NONCE_TRIT_OFFSET, nonceBytes);
  return trits;
}
