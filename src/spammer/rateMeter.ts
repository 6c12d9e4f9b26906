/**
 * Blocks issued per wall-clock second, for the last `SECONDS_KEPT` seconds: the status route's
 * rate and the dashboard's chart. A bounded ring of counters, whatever the rate.
 */

/** Seconds of counts kept. */
export const SECONDS_KEPT = 60;

export class RateMeter {
  private readonly counts = new Uint32Array(SECONDS_KEPT);
  /** The second (ms since the epoch / 1000, floored) the newest counter is of. */
  private second = -1;

  constructor(private readonly now: () => number = Date.now) {}

  /** Counts one block now. */
  count(): void {
    this.advance();
    this.counts[this.second % SECONDS_KEPT]!++;
  }

  /** Forgets every count (a new start). */
  reset(): void {
    this.counts.fill(0);
    this.second = -1;
  }

  /** The counts of the last `n` complete seconds, oldest first (the current second is not complete). */
  lastSeconds(n: number): number[] {
    this.advance();
    const k = Math.min(n, SECONDS_KEPT - 1);
    return Array.from({ length: k }, (_, i) => this.counts[(this.second - k + i + SECONDS_KEPT) % SECONDS_KEPT]!);
  }

  /** Blocks per second over the last `n` complete seconds. */
  perSecond(n: number): number {
    const counts = this.lastSeconds(n);
    return counts.length === 0 ? 0 : counts.reduce((a, b) => a + b, 0) / counts.length;
  }

  /** Moves to the current second, zeroing the seconds passed since the last count. */
  private advance(): void {
    const s = Math.floor(this.now() / 1000);
    if (this.second < 0) {
      this.second = s;
      return;
    }
    for (let t = this.second + 1; t <= s && t <= this.second + SECONDS_KEPT; t++) this.counts[t % SECONDS_KEPT] = 0;
    if (s > this.second) this.second = s;
  }
}
