/**
 * b1t6: the binary-to-ternary encoding of TIP-5 that TIP-12 uses to feed bytes into Curl.
 * Each byte, read as a signed 8-bit integer, becomes two trytes = six balanced trits, least
 * significant first. Since -128..127 lies within the 6-trit range -364..364 and balanced
 * ternary representations are unique, this equals the TIP's "(v + 364) split into two trytes"
 * definition without the lookup table.
 */

/** Trits per encoded byte. */
export const B1T6_TRITS_PER_BYTE = 6;

/**
 * Writes the b1t6 encoding of `bytes` into `dst` from `offset` and returns the number of trits
 * written (6 per byte). `dst` holds trits as -1, 0, 1.
 */
export function b1t6EncodeInto(dst: Int8Array, offset: number, bytes: Uint8Array): number {
  let o = offset;
  for (let i = 0; i < bytes.length; i++) {
    let v = (bytes[i]! << 24) >> 24;
    for (let k = 0; k < B1T6_TRITS_PER_BYTE; k++) {
      // balanced remainder in {-1, 0, 1}; v stays exact because it is small
      const r = ((v % 3) + 3) % 3;
      const t = r === 2 ? -1 : r;
      dst[o++] = t;
      v = (v - t) / 3;
    }
  }
  return o - offset;
}

/** The b1t6 encoding of `bytes` as a new trit array (6 trits per byte). */
export function b1t6Encode(bytes: Uint8Array): Int8Array {
  const out = new Int8Array(bytes.length * B1T6_TRITS_PER_BYTE);
  b1t6EncodeInto(out, 0, bytes);
  return out;
}
