/** Tryte strings (alphabet 9, A..Z) to and from balanced trits, for test vectors only. */
const ALPHABET = "9ABCDEFGHIJKLMNOPQRSTUVWXYZ";

/** Each tryte becomes three trits, least significant first; 9 = 0, A..M = 1..13, N..Z = -13..-1. */
export function trytesToTrits(trytes: string): Int8Array {
  const out = new Int8Array(3 * trytes.length);
  for (let i = 0; i < trytes.length; i++) {
    const c = ALPHABET.indexOf(trytes[i]!);
    if (c < 0) throw new Error(`not a tryte: ${trytes[i]}`);
    let v = c > 13 ? c - 27 : c;
    for (let k = 0; k < 3; k++) {
      const r = ((v % 3) + 3) % 3;
      const t = r === 2 ? -1 : r;
      out[3 * i + k] = t;
      v = (v - t) / 3;
    }
  }
  return out;
}

/** The inverse of `trytesToTrits`; the trit count must be a multiple of 3. */
export function tritsToTrytes(trits: Int8Array): string {
  let s = "";
  for (let i = 0; i < trits.length; i += 3) {
    const v = trits[i]! + 3 * trits[i + 1]! + 9 * trits[i + 2]!;
    s += ALPHABET[v < 0 ? v + 27 : v];
  }
  return s;
}
