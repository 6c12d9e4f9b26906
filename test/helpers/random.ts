/**
 * A small seeded PRNG for property tests, so that a failing case reproduces from its seed.
 * sfc32 (Chris Doty-Humphrey's Small Fast Counter) state seeded through splitmix32; all
 * arithmetic stays in 32-bit integers, which keeps it fast in JavaScript.
 */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(readonly seed: number) {
    let s = seed >>> 0;
    const splitmix32 = (): number => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = splitmix32();
    this.b = splitmix32();
    this.c = splitmix32();
    this.d = splitmix32();
    for (let i = 0; i < 12; i++) this.u32();
  }

  /** A uniform 32-bit unsigned integer. */
  u32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** A uniform float in [0, 1). */
  float(): number {
    return this.u32() / 0x100000000;
  }

  /** A uniform integer in [min, max] (both inclusive, |max − min| < 2^32). */
  int(min: number, max: number): number {
    return min + Math.floor(this.float() * (max - min + 1));
  }

  /** True with probability `p`. */
  bool(p = 0.5): boolean {
    return this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)]!;
  }

  /** Each item kept with probability `p`, order preserved. */
  subset<T>(items: readonly T[], p = 0.5): T[] {
    return items.filter(() => this.bool(p));
  }

  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i += 4) {
      const v = this.u32();
      for (let j = 0; j < 4 && i + j < n; j++) out[i + j] = (v >>> (8 * j)) & 0xff;
    }
    return out;
  }

  /** A uniform bigint in [0, 2^bits). */
  bigBits(bits: number): bigint {
    let v = 0n;
    for (let i = 0; i < bits; i += 32) v = (v << 32n) | BigInt(this.u32());
    return v & ((1n << BigInt(bits)) - 1n);
  }

  /** A bigint in [min, max], with a random bit width so that small and huge values both occur. */
  bigRange(min: bigint, max: bigint): bigint {
    const span = max - min;
    if (span <= 0n) return min;
    const width = this.int(1, span.toString(2).length);
    return min + (this.bigBits(width) % (span + 1n));
  }

  /**
   * A length in [min, max], skewed towards short values but hitting both bounds now and then,
   * so that generated objects stay fast to handle while limits are still exercised.
   */
  length(min: number, max: number): number {
    const r = this.float();
    if (r < 0.05) return min;
    if (r < 0.1) return max;
    if (r < 0.7) return this.int(min, Math.min(max, min + 8));
    if (r < 0.9) return this.int(min, Math.min(max, min + 64));
    return this.int(min, max);
  }
}
