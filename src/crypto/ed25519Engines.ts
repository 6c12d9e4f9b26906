import { createPrivateKey, createPublicKey, type KeyObject, sign, verify } from "node:crypto";

/**
 * The two engines that sign and check Ed25519 by RFC 8032 (docs/decisions.md, Intake and
 * confirmation): libsodium through sodium-native, which checks in less than half of OpenSSL's
 * time on the raw key, and OpenSSL through node:crypto, for a platform sodium-native ships no
 * binary for (Alpine's musl among them). Both are stricter than ZIP-215: ed25519.ts checks what
 * they refuse again. RFC 8032 signatures are deterministic, so both write the same bytes.
 */
export interface Ed25519Engine {
  /** RFC 8032's check (a refusal is not final under ZIP-215). */
  verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean;
  /** The public key of a 32-byte seed and the engine's own form of the signing key. */
  keyOf(seed: Uint8Array): { publicKey: Uint8Array; signingKey: SigningKey };
  sign(signingKey: SigningKey, message: Uint8Array): Uint8Array;
}

/** libsodium's secret key (seed ‖ public key), or OpenSSL's key object. */
export type SigningKey = Uint8Array | KeyObject;

type Sodium = typeof import("sodium-native");

function libsodiumEngine(sodium: Sodium): Ed25519Engine {
  return {
    verify: (publicKey, message, signature) => sodium.crypto_sign_verify_detached(signature, message, publicKey),
    keyOf(seed) {
      const publicKey = new Uint8Array(32);
      const signingKey = new Uint8Array(64);
      sodium.crypto_sign_seed_keypair(publicKey, signingKey, seed);
      return { publicKey, signingKey };
    },
    sign(signingKey, message) {
      const signature = new Uint8Array(64);
      sodium.crypto_sign_detached(signature, message, signingKey as Uint8Array);
      return signature;
    },
  };
}

const PKCS8_PREFIX = Uint8Array.from([
  0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
]);
const SPKI_PREFIX_LENGTH = 12;
const KEY_CACHE_MAX = 10_000;

/** OpenSSL needs a key object per public key: imported as JWK (5–9 µs, DER costs far more) and kept. */
export function opensslEngine(): Ed25519Engine {
  const keys = new Map<string, KeyObject | null>();
  const keyObject = (publicKey: Uint8Array): KeyObject | null => {
    const id = Buffer.from(publicKey.buffer, publicKey.byteOffset, publicKey.byteLength).toString("latin1");
    let key = keys.get(id);
    if (key !== undefined) return key;
    try {
      const x = Buffer.from(publicKey).toString("base64url");
      key = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x }, format: "jwk" });
    } catch {
      key = null; // OpenSSL refuses the encoding; ZIP-215 may still accept it
    }
    if (keys.size >= KEY_CACHE_MAX) keys.delete(keys.keys().next().value!);
    keys.set(id, key);
    return key;
  };
  return {
    verify(publicKey, message, signature) {
      const key = keyObject(publicKey);
      try {
        return key !== null && verify(null, message, key, signature);
      } catch {
        return false;
      }
    },
    keyOf(seed) {
      const der = Buffer.concat([PKCS8_PREFIX, seed]);
      const signingKey = createPrivateKey({ key: der, format: "der", type: "pkcs8" });
      const spki = createPublicKey(signingKey).export({ format: "der", type: "spki" });
      return { publicKey: new Uint8Array(spki.subarray(SPKI_PREFIX_LENGTH)), signingKey };
    },
    sign: (signingKey, message) => new Uint8Array(sign(null, message, signingKey as KeyObject)),
  };
}

const loaded: { engine?: Ed25519Engine; error?: Error } = await import("sodium-native").then(
  (m) => ({ engine: libsodiumEngine((m.default ?? m) as Sodium) }),
  (e: unknown) => ({ error: e instanceof Error ? e : new Error(String(e)) }),
);

/** libsodium's engine, when its binary loads on this platform. */
export const libsodium: Ed25519Engine | undefined = loaded.engine;

/** Why sodium-native did not load here, when it did not (cli/main.ts says so at start). */
export const libsodiumLoadError: Error | undefined = loaded.error;

/** libsodium when its binary loads on this platform, else OpenSSL. */
export const ed25519Engine: Ed25519Engine = libsodium ?? opensslEngine();
