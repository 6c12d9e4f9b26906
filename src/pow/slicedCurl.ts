import { CURL_INDICES, CURL_P81_ROUNDS, CURL_STATE_LENGTH } from "./curl.js";

/**
 * Bit-sliced Curl-P-81: `lanes` independent Curl states evaluated at once, one lane per bit of
 * a machine word. PoW search (TIP-12) hashes many nonces that share the same digest trits, so
 * each bitwise instruction advances `lanes` hashes.
 *
 * Each trit is two bit-planes (lo, hi): -1 = (1, 0), 0 = (1, 1), 1 = (0, 1). Of the 24 ways to
 * give three trits 2-bit codes, this is one for which an exhaustive search over short gate
 * sequences (and, or, xor, and-not, not, bit-select) finds the Curl s-box out = S(a, b) in
 * four two-input gates and no NOT:
 *
 *     out.lo = a.hi ^ (a.lo & ~b.lo)
 *     out.hi = a.lo ^ (b.hi & out.lo)
 *
 * The tests compare every hasher with the scalar table-driven Curl on random states.
 */

/**
 * Buffer layout shared by every bit-sliced hasher: trit t of the state occupies 2·words
 * consecutive Int32 words, first its lo plane then its hi plane; lane k is bit (k mod 32)
 * of word ⌊k / 32⌋ of each plane.
 */
export interface SlicedCurl {
  /** Number of states hashed per transform (32 · words). */
  readonly lanes: number;
  /** Int32 words per bit-plane. */
  readonly words: number;
  /** The 729-trit input states; left unchanged by `transform`. */
  readonly input: Int32Array;
  /** The 729-trit states after 81 rounds; the first 243 trits are the hashes. */
  readonly output: Int32Array;
  /** Which implementation this is, for benchmarks and logs. */
  readonly kind: "wasm-simd" | "js";
  /** Applies the Curl-P-81 permutation to every lane of `input`, writing `output`. */
  transform(): void;
}

/** The (lo, hi) plane bits of a trit, per the encoding above. */
export function tritPlanes(trit: number): [lo: number, hi: number] {
  return trit < 0 ? [1, 0] : trit > 0 ? [0, 1] : [1, 1];
}

/** Sets trit `t` to `trit` in every lane of `buf`. */
export function setTritAllLanes(buf: Int32Array, words: number, t: number, trit: number): void {
  const [lo, hi] = tritPlanes(trit);
  const base = 2 * words * t;
  buf.fill(-lo, base, base + words);
  buf.fill(-hi, base + words, base + 2 * words);
}

/** Sets trit `t` of lane `lane` to `trit`, leaving the other lanes unchanged. */
export function setLaneTrit(buf: Int32Array, words: number, t: number, lane: number, trit: number): void {
  const [lo, hi] = tritPlanes(trit);
  const i = 2 * words * t + (lane >>> 5);
  const bit = 1 << (lane & 31);
  buf[i] = lo ? buf[i]! | bit : buf[i]! & ~bit;
  buf[i + words] = hi ? buf[i + words]! | bit : buf[i + words]! & ~bit;
}

/** Reads trit `t` of lane `lane`. */
export function laneTrit(buf: Int32Array, words: number, t: number, lane: number): number {
  const i = 2 * words * t + (lane >>> 5);
  const s = lane & 31;
  const lo = (buf[i]! >>> s) & 1;
  const hi = (buf[i + words]! >>> s) & 1;
  return lo === hi ? 0 : lo ? -1 : 1;
}

/**
 * The lowest lane whose trits [from, to) are all zero, or -1. A zero trit has both planes
 * set, so a lane qualifies when its bit survives AND-ing both planes of every trit.
 */
export function firstZeroRunLane(buf: Int32Array, words: number, from: number, to: number): number {
  for (let w = 0; w < words; w++) {
    let m = -1;
    for (let t = from; t < to && m !== 0; t++) {
      const i = 2 * words * t + w;
      m &= buf[i]! & buf[i + words]!;
    }
    if (m !== 0) return 32 * w + 31 - Math.clz32(m & -m);
  }
  return -1;
}

/** CURL_INDICES scaled to word offsets of a one-word-per-plane buffer. */
const JS_OFFSETS: Uint16Array = CURL_INDICES.map((i) => 2 * i);

/** One Curl round over 32 lanes: dst[i] = S(src[idx i], src[idx i+1]) with the gates above. */
function jsRound(src: Int32Array, dst: Int32Array): void {
  let al = src[0]!;
  let ah = src[1]!;
  for (let i = 0, d = 0; i < CURL_STATE_LENGTH; i++, d += 2) {
    const q = JS_OFFSETS[i + 1]!;
    const bl = src[q]!;
    const bh = src[q + 1]!;
    const lo = ah ^ (al & ~bl);
    dst[d] = lo;
    dst[d + 1] = al ^ (bh & lo);
    al = bl;
    ah = bh;
  }
}

/**
 * The portable fallback: 32 lanes in Int32 plane pairs, used where WebAssembly SIMD is not
 * available.
 */
export class JsSlicedCurl implements SlicedCurl {
  readonly lanes = 32;
  readonly words = 1;
  readonly kind = "js";
  readonly input = new Int32Array(2 * CURL_STATE_LENGTH);
  readonly output = new Int32Array(2 * CURL_STATE_LENGTH);
  private readonly tmp = new Int32Array(2 * CURL_STATE_LENGTH);

  transform(): void {
    // an odd number of rounds ping-pongs input -> output -> tmp -> output ... -> output
    jsRound(this.input, this.output);
    for (let r = 1; r < CURL_P81_ROUNDS; r += 2) {
      jsRound(this.output, this.tmp);
      jsRound(this.tmp, this.output);
    }
  }
}
