/**
 * Ed25519 verifications already done, so that a signature checked once (at block intake, on a
 * worker thread) is not checked again on the confirmation path. Only successes are kept: a
 * failure is always re-checked, so the cache can make validation faster, never different.
 * Bounded: the oldest entries go first once `MAX_ENTRIES` is reached.
 */

const MAX_ENTRIES = 500_000;
const verified = new Set<string>();

function key(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): string {
  // latin1 keeps one char per byte; the signature alone nearly identifies the triple, the key
  // and message make it exact.
  return (
    Buffer.from(signature.buffer, signature.byteOffset, signature.byteLength).toString("latin1") +
    Buffer.from(publicKey.buffer, publicKey.byteOffset, publicKey.byteLength).toString("latin1") +
    Buffer.from(message.buffer, message.byteOffset, message.byteLength).toString("latin1")
  );
}

export function rememberVerified(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): void {
  if (verified.size >= MAX_ENTRIES) verified.delete(verified.values().next().value!);
  verified.add(key(publicKey, message, signature));
}

export function isKnownVerified(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  return verified.has(key(publicKey, message, signature));
}

export function forgetVerified(): void {
  verified.clear();
}
