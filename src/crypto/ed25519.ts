import { ed25519 as noble } from "@noble/curves/ed25519.js";
import { ed25519Engine, type SigningKey } from "./ed25519Engines.js";
import { isKnownVerified } from "./signatureCache.js";

/**
 * Ed25519 with ZIP-215 acceptance, as TIP-20 requires for signature unlocks.
 * Fast path: the engine of ed25519Engines.ts, libsodium where it loads (less than half of
 * OpenSSL's time; docs/performance.md, The bound). What either engine accepts, ZIP-215 accepts
 * too: both require S < L and accept only when R's bytes are the canonical encoding of SB - kA
 * (the cofactorless equation, which implies ZIP-215's cofactored one), with k hashed over the
 * bytes as given; libsodium also refuses small-order and non-canonical A and small-order R,
 * which ZIP-215 allows. So a signature an engine refuses is checked again under ZIP-215 with
 * @noble/curves: the answer is exactly ZIP-215's, and an honest signature costs one call.
 */

/**
 * Verifies `signature` (64 bytes) over `message` by `publicKey` (32 bytes) under ZIP-215 rules.
 * A triple already verified (by the worker pool at intake) is answered from the cache.
 */
export function ed25519Verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (publicKey.length !== 32 || signature.length !== 64) return false;
  if (isKnownVerified(publicKey, message, signature)) return true;
  return ed25519VerifyUncached(publicKey, message, signature);
}

/** The verification itself, without the cache (the worker threads and benchmarks use it). */
export function ed25519VerifyUncached(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (publicKey.length !== 32 || signature.length !== 64) return false;
  if (ed25519Engine.verify(publicKey, message, signature)) return true;
  return ed25519VerifyZip215(publicKey, message, signature);
}

/** The ZIP-215 check alone (pure JS, slower); exported for tests and the benchmark. */
export function ed25519VerifyZip215(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  try {
    return noble.verify(signature, message, publicKey, { zip215: true });
  } catch {
    return false;
  }
}

/** A signing key made from a 32-byte seed (the "private key" of RFC 8032), in the engine's form. */
export interface Ed25519KeyPair {
  seed: Uint8Array;
  publicKey: Uint8Array;
  signingKey: SigningKey;
}

export function ed25519KeyPairFromSeed(seed: Uint8Array): Ed25519KeyPair {
  if (seed.length !== 32) throw new RangeError("Ed25519 seed must be 32 bytes");
  return { seed: Uint8Array.from(seed), ...ed25519Engine.keyOf(seed) };
}

/** The RFC 8032 signature of `message`. */
export function ed25519Sign(keyPair: Ed25519KeyPair, message: Uint8Array): Uint8Array {
  return ed25519Engine.sign(keyPair.signingKey, message);
}
