import { blake2b256 } from "../crypto/blake2b.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { CURL_HASH_LENGTH, CURL_STATE_LENGTH, curlTransform } from "./curl.js";
import { PowErrorCode } from "./errors.js";
import { checkNonce, NONCE_LENGTH, powCurlInput } from "./powInput.js";

/**
 * The TIP-12 proof-of-work score of a block:
 *   powDigest = BLAKE2b-256(block without its trailing 8-byte nonce)
 *   hash      = Curl-P-81(b1t6(powDigest) ‖ b1t6(nonce as u64 LE) ‖ 0,0,0)
 *   score     = 3^trailingZeroTrits(hash) / byteLength(whole block)
 */

/** BLAKE2b-256 of the block without its nonce, the part of the Curl input fixed while mining. */
export function powDigest(blockBytes: Uint8Array): Uint8Array {
  if (blockBytes.length < NONCE_LENGTH) {
    throw new LedgerNodeError(PowErrorCode.InvalidInput, `a block of ${blockBytes.length} bytes has no 8-byte nonce`);
  }
  return blake2b256(blockBytes.subarray(0, blockBytes.length - NONCE_LENGTH));
}

/** The nonce stored in the last 8 bytes of a block. */
export function readNonce(blockBytes: Uint8Array): bigint {
  if (blockBytes.length < NONCE_LENGTH) {
    throw new LedgerNodeError(PowErrorCode.InvalidInput, `a block of ${blockBytes.length} bytes has no 8-byte nonce`);
  }
  const v = new DataView(blockBytes.buffer, blockBytes.byteOffset + blockBytes.length - NONCE_LENGTH, NONCE_LENGTH);
  return v.getBigUint64(0, true);
}

/** A copy of `blockBytes` with its last 8 bytes replaced by `nonce` (u64 LE). */
export function withNonce(blockBytes: Uint8Array, nonce: bigint): Uint8Array {
  checkNonce(nonce);
  if (blockBytes.length < NONCE_LENGTH) {
    throw new LedgerNodeError(PowErrorCode.InvalidInput, `a block of ${blockBytes.length} bytes has no 8-byte nonce`);
  }
  const out = blockBytes.slice();
  new DataView(out.buffer, out.length - NONCE_LENGTH, NONCE_LENGTH).setBigUint64(0, nonce, true);
  return out;
}

/** The Curl-P-81 PoW hash (243 trits) of a digest and nonce. */
export function powHash(digest: Uint8Array, nonce: bigint): Int8Array {
  const state = new Int8Array(CURL_STATE_LENGTH);
  state.set(powCurlInput(digest, nonce));
  curlTransform(state);
  return state.slice(0, CURL_HASH_LENGTH);
}

/** Number of trailing zero trits of the PoW hash of a digest and nonce. */
export function trailingZeros(digest: Uint8Array, nonce: bigint): number {
  const hash = powHash(digest, nonce);
  let z = 0;
  while (z < CURL_HASH_LENGTH && hash[CURL_HASH_LENGTH - 1 - z] === 0) z++;
  return z;
}

/** The score for a hash with `zeros` trailing zero trits on a block of `blockLength` bytes. */
export function scoreForZeros(zeros: number, blockLength: number): number {
  return 3 ** zeros / blockLength;
}

/** The TIP-12 PoW score of a serialized block (nonce included). */
export function powScore(blockBytes: Uint8Array): number {
  return scoreForZeros(trailingZeros(powDigest(blockBytes), readNonce(blockBytes)), blockBytes.length);
}

/**
 * The fewest trailing zero trits that give a block of `blockLength` bytes a score of at least
 * `targetScore`, computed with the same floating-point expression as `powScore`, so that a
 * nonce meeting this count always passes a score check. The closed form ⌈ln(length·target)/ln 3⌉
 * comes out one short when length × target lies within rounding of a power of 3, and a nonce
 * mined to it then fails the check. Returns 244 when no 243-trit hash can reach the target.
 */
export function targetTrailingZeros(targetScore: number, blockLength: number): number {
  if (!(blockLength > 0) || Number.isNaN(targetScore)) {
    throw new LedgerNodeError(
      PowErrorCode.InvalidInput,
      `no zero count for score ${targetScore} at length ${blockLength}`,
    );
  }
  let z = 0;
  while (z <= CURL_HASH_LENGTH && scoreForZeros(z, blockLength) < targetScore) z++;
  return z;
}
