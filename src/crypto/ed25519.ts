import { ed25519 as noble } from "@noble/curves/ed25519.js";
import sodium from "sodium-native";
import { isKnownVerified } from "./signatureCache.js";

/**
 * Ed25519 with ZIP-215 acceptance, as TIP-20 requires for signature unlocks.
 * Fast path: libsodium (sodium-native). It is stricter than ZIP-215 (canonical and not small-order
 * A and R, the cofactorless equation), so what it accepts ZIP-215 accepts too, and a signature it
 * rejects is checked again under ZIP-215 with @noble/curves: the result is exactly ZIP-215, and
 * the common (valid) case costs one libsodium call. It takes the raw 32-byte key and checks in
 * less than half of OpenSSL's time through node:crypto, which also needs a key object made
 * first (docs/decisions.md, Intake and confirmation; docs/performance.md, The bound). Signing
 * goes through libsodium too.
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
  if (sodium.crypto_sign_verify_detached(signature, message, publicKey)) return true;
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

/**
 * A signing key made from a 32-byte seed (the "private key" of RFC 8032); `secretKey` is
 * libsodium's form of it, the seed followed by the public key.
 */
export interface Ed25519KeyPair {
  seed: Uint8Array;
  publicKey: Uint8Array;
  secretKey: Uint8Array;
}

export function ed25519KeyPairFromSeed(seed: Uint8Array): Ed25519KeyPair {
  if (seed.length !== 32) throw new RangeError("Ed25519 seed must be 32 bytes");
  const publicKey = new Uint8Array(32);
  const secretKey = new Uint8Array(64);
  sodium.crypto_sign_seed_keypair(publicKey, secretKey, seed);
  return { seed: Uint8Array.from(seed), publicKey, secretKey };
}

/** The RFC 8032 signature of `message` (deterministic: OpenSSL and libsodium write the same bytes). */
export function ed25519Sign(keyPair: Ed25519KeyPair, message: Uint8Array): Uint8Array {
  const signature = new Uint8Array(64);
  sodium.crypto_sign_detached(signature, message, keyPair.secretKey);
  return signature;
}
