// The functions of sodium-native (libsodium's bindings) the node calls; the package ships no
// types of its own and @types/sodium-native describes an older major version.
declare module "sodium-native" {
  /** libsodium's `crypto_sign_verify_detached`: true when `signature` over `message` verifies under `publicKey`. */
  export function crypto_sign_verify_detached(
    signature: Uint8Array,
    message: Uint8Array,
    publicKey: Uint8Array,
  ): boolean;
  /** Writes the 64-byte Ed25519 signature of `message` by `secretKey` (seed ‖ public key). */
  export function crypto_sign_detached(signature: Uint8Array, message: Uint8Array, secretKey: Uint8Array): void;
  /** Writes the public key (32 bytes) and secret key (64 bytes) of a 32-byte seed. */
  export function crypto_sign_seed_keypair(publicKey: Uint8Array, secretKey: Uint8Array, seed: Uint8Array): void;
}
