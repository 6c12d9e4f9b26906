import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * Gives the heap back after a large amount of state was let go at once (thousands of event-API
 * clients leaving with their subscriptions). V8 collects its old generation when allocation
 * pushes it to, and a node that falls quiet after a flood allocates little: measured, 100,000
 * subscriptions' worth of garbage (60 MB) was still on the heap a minute after their clients
 * left, and a full collection took the heap below its level before the flood. So one full
 * collection is run a little after such a release (so that a mass disconnect triggers one),
 * at most once per `minIntervalMs` (it pauses the main thread for tens of milliseconds), and
 * only once `threshold` units were let go since the last (docs/decisions.md, Event API).
 */
export class MemoryRelease {
  private pending = 0;
  private timer: NodeJS.Timeout | undefined;
  private lastAt = 0;
  private readonly collect = fullCollection();
  /** Full collections run (the tests read it). */
  collections = 0;

  constructor(
    private readonly threshold: number,
    private readonly delayMs = 2_000,
    private readonly minIntervalMs = 30_000,
  ) {}

  /** `units` of state were let go. */
  released(units: number): void {
    this.pending += units;
    if (this.pending < this.threshold || this.timer !== undefined || !this.collect) return;
    const wait = Math.max(this.delayMs, this.lastAt + this.minIntervalMs - Date.now());
    this.timer = setTimeout(() => this.run(), wait);
    this.timer.unref();
  }

  /** Cancels a scheduled collection (the owner closes). */
  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private run(): void {
    this.timer = undefined;
    this.pending = 0;
    this.lastAt = Date.now();
    this.collections++;
    this.collect?.();
  }
}

/** V8's full collection (`gc`), exposed at run time; undefined where the flag cannot be set. */
export function fullCollection(): (() => void) | undefined {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (typeof exposed === "function") return exposed;
  try {
    setFlagsFromString("--expose-gc");
    return runInNewContext("gc") as () => void;
  } catch {
    return undefined;
  }
}
