import { createPrivateKey, createPublicKey, type KeyObject, sign, verify } from "node:crypto";
import { ed25519 as noble } from "@noble/curves/ed25519.js";
import { isKnownVerified } from "./signatureCache.js";

/**
 * Ed25519 with ZIP-215 acceptance, as TIP-20 requires for signature unlocks.
 * Fast path: OpenSSL through node:crypto. OpenSSL follows RFC 8032's stricter rules, so a
 * signature it rejects is checked again under ZIP-215 with @noble/curves: the result is exactly
 * ZIP-215, and the common (valid) case costs one OpenSSL call. Public key objects are cached,
 * since the same addresses sign many transactions.
 */

const PKCS8_PREFIX = Uint8Array.from([
  0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
]);
const SPKI_PREFIX = Uint8Array.from([0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00]);

const KEY_CACHE_MAX = 10_000;
const keyCache = new Map<string, KeyObject | null>();

function publicKeyObject(publicKey: Uint8Array): KeyObject | null {
  const id = Buffer.from(publicKey.buffer, publicKey.byteOffset, publicKey.byteLength).toString("latin1");
  let key = keyCache.get(id);
  if (key !== undefined) return key;
  try {
    // imported as JWK, far cheaper than DER/SPKI (docs/decisions.md, Intake and confirmation)
    key = createPublicKey({
      key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(publicKey).toString("base64url") },
      format: "jwk",
    });
  } catch {
    key = null; // OpenSSL refuses the encoding; ZIP-215 may still accept it
  }
  if (keyCache.size >= KEY_CACHE_MAX) keyCache.delete(keyCache.keys().next().value!);
  keyCache.set(id, key);
  return key;
}

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
  const key = publicKeyObject(publicKey);
  if (key !== null) {
    try {
      if (verify(null, message, key, signature)) return true;
    } catch {
      // fall through to the ZIP-215 check
    }
  }
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

/** A signing key made from a 32-byte seed (the "private key" of RFC 8032). */
export interface Ed25519KeyPair {
  seed: Uint8Array;
  publicKey: Uint8Array;
  privateKey: KeyObject;
}

export function ed25519KeyPairFromSeed(seed: Uint8Array): Ed25519KeyPair {
  if (seed.length !== 32) throw new RangeError("Ed25519 seed must be 32 bytes");
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: "der", type: "pkcs8" });
  const spki = createPublicKey(privateKey).export({ format: "der", type: "spki" });
  return { seed: Uint8Array.from(seed), publicKey: new Uint8Array(spki.subarray(SPKI_PREFIX.length)), privateKey };
}

export function ed25519Sign(keyPair: Ed25519KeyPair, message: Uint8Array): Uint8Array {
  return new Uint8Array(sign(null, message, keyPair.privateKey));
}
