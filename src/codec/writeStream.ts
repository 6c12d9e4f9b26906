import { NodeBuffer } from "./nodeBuffer.js";

/**
 * Scratch memory for a stream: uninitialised (every byte is written before `finish` copies it
 * out) and, for small sizes, carved from Node's shared pool, so the many short-lived streams of
 * encoding cost neither a zero-fill nor a fresh allocation each. A browser (no Buffer) gets a
 * plain array.
 */
function scratch(size: number): Uint8Array {
  if (!NodeBuffer) return new Uint8Array(size);
  const b = NodeBuffer.allocUnsafe(size);
  return new Uint8Array(b.buffer, b.byteOffset, size);
}

/** Largest scratch memory kept for the next stream. */
const SPARE_MAX = 64 * 1024;

/**
 * Scratch memory a finished stream handed back, with its view: encoding is synchronous, so the
 * next stream usually finds it free and allocates nothing. A stream opened while another is
 * open (nested encoding) takes fresh memory.
 */
let spare: { buf: Uint8Array; view: DataView } | undefined;

const EMPTY = new Uint8Array(0);
const EMPTY_VIEW = new DataView(EMPTY.buffer);

/**
 * An append-only little-endian byte writer that grows its buffer by doubling. `finish()`
 * returns a copy of exactly the bytes written.
 */
export class WriteStream {
  private buf: Uint8Array;
  private view: DataView;
  private pos = 0;

  constructor(initialSize = 256) {
    if (spare && spare.buf.length >= initialSize) {
      this.buf = spare.buf;
      this.view = spare.view;
      spare = undefined;
    } else {
      this.buf = scratch(initialSize);
      this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
    }
  }

  get length(): number {
    return this.pos;
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = Math.max(this.buf.length * 2, 64);
    while (size < this.pos + n) size *= 2;
    const next = scratch(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
    this.view = new DataView(next.buffer, next.byteOffset, next.byteLength);
  }

  u8(v: number): this {
    this.ensure(1);
    this.buf[this.pos++] = v;
    return this;
  }

  u16(v: number): this {
    this.ensure(2);
    this.view.setUint16(this.pos, v, true);
    this.pos += 2;
    return this;
  }

  u32(v: number): this {
    this.ensure(4);
    this.view.setUint32(this.pos, v, true);
    this.pos += 4;
    return this;
  }

  /** Overwrites a u32 written earlier (length prefixes known only after the body). */
  setU32At(offset: number, v: number): this {
    this.view.setUint32(offset, v, true);
    return this;
  }

  u64(v: bigint): this {
    this.ensure(8);
    this.view.setBigUint64(this.pos, v, true);
    this.pos += 8;
    return this;
  }

  u256(v: bigint): this {
    this.ensure(32);
    let x = v;
    for (let i = 0; i < 32; i++) {
      this.buf[this.pos + i] = Number(x & 0xffn);
      x >>= 8n;
    }
    this.pos += 32;
    return this;
  }

  bytes(b: Uint8Array): this {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
    return this;
  }

  bool(v: boolean): this {
    return this.u8(v ? 1 : 0);
  }

  /** The bytes written, copied out; the stream's memory goes to the next stream, and this one starts empty. */
  finish(): Uint8Array {
    const out = this.buf.slice(0, this.pos);
    if (this.buf.length <= SPARE_MAX && (!spare || spare.buf.length < this.buf.length)) {
      spare = { buf: this.buf, view: this.view };
    }
    this.buf = EMPTY;
    this.view = EMPTY_VIEW;
    this.pos = 0;
    return out;
  }
}

/** The bytes `serialize` writes for `value` (`sizeHint`: the first buffer's size). */
export function encodeWith<T>(serialize: (w: WriteStream, value: T) => void, value: T, sizeHint: number): Uint8Array {
  const w = new WriteStream(sizeHint);
  serialize(w, value);
  return w.finish();
}
