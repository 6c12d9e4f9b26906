import { fromHex, hexU32Le, toHex } from "../../../src/codec/hex";
import { AddressType } from "../../../src/codec/types";
import { bech32Decode, bech32Encode } from "../../../src/crypto/bech32";

/**
 * The explorer's reading of IDs and addresses, as strings at the JSON edge (TIP-25: 0x-prefixed
 * lower-case hex): what kind of thing a search names, output IDs from a transaction ID and an
 * index (TIP-20: the index as u16 little-endian), foundry IDs (TIP-18: alias address ‖ serial
 * number u32 LE ‖ token scheme type), addresses as bech32 (TIP-31, the project's own encoder),
 * and bytes shown as text when they are printable.
 */

/** Bytes of each ID kind (TIP-18/20/24/29). */
export const ID_BYTES = 32;
export const OUTPUT_ID_BYTES = 34;
/** A commitment ID of the core/v3 read: milestone ID ‖ index u32 LE (docs/decisions.md). */
export const COMMITMENT_ID_BYTES = 36;
export const FOUNDRY_ID_BYTES = 38;
/** A tag feature or tagged data tag holds at most 64 bytes (TIP-18, TIP-23). */
export const MAX_TAG_BYTES = 64;

/** An address in TIP-25 JSON. */
export type AddressJson =
  | { type: 0; pubKeyHash: string }
  | { type: 8; aliasId: string }
  | { type: 16; nftId: string }
  | { type: number; [key: string]: unknown };

/** Whether `s` is 0x and an even number of hex digits (any case). */
export function isHex(s: string): boolean {
  return /^0x([0-9a-fA-F]{2})*$/.test(s);
}

/** The number of bytes a 0x-hex string holds. */
export const hexBytes = (s: string): number => (s.length - 2) / 2;

/** The hex of the first `bytes` little-endian bytes of a u32, without prefix (the codec's hexU32Le, shortened). */
const hexLe = (value: number, bytes: 1 | 2 | 4): string => hexU32Le(value).slice(0, 2 * bytes);

/** Output ID of output `index` of transaction `transactionId` (TIP-20). */
export const outputIdOf = (transactionId: string, index: number): string =>
  `${transactionId.toLowerCase()}${hexLe(index, 2)}`;

/** The transaction ID and output index an output ID names. */
export function splitOutputId(outputId: string): { transactionId: string; index: number } {
  const lo = Number.parseInt(outputId.slice(66, 68), 16);
  const hi = Number.parseInt(outputId.slice(68, 70), 16);
  return { transactionId: outputId.slice(0, 66).toLowerCase(), index: lo | (hi << 8) };
}

/** The all-zero ID: a chain output's ID before its creation is booked, the genesis's transaction. */
export const isZeroId = (hex: string): boolean => /^0x0+$/.test(hex);

/** Foundry ID = token ID of its native token (TIP-18): alias address ‖ serial u32 LE ‖ token scheme type u8. */
export const foundryIdOf = (aliasId: string, serialNumber: number, tokenSchemeType: number): string =>
  `0x08${aliasId.slice(2).toLowerCase()}${hexLe(serialNumber, 4)}${hexLe(tokenSchemeType, 1)}`;

/** The bytes of an address as bech32 serializes it: type ‖ hash or ID (TIP-31). */
function addressBytes(address: AddressJson): Uint8Array | undefined {
  const id =
    address.type === AddressType.Ed25519
      ? address.pubKeyHash
      : address.type === AddressType.Alias
        ? address.aliasId
        : address.type === AddressType.Nft
          ? address.nftId
          : undefined;
  if (typeof id !== "string" || !isHex(id) || hexBytes(id) !== ID_BYTES) return undefined;
  const out = new Uint8Array(1 + ID_BYTES);
  out[0] = address.type;
  out.set(fromHex(id, "address"), 1);
  return out;
}

/** An address as bech32 with the network's HRP, or undefined when the JSON is not an address. */
export function addressToBech32(address: AddressJson, hrp: string): string | undefined {
  const bytes = addressBytes(address);
  return bytes && bech32Encode(hrp, bytes);
}

/** A decoded bech32 address: its HRP, kind and the hash or ID it holds. */
export interface DecodedAddress {
  hrp: string;
  type: number;
  id: string;
}

/** Decodes a bech32 address; a reason in words when it is not one. */
export function decodeBech32Address(value: string): DecodedAddress | { error: string } {
  let decoded: { hrp: string; data: Uint8Array };
  try {
    decoded = bech32Decode(value);
  } catch (e) {
    return { error: `not a valid bech32 address (${(e as Error).message})` };
  }
  const { hrp, data } = decoded;
  if (data.length !== 1 + ID_BYTES || !Object.values(AddressType).includes(data[0] as 0 | 8 | 16)) {
    return { error: "not an address: bech32 of something other than an Ed25519, alias or NFT address" };
  }
  return { hrp, type: data[0]!, id: toHex(data.subarray(1)) };
}

/**
 * Bytes as text when they are UTF-8 and printable (no control characters other than tab and line
 * breaks), else undefined: a tag or a data field is shown as text only when it reads as text.
 */
export function printableText(hex: string): string | undefined {
  if (!isHex(hex) || hex.length === 2) return undefined;
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(fromHex(hex, "text"));
  } catch {
    return undefined;
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused here
  return /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/.test(text) ? undefined : text;
}

/** The hex of a text's UTF-8 bytes (a tag typed into the search). */
export const utf8Hex = (text: string): string => toHex(new TextEncoder().encode(text));
