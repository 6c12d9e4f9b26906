import { CodecErrorCode, codecError } from "./errors.js";

/**
 * A cursor over bytes whose every read names the field it reads, so a truncated input fails
 * with `CodecError(Truncated, "basicOutput.amount")` rather than a RangeError. All integers are
 * little-endian, as every Stardust TIP serializes them.
 */
export class ReadStream {
  private pos = 0;

  // Integers are assembled from bytes rather than read through a DataView: creating a DataView
  // per stream cost more than all the reads of a typical record (hot read routes decode four).
  /**
   * `owned`: the bytes belong to what is decoded from them (nothing else holds or writes them),
   * so `bytesN` hands out views instead of copies.
   */
  constructor(
    private readonly bytes: Uint8Array,
    private readonly owned = false,
  ) {}

  get position(): number {
    return this.pos;
  }

  get length(): number {
    return this.bytes.length;
  }

  remaining(): number {
    return this.bytes.length - this.pos;
  }

  /** The bytes from `start` up to the current position (no copy). */
  sliceFrom(start: number): Uint8Array {
    return this.bytes.subarray(start, this.pos);
  }

  private need(n: number, field: string): void {
    if (this.pos + n > this.bytes.length) {
      throw codecError(
        CodecErrorCode.Truncated,
        field,
        `needs ${n} bytes at offset ${this.pos}, ${this.bytes.length - this.pos} left`,
      );
    }
  }

  u8(field: string): number {
    this.need(1, field);
    return this.bytes[this.pos++]!;
  }

  /** Reads a u8 without consuming it (type discriminators). */
  peekU8(field: string): number {
    this.need(1, field);
    return this.bytes[this.pos]!;
  }

  /** Reads a u32 without consuming it (payload type discriminators). */
  peekU32(field: string): number {
    this.need(4, field);
    return this.u32At(this.pos);
  }

  private u32At(p: number): number {
    const b = this.bytes;
    return (b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16)) + b[p + 3]! * 0x1000000;
  }

  u16(field: string): number {
    this.need(2, field);
    const p = this.pos;
    this.pos = p + 2;
    return this.bytes[p]! | (this.bytes[p + 1]! << 8);
  }

  u32(field: string): number {
    this.need(4, field);
    const v = this.u32At(this.pos);
    this.pos += 4;
    return v;
  }

  u64(field: string): bigint {
    this.need(8, field);
    const lo = this.u32At(this.pos);
    const hi = this.u32At(this.pos + 4);
    this.pos += 8;
    // below 2^53 (every amount of a real supply) one Number holds it exactly
    return hi < 0x200000 ? BigInt(hi * 0x100000000 + lo) : (BigInt(hi) << 32n) | BigInt(lo);
  }

  u256(field: string): bigint {
    this.need(32, field);
    let v = 0n;
    for (let i = 31; i >= 0; i--) v = (v << 8n) | BigInt(this.bytes[this.pos + i]!);
    this.pos += 32;
    return v;
  }

  /**
   * The next `n` bytes: a copy, so decoded objects never alias a buffer the caller may reuse,
   * or a view when the stream's bytes are `owned`.
   */
  bytesN(n: number, field: string): Uint8Array {
    this.need(n, field);
    const out = this.owned ? this.bytes.subarray(this.pos, this.pos + n) : this.bytes.slice(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  /**
   * The next `n` bytes without a copy: for decoders of records that were just read from the
   * store into a buffer of their own, whose results nothing else writes to.
   */
  view(n: number, field: string): Uint8Array {
    this.need(n, field);
    const out = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  /** A boolean byte: 0 or 1, anything else rejected. */
  bool(field: string): boolean {
    const v = this.u8(field);
    if (v > 1) throw codecError(CodecErrorCode.ValueOutOfRange, field, `boolean byte must be 0 or 1, got ${v}`);
    return v === 1;
  }

  /** Fails when bytes are left over after a complete top-level object. */
  expectEnd(field: string): void {
    if (this.pos !== this.bytes.length) {
      throw codecError(CodecErrorCode.TrailingBytes, field, `${this.bytes.length - this.pos} trailing bytes`);
    }
  }
}

/**
 * Exactly one object read by `deserialize` from `bytes`; trailing bytes fail, named by `field`.
 * `owned`: the decoded fields may be views of `bytes` (see `ReadStream`).
 */
export function decodeWith<T>(
  deserialize: (r: ReadStream, field: string) => T,
  bytes: Uint8Array,
  field: string,
  owned = false,
): T {
  const r = new ReadStream(bytes, owned);
  const value = deserialize(r, field);
  r.expectEnd(field);
  return value;
}
