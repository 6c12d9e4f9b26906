import { CURL_INDICES, CURL_P81_ROUNDS, CURL_STATE_LENGTH } from "./curl.js";
import { JsSlicedCurl, type SlicedCurl } from "./slicedCurl.js";
import { encodeWasmModule, WasmCode, WasmType } from "./wasmEmitter.js";

/**
 * Bit-sliced Curl-P-81 over 128 lanes in WebAssembly SIMD (v128), generated at load time.
 * One round is straight-line code over the 729 s-box positions: each step loads the next
 * (lo, hi) pair once, reuses the previous pair, and stores two planes, so a round is 1458
 * loads, 2916 bitwise ops and 1458 stores for 128 hashes.
 */

const TRIT_BYTES = 32; // lo plane (16 bytes) then hi plane
const STATE_BYTES = CURL_STATE_LENGTH * TRIT_BYTES;
const INPUT_AT = 0;
const TMP_AT = STATE_BYTES;
const OUTPUT_AT = 2 * STATE_BYTES;
const PAGES = Math.ceil((3 * STATE_BYTES) / 65536);

/** round(src, dst): one Curl round from the state at `src` to the state at `dst`. */
function roundFunction(): WasmCode {
  const SRC = 0;
  const DST = 1;
  const LO = [2, 3];
  const HI = [4, 5];
  const OUT_LO = 6;
  const c = new WasmCode();
  c.localGet(SRC).v128Load(0).localSet(LO[0]!);
  c.localGet(SRC).v128Load(16).localSet(HI[0]!);
  for (let i = 0; i < CURL_STATE_LENGTH; i++) {
    // the pair read as `a` in this step was loaded as `b` in the previous one
    const a = i & 1;
    const b = a ^ 1;
    const q = CURL_INDICES[i + 1]! * TRIT_BYTES;
    c.localGet(SRC).v128Load(q).localSet(LO[b]!);
    c.localGet(SRC)
      .v128Load(q + 16)
      .localSet(HI[b]!);
    // out.lo = a.hi ^ (a.lo & ~b.lo)
    c.localGet(DST).localGet(HI[a]!).localGet(LO[a]!).localGet(LO[b]!).v128AndNot().v128Xor().localTee(OUT_LO);
    c.v128Store(i * TRIT_BYTES);
    // out.hi = a.lo ^ (b.hi & out.lo)
    c.localGet(DST).localGet(LO[a]!).localGet(HI[b]!).localGet(OUT_LO).v128And().v128Xor();
    c.v128Store(i * TRIT_BYTES + 16);
  }
  return c;
}

/** transform(): 81 rounds from INPUT to OUTPUT, ping-ponging through TMP. */
function transformFunction(roundIndex: number): WasmCode {
  const PAIRS = 0;
  const c = new WasmCode();
  c.i32Const(INPUT_AT).i32Const(OUTPUT_AT).call(roundIndex);
  c.i32Const((CURL_P81_ROUNDS - 1) / 2).localSet(PAIRS);
  c.loop();
  c.i32Const(OUTPUT_AT).i32Const(TMP_AT).call(roundIndex);
  c.i32Const(TMP_AT).i32Const(OUTPUT_AT).call(roundIndex);
  c.localGet(PAIRS).i32Const(1).i32Sub().localTee(PAIRS).brIf(0);
  c.end();
  return c;
}

/** The module bytes; exported so tests can check that they validate. */
export function buildSimdCurlModule(): Uint8Array {
  return encodeWasmModule({
    functions: [
      {
        params: [WasmType.i32, WasmType.i32],
        results: [],
        locals: [WasmType.v128, WasmType.v128, WasmType.v128, WasmType.v128, WasmType.v128],
        body: roundFunction(),
      },
      { params: [], results: [], locals: [WasmType.i32], body: transformFunction(0), exportName: "transform" },
    ],
    memoryPages: PAGES,
    memoryExportName: "memory",
  });
}

/**
 * The slice of the WebAssembly JS API used here. The project compiles against ES2022 and
 * @types/node only, neither of which declares the `WebAssembly` global, so it is typed locally.
 */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
}
interface WasmInstance {
  readonly exports: Record<string, unknown>;
}
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => WasmInstance;
}
const wasmApi = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;

let compiled: object | null | undefined;

/** Compiles the module once per thread; null when this runtime lacks WebAssembly SIMD. */
function simdModule(): object | null {
  if (compiled === undefined) {
    try {
      const bytes = buildSimdCurlModule();
      compiled = wasmApi?.validate(bytes) ? new wasmApi.Module(bytes) : null;
    } catch {
      compiled = null;
    }
  }
  return compiled;
}

/** True when the 128-lane WebAssembly SIMD hasher can run here. */
export function simdAvailable(): boolean {
  return simdModule() !== null;
}

/** The 128-lane hasher; its `input`/`output` are views into the instance's memory. */
export class SimdSlicedCurl implements SlicedCurl {
  readonly lanes = 128;
  readonly words = 4;
  readonly kind = "wasm-simd";
  readonly input: Int32Array;
  readonly output: Int32Array;
  private readonly run: () => void;

  constructor(module: object) {
    const instance = new wasmApi!.Instance(module, {});
    const memory = instance.exports.memory as WasmMemory;
    this.run = instance.exports.transform as () => void;
    this.input = new Int32Array(memory.buffer, INPUT_AT, STATE_BYTES / 4);
    this.output = new Int32Array(memory.buffer, OUTPUT_AT, STATE_BYTES / 4);
  }

  transform(): void {
    this.run();
  }
}

/** Options for `createSlicedCurl`. */
export interface SlicedCurlOptions {
  /** false forces the portable 32-lane JS hasher (tests, or a runtime with broken SIMD). */
  simd?: boolean;
}

/** The fastest bit-sliced hasher available: WebAssembly SIMD, else the JS fallback. */
export function createSlicedCurl(options: SlicedCurlOptions = {}): SlicedCurl {
  const module = options.simd === false ? null : simdModule();
  return module === null ? new JsSlicedCurl() : new SimdSlicedCurl(module);
}
