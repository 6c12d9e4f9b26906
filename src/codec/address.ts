import { bech32Decode, bech32Encode } from "../crypto/bech32.js";
import { CodecErrorCode, codecError } from "./errors.js";
import { bytesEqual, toHex } from "./hex.js";
import { expectHex, expectObject, expectU8 } from "./json.js";
import { ReadStream } from "./readStream.js";
import { type Address, AddressType, type AliasAddress, type Ed25519Address, type NftAddress } from "./types.js";
import type { WriteStream } from "./writeStream.js";

/**
 * Addresses (TIP-18 address types, TIP-31 serialization): one type byte followed by 32 bytes,
 * the BLAKE2b-256 of an Ed25519 public key (type 0) or of the output ID that created an alias
 * (type 8) or an NFT (type 16).
 */

/** Length of the 32-byte hash or ID that follows the type byte. */
export const ADDRESS_HASH_LENGTH = 32;
/** Serialized length of every address kind: type byte + 32 bytes. */
export const SERIALIZED_ADDRESS_LENGTH = 1 + ADDRESS_HASH_LENGTH;

/** TIP-25 Ed25519 address: the 0x-hex BLAKE2b-256 of the public key. */
export interface Ed25519AddressJson {
  type: 0;
  pubKeyHash: string;
}
/** TIP-25 alias address: the 0x-hex alias ID. */
export interface AliasAddressJson {
  type: 8;
  aliasId: string;
}
/** TIP-25 NFT address: the 0x-hex NFT ID. */
export interface NftAddressJson {
  type: 16;
  nftId: string;
}
/** TIP-25 JSON form of an address. */
export type AddressJson = Ed25519AddressJson | AliasAddressJson | NftAddressJson;

/** The 32 bytes after the type byte, whatever the kind. */
export function addressHash(address: Address): Uint8Array {
  switch (address.type) {
    case AddressType.Ed25519:
      return address.pubKeyHash;
    case AddressType.Alias:
      return address.aliasId;
    case AddressType.Nft:
      return address.nftId;
  }
}

function addressFromParts(type: number, hash: Uint8Array, field: string, code: CodecErrorCode): Address {
  switch (type) {
    case AddressType.Ed25519:
      return { type: AddressType.Ed25519, pubKeyHash: hash };
    case AddressType.Alias:
      return { type: AddressType.Alias, aliasId: hash };
    case AddressType.Nft:
      return { type: AddressType.Nft, nftId: hash };
    default:
      throw codecError(code, field, `unknown address type ${type}`);
  }
}

/** Type byte, then the 32-byte hash or ID. */
export function serializeAddress(w: WriteStream, address: Address): void {
  w.u8(address.type);
  w.bytes(addressHash(address));
}

/** Reads an address of any kind; an unknown type byte fails on `${field}.type`. */
export function deserializeAddress(r: ReadStream, field: string): Address {
  const type = r.u8(`${field}.type`);
  if (type !== AddressType.Ed25519 && type !== AddressType.Alias && type !== AddressType.Nft) {
    throw codecError(CodecErrorCode.UnknownType, `${field}.type`, `unknown address type ${type}`);
  }
  const hash = r.bytesN(ADDRESS_HASH_LENGTH, `${field}.${hashKey(type)}`);
  return addressFromParts(type, hash, `${field}.type`, CodecErrorCode.UnknownType);
}

/** The 33-byte serialized form (type byte + hash), as used in bech32 strings and foundry IDs. */
export function serializeAddressBytes(address: Address): Uint8Array {
  const out = new Uint8Array(SERIALIZED_ADDRESS_LENGTH);
  out[0] = address.type;
  out.set(addressHash(address), 1);
  return out;
}

function hashKey(type: number): "pubKeyHash" | "aliasId" | "nftId" {
  return type === AddressType.Alias ? "aliasId" : type === AddressType.Nft ? "nftId" : "pubKeyHash";
}

/** Hashes and IDs as 0x-prefixed lower-case hex. */
export function addressToJson(address: Address): AddressJson {
  switch (address.type) {
    case AddressType.Ed25519:
      return { type: AddressType.Ed25519, pubKeyHash: toHex(address.pubKeyHash) };
    case AddressType.Alias:
      return { type: AddressType.Alias, aliasId: toHex(address.aliasId) };
    case AddressType.Nft:
      return { type: AddressType.Nft, nftId: toHex(address.nftId) };
  }
}

/** Reads a TIP-25 address object; the key holding the hash depends on `type`. */
export function addressFromJson(json: unknown, field: string): Address {
  const head = expectObject(json, field, ["type"], ["pubKeyHash", "aliasId", "nftId"]);
  const type = expectU8(head.type, `${field}.type`);
  if (type !== AddressType.Ed25519 && type !== AddressType.Alias && type !== AddressType.Nft) {
    throw codecError(CodecErrorCode.UnknownType, `${field}.type`, `unknown address type ${type}`);
  }
  const key = hashKey(type);
  const obj = expectObject(json, field, ["type", key]);
  const hash = expectHex(obj[key], `${field}.${key}`, ADDRESS_HASH_LENGTH);
  return addressFromParts(type, hash, `${field}.type`, CodecErrorCode.UnknownType);
}

/** True when both addresses are of the same kind with the same 32 bytes. */
export function addressEquals(a: Address, b: Address): boolean {
  return a.type === b.type && bytesEqual(addressHash(a), addressHash(b));
}

/** The alias address controlled by an alias output with this ID. */
export function aliasAddressOf(aliasId: Uint8Array): AliasAddress {
  return { type: AddressType.Alias, aliasId };
}

/** The NFT address controlled by an NFT output with this ID. */
export function nftAddressOf(nftId: Uint8Array): NftAddress {
  return { type: AddressType.Nft, nftId };
}

/** The Ed25519 address holding this public key hash. */
export function ed25519AddressOf(pubKeyHash: Uint8Array): Ed25519Address {
  return { type: AddressType.Ed25519, pubKeyHash };
}

/** TIP-31 bech32 string: the HRP, separator `1`, then the 33 serialized address bytes. */
export function addressToBech32(address: Address, hrp: string): string {
  return bech32Encode(hrp, serializeAddressBytes(address));
}

/**
 * Parses a TIP-31 bech32 address that must carry `hrp`. A bad checksum or character, the wrong
 * HRP, an unknown type byte or a data part that is not 33 bytes all fail with InvalidBech32.
 */
export function addressFromBech32(value: string, hrp: string, field: string): Address {
  let decoded: { hrp: string; data: Uint8Array };
  try {
    decoded = bech32Decode(value);
  } catch (e) {
    throw codecError(CodecErrorCode.InvalidBech32, field, `not a valid bech32 string (${(e as Error).message})`);
  }
  // BIP-173 decoders accept an all-upper-case string; its HRP comes back lower-cased.
  if (decoded.hrp !== hrp.toLowerCase()) {
    throw codecError(CodecErrorCode.InvalidBech32, field, `expected HRP "${hrp}", got "${decoded.hrp}"`);
  }
  if (decoded.data.length !== SERIALIZED_ADDRESS_LENGTH) {
    throw codecError(
      CodecErrorCode.InvalidBech32,
      field,
      `an address is ${SERIALIZED_ADDRESS_LENGTH} bytes, got ${decoded.data.length}`,
    );
  }
  const r = new ReadStream(decoded.data);
  const type = r.u8(field);
  return addressFromParts(type, r.bytesN(ADDRESS_HASH_LENGTH, field), field, CodecErrorCode.InvalidBech32);
}
