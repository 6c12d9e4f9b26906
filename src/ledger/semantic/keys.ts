import { addressHash } from "../../codec/address.js";
import type { Address } from "../../codec/types.js";

/**
 * Map keys for identities inside one validation: an address key is its type byte and hash in
 * hex, so an alias address and an NFT address with the same 32 bytes never collide. Chains
 * (alias, NFT) are keyed by the address they define; foundries by their foundry ID, which is
 * also the native token ID they control.
 */

const hex = (bytes: Uint8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");

/** The key of an address (type byte ‖ 32-byte hash). */
export function addressKey(address: Address): string {
  return `${address.type}:${hex(addressHash(address))}`;
}

/** The key of a foundry, or of the native token it controls (same 38 bytes). */
export function tokenKey(foundryOrTokenId: Uint8Array): string {
  return `t:${hex(foundryOrTokenId)}`;
}
