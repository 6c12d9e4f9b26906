import { setFlagsFromString } from "node:v8";

/**
 * How far V8 lets its old generation grow past what the last full collection left alive, in
 * percent (V8's `--heap-growing-percent`). Left to itself V8 picks a factor of 1.1 to 4 from
 * how fast it collects and allocates; a node taking blocks allocates about 60 KB per block
 * (docs/performance.md) and keeps 60–80 MB alive, so V8 chose factors near 4 and held
 * 250–400 MB of heap pages, most of it garbage waiting for the next collection. At 50 %, the
 * heap stays within about 1.5 times what is alive, for more frequent full collections
 * (docs/performance.md, "Memory while growing").
 */
export const HEAP_GROWING_PERCENT = 50;

/**
 * Sets the growth factor for the whole process (every isolate, the workers' too), unless the
 * process was started with a `--heap-growing-percent` of the operator's own.
 */
export function limitHeapGrowth(execArgv: readonly string[] = process.execArgv): void {
  if (execArgv.some((a) => /^--heap[-_]growing[-_]percent\b/.test(a))) return;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
