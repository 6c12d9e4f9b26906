/**
 * Ed25519 verifications already done, so that a signature checked once (at block intake, on a
 * worker thread) is not checked again on the confirmation path. Only successes are kept: a
 * failure is always re-checked, so the cache can make validation faster, never different.
 *
 * Entries are keyed by the signature's array object: intake and confirmation see the same
 * decoded block, so the same arrays. The key and message are compared byte for byte (the
 * signing hash may be hashed again by a caller that did not keep it). An entry lives as long as
 * the decoded block does; nothing is hashed into strings and there is no bound to keep.
 */

let verified = new WeakMap<Uint8Array, { publicKey: Uint8Array; message: Uint8Array }>();

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function rememberVerified(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): void {
  verified.set(signature, { publicKey, message });
}

export function isKnownVerified(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  const known = verified.get(signature);
  return known !== undefined && sameBytes(known.publicKey, publicKey) && sameBytes(known.message, message);
}

export function forgetVerified(): void {
  verified = new WeakMap();
}
