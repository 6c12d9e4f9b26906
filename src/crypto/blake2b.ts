import { createBLAKE2b } from "hash-wasm";

/**
 * BLAKE2b-256, the one hash of the Stardust protocol (block, transaction, output and milestone
 * IDs, inputsCommitment, Merkle trees). node:crypto's `blake2b512` is a different function
 * (64-byte digest, different IV parameter block), so it cannot be truncated to this.
 * hash-wasm is compiled once at module load so that hashing stays synchronous afterwards.
 */
const hasher = await createBLAKE2b(256);

/** BLAKE2b-256 of the concatenation of `parts`. */
export function blake2b256(...parts: Uint8Array[]): Uint8Array {
  hasher.init();
  for (let i = 0; i < parts.length; i++) hasher.update(parts[i]!);
  return hasher.digest("binary");
}

export const BLAKE2B_256_LENGTH = 32;
