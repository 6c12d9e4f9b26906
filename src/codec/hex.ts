import { CodecErrorCode, codecError } from "./errors.js";
import { NodeBuffer } from "./nodeBuffer.js";

const HEX = "0123456789abcdef";
const LUT: string[] = Array.from({ length: 256 }, (_, i) => HEX[i >> 4]! + HEX[i & 15]!);

/** From this length on Node's native hex encoder beats the lookup table (IDs, addresses, payloads). */
const NATIVE_FROM = 12;

/**
 * Node's native hex encoder and decoder, the ones `buf.toString("hex")` and `Buffer.from(s,
 * "hex")` call. They take any Uint8Array, so no Buffer view is made per call (IDs are hexed for
 * every map lookup on the hot paths). They are not public API: they are used only when a probe
 * at load finds them behaving as this module needs (encoding, decoding, stopping at the first
 * pair that is not hex); otherwise the portable paths serve (docs/decisions.md, Read paths).
 */
interface NativeHex {
  slice(this: Uint8Array, start: number, end: number): string;
  write(this: Uint8Array, s: string, at: number, n: number): number;
}

function probeNativeHex(): NativeHex | undefined {
  // a browser has no Buffer (nodeBuffer.ts): the portable paths serve
  const proto = NodeBuffer?.prototype as { hexSlice?: NativeHex["slice"]; hexWrite?: NativeHex["write"] } | undefined;
  if (!proto) return undefined;
  const { hexSlice: slice, hexWrite: write } = proto;
  if (typeof slice !== "function" || typeof write !== "function") return undefined;
  try {
    const sample = Uint8Array.from({ length: 16 }, (_, i) => i * 17);
    const text = "00112233445566778899aabbccddeeff";
    const decoded = new Uint8Array(16);
    const stopped = new Uint8Array(2);
    const works =
      slice.call(sample, 0, 16) === text &&
      write.call(decoded, text, 0, 16) === 16 &&
      decoded.every((b, i) => b === sample[i]) &&
      write.call(stopped, "0g", 0, 2) === 0;
    return works ? { slice, write } : undefined;
  } catch {
    return undefined;
  }
}

let native = probeNativeHex();

/** Whether the native paths are in use; `false` forces the portable ones (tests run both). */
export function useNativeHex(enabled: boolean): boolean {
  native = enabled ? probeNativeHex() : undefined;
  return native !== undefined;
}

/**
 * Where `fromHex` has the native decoder write: memory outside V8's heap, allocated once. A
 * fresh small typed array lives on V8's heap, and native code writing into it first has V8 move
 * it out first, which costs more than the decoding itself (docs/decisions.md, Read paths).
 */
const DECODE_SCRATCH = NodeBuffer ? NodeBuffer.allocUnsafeSlow(4096) : new Uint8Array(4096);

/** Bytes to 0x-prefixed lower-case hex (the only hex form on the wire, TIP-25). */
export function toHex(bytes: Uint8Array): string {
  if (bytes.length >= NATIVE_FROM) {
    if (native) return `0x${native.slice.call(bytes, 0, bytes.length)}`;
    if (NodeBuffer) return `0x${NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex")}`;
  }
  let s = "0x";
  for (let i = 0; i < bytes.length; i++) s += LUT[bytes[i]!];
  return s;
}

/**
 * `toHex` of each of `items` (a listing's IDs): one native call for all of them when it serves,
 * the text then cut per item, instead of a call per item.
 */
export function toHexEach(items: readonly Uint8Array[]): string[] {
  let total = 0;
  for (const b of items) total += b.length;
  if (!native || items.length < 2 || total > 1 << 20) return items.map(toHex);
  const all = new Uint8Array(total);
  let at = 0;
  for (const b of items) {
    all.set(b, at);
    at += b.length;
  }
  const hex = native.slice.call(all, 0, total);
  const out: string[] = new Array(items.length);
  at = 0;
  for (let i = 0; i < items.length; i++) {
    const n = 2 * items[i]!.length;
    out[i] = `0x${hex.slice(at, at + n)}`;
    at += n;
  }
  return out;
}

/** A u32 as the hex of its 4 little-endian bytes, without prefix (to append to an ID's hex). */
export function hexU32Le(v: number): string {
  return LUT[v & 0xff]! + LUT[(v >>> 8) & 0xff]! + LUT[(v >>> 16) & 0xff]! + LUT[v >>> 24]!;
}

function nibble(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

/**
 * 0x-prefixed hex to bytes. `length`, when given, is the exact byte length required.
 * Any failure is a CodecError(InvalidHex) naming `field`.
 */
export function fromHex(value: unknown, field: string, length?: number): Uint8Array {
  if (typeof value !== "string")
    throw codecError(CodecErrorCode.InvalidHex, field, "expected a 0x-prefixed hex string");
  if (!value.startsWith("0x")) throw codecError(CodecErrorCode.InvalidHex, field, "hex must start with 0x");
  const n = value.length - 2;
  if (n % 2 !== 0) throw codecError(CodecErrorCode.InvalidHex, field, "hex has an odd number of digits");
  if (length !== undefined && n / 2 !== length) {
    throw codecError(CodecErrorCode.InvalidHex, field, `expected ${length} bytes, got ${n / 2}`);
  }
  const size = n / 2;
  if (native && size >= NATIVE_FROM) {
    const into = size <= DECODE_SCRATCH.length ? DECODE_SCRATCH : new Uint8Array(size);
    if (native.write.call(into, value.slice(2), 0, size) === size) {
      if (into !== DECODE_SCRATCH) return into;
      const out = new Uint8Array(size);
      out.set(DECODE_SCRATCH.subarray(0, size));
      return out;
    }
  }
  const out = new Uint8Array(size);
  // short input, no native decoder, or a bad digit somewhere (found and named here)
  for (let i = 0; i < out.length; i++) {
    const hi = nibble(value.charCodeAt(2 + 2 * i));
    const lo = nibble(value.charCodeAt(3 + 2 * i));
    if (hi < 0 || lo < 0) throw codecError(CodecErrorCode.InvalidHex, field, "invalid hex digit");
    out[i] = (hi << 4) | lo;
  }
  return out;
}

/** True when the two byte arrays hold the same bytes. */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Lexicographic byte order (the order TIPs require for sorted parents, inputs, token IDs). */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = a[i]! - b[i]!;
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

/** Concatenates byte arrays. */
export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
