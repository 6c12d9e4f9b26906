import { getHeapStatistics, setFlagsFromString } from "node:v8";

/**
 * How far V8 lets its old generation grow past what the last full collection left alive, in
 * percent (V8's `--heap-growing-percent`), once the heap is large. Left to itself V8 picks a
 * factor of 1.1 to 4 from how fast it collects and allocates; a node taking blocks allocates
 * about 60 KB per block (docs/performance.md) and keeps 60–80 MB alive, so at 1,000,000 blocks
 * V8 chose factors near 4 and held 250–400 MB of heap pages, most of it garbage waiting for the
 * next collection. At 50 %, the heap stays within about 1.5 times what is alive, for more
 * frequent full collections (docs/performance.md, "Memory while growing").
 */
export const HEAP_GROWING_PERCENT = 50;

/**
 * The heap V8 holds (its committed pages) above which the growth is limited. Below it V8 chooses:
 * a small heap costs little memory, and limiting it costs throughput, as a relay's gossip makes
 * much short-lived garbage (bench network's relays, 60–100 MB of heap each, propagated about
 * 15 % fewer blocks a second with the limit always on).
 */
export const LIMIT_ABOVE_BYTES = 192 * 1024 * 1024;

export interface HeapGrowthOptions {
  /** The committed heap above which the growth is limited (bytes). */
  limitAbove: number;
  /** How often the heap is looked at (ms). */
  checkMs: number;
}

const defaults: HeapGrowthOptions = { limitAbove: LIMIT_ABOVE_BYTES, checkMs: 1_000 };

let watching = false;

/**
 * Limits the growth factor for the whole process (every isolate, the workers' too) while the
 * main isolate's heap is above `limitAbove`, and lets V8 choose again once it is back under half
 * of that (a heap held at 1.5 times what is alive does not fall back at once), unless the process
 * was started with a `--heap-growing-percent` of the operator's own. V8 reads the flag each time it
 * sets the next collection's limit, so a change holds from the next full collection. Looked at
 * every `checkMs` by one timer per process that does not keep it alive.
 */
export function limitHeapGrowth(
  execArgv: readonly string[] = process.execArgv,
  options: HeapGrowthOptions = defaults,
): void {
  if (execArgv.some((a) => /^--heap[-_]growing[-_]percent\b/.test(a))) return;
  if (watching) return;
  watching = true;
  let limited = false;
  const check = () => {
    const held = getHeapStatistics().total_heap_size;
    if (!limited && held > options.limitAbove) {
      setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
      limited = true;
    } else if (limited && held < options.limitAbove / 2) {
      // 0: V8's own factor
      setFlagsFromString("--heap-growing-percent=0");
      limited = false;
    }
  };
  check();
  setInterval(check, options.checkMs).unref();
}
