/**
 * A minimal WebAssembly binary writer: just the sections and opcodes the bit-sliced Curl
 * module needs. Emitting the bytes from TypeScript keeps the hasher free of a wasm toolchain
 * and of committed binary blobs; the module is small enough to build at load time.
 */

/** Value types of the WebAssembly binary format. */
export const WasmType = { i32: 0x7f, v128: 0x7b } as const;
/** One of `WasmType`'s byte codes. */
export type WasmValType = (typeof WasmType)[keyof typeof WasmType];

/** SIMD sub-opcodes (after the 0xfd prefix) used here. */
const SIMD = { load: 0x00, store: 0x0b, and: 0x4e, andnot: 0x4f, xor: 0x51 } as const;

/** Unsigned LEB128, the encoding of every index, count and memory offset. */
function pushU32(out: number[], value: number): void {
  let v = value >>> 0;
  do {
    let b = v & 0x7f;
    v >>>= 7;
    if (v !== 0) b |= 0x80;
    out.push(b);
  } while (v !== 0);
}

/** Signed LEB128, the encoding of `i32.const` immediates. */
function pushS32(out: number[], value: number): void {
  let v = value | 0;
  for (;;) {
    const b = v & 0x7f;
    v >>= 7;
    if ((v === 0 && (b & 0x40) === 0) || (v === -1 && (b & 0x40) !== 0)) {
      out.push(b);
      return;
    }
    out.push(b | 0x80);
  }
}

/** A function body under construction; each method appends one instruction. */
export class WasmCode {
  readonly bytes: number[] = [];

  localGet(i: number): this {
    this.bytes.push(0x20);
    pushU32(this.bytes, i);
    return this;
  }
  localSet(i: number): this {
    this.bytes.push(0x21);
    pushU32(this.bytes, i);
    return this;
  }
  localTee(i: number): this {
    this.bytes.push(0x22);
    pushU32(this.bytes, i);
    return this;
  }
  i32Const(v: number): this {
    this.bytes.push(0x41);
    pushS32(this.bytes, v);
    return this;
  }
  i32Sub(): this {
    this.bytes.push(0x6b);
    return this;
  }
  call(funcIndex: number): this {
    this.bytes.push(0x10);
    pushU32(this.bytes, funcIndex);
    return this;
  }
  /** `loop` with an empty block type; `brIf(0)` inside it jumps back to the start. */
  loop(): this {
    this.bytes.push(0x03, 0x40);
    return this;
  }
  brIf(depth: number): this {
    this.bytes.push(0x0d);
    pushU32(this.bytes, depth);
    return this;
  }
  end(): this {
    this.bytes.push(0x0b);
    return this;
  }
  /** `v128.load` with 16-byte alignment (every address used is a multiple of 16). */
  v128Load(offset: number): this {
    return this.simdMem(SIMD.load, offset);
  }
  v128Store(offset: number): this {
    return this.simdMem(SIMD.store, offset);
  }
  v128And(): this {
    return this.simd(SIMD.and);
  }
  /** a & ~b, with a pushed first. */
  v128AndNot(): this {
    return this.simd(SIMD.andnot);
  }
  v128Xor(): this {
    return this.simd(SIMD.xor);
  }

  private simd(op: number): this {
    this.bytes.push(0xfd);
    pushU32(this.bytes, op);
    return this;
  }
  private simdMem(op: number, offset: number): this {
    this.simd(op);
    pushU32(this.bytes, 4); // log2 of the alignment
    pushU32(this.bytes, offset);
    return this;
  }
}

/** One function of a module: its signature, extra locals and finished body. */
export interface WasmFunction {
  params: WasmValType[];
  results: WasmValType[];
  locals: WasmValType[];
  body: WasmCode;
  /** Export name, if the function is visible to JavaScript. */
  exportName?: string;
}

/** What `encodeWasmModule` turns into bytes: functions plus one exported memory. */
export interface WasmModuleSpec {
  functions: WasmFunction[];
  memoryPages: number;
  memoryExportName: string;
}

function section(out: number[], id: number, content: number[]): void {
  out.push(id);
  pushU32(out, content.length);
  for (const b of content) out.push(b);
}

function pushName(out: number[], name: string): void {
  const utf8 = new TextEncoder().encode(name);
  pushU32(out, utf8.length);
  for (const b of utf8) out.push(b);
}

/**
 * Encodes a module: one type per function (no deduplication, the modules are tiny), a memory
 * with a fixed size, and the exports. Function indices follow the order of `functions`.
 */
export function encodeWasmModule(spec: WasmModuleSpec): Uint8Array {
  const out: number[] = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
  const n = spec.functions.length;

  // 1. type section: one functype (0x60) per function
  const types: number[] = [];
  pushU32(types, n);
  for (const f of spec.functions) {
    types.push(0x60);
    pushU32(types, f.params.length);
    types.push(...f.params);
    pushU32(types, f.results.length);
    types.push(...f.results);
  }
  section(out, 1, types);

  // 2. function section: function i has type i
  const funcs: number[] = [];
  pushU32(funcs, n);
  for (let i = 0; i < n; i++) pushU32(funcs, i);
  section(out, 3, funcs);

  // 3. memory section: one memory, min = max = memoryPages
  const mem: number[] = [1, 0x01];
  pushU32(mem, spec.memoryPages);
  pushU32(mem, spec.memoryPages);
  section(out, 5, mem);

  // 4. export section
  const exported = spec.functions.flatMap((f, i) => (f.exportName === undefined ? [] : [{ name: f.exportName, i }]));
  const exps: number[] = [];
  pushU32(exps, exported.length + 1);
  for (const e of exported) {
    pushName(exps, e.name);
    exps.push(0x00);
    pushU32(exps, e.i);
  }
  pushName(exps, spec.memoryExportName);
  exps.push(0x02, 0x00);
  section(out, 7, exps);

  // 5. code section: each body is its size, run-length locals, instructions and `end`
  const code: number[] = [];
  pushU32(code, n);
  for (const f of spec.functions) {
    const body: number[] = [];
    const runs: [number, WasmValType][] = [];
    for (const t of f.locals) {
      const last = runs[runs.length - 1];
      if (last !== undefined && last[1] === t) last[0]++;
      else runs.push([1, t]);
    }
    pushU32(body, runs.length);
    for (const [count, t] of runs) {
      pushU32(body, count);
      body.push(t);
    }
    for (const b of f.body.bytes) body.push(b);
    body.push(0x0b);
    pushU32(code, body.length);
    for (const b of body) code.push(b);
  }
  section(out, 10, code);

  return Uint8Array.from(out);
}
