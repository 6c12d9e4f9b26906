/**
 * Node's `Buffer`, when the codec runs in Node.js; undefined in a browser. The dashboard's
 * explorer bundles the codec to check output ID proofs and to hash blocks in the page
 * (docs/decisions.md, Dashboard), so the codec reaches Node's faster paths (the shared
 * allocation pool, the native hex methods) only through this, and falls back to plain typed
 * arrays without it. Typed here by hand with what the codec uses, so the codec type-checks
 * without Node's typings too (web/tsconfig.json).
 */
export interface NodeBufferClass {
  readonly prototype: object;
  allocUnsafe(size: number): Uint8Array;
  allocUnsafeSlow(size: number): Uint8Array;
  from(buffer: ArrayBufferLike, byteOffset: number, length: number): { toString(encoding: "hex"): string };
}

export const NodeBuffer: NodeBufferClass | undefined = (globalThis as { Buffer?: NodeBufferClass }).Buffer;
