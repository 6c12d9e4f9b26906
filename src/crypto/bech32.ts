import { bech32 } from "bech32";

/**
 * Bech32 (BIP-173) encoding of raw bytes, as TIP-31 uses it for addresses: the data part is
 * the serialized address (type byte + 32-byte hash or ID). Length limit 90 per BIP-173 holds,
 * since an address is 33 bytes.
 */
export function bech32Encode(hrp: string, data: Uint8Array): string {
  return bech32.encode(hrp, bech32.toWords(data));
}

/** Decodes a bech32 string; throws on a bad checksum, mixed case or bad characters. */
export function bech32Decode(value: string): { hrp: string; data: Uint8Array } {
  const { prefix, words } = bech32.decode(value);
  return { hrp: prefix, data: Uint8Array.from(bech32.fromWords(words)) };
}
