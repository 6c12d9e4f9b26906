/**
 * The pace of the spammer's blocks: permits at `rate` per second, never more than the rate in any
 * 1-s window. Two rules together:
 *
 * 1. A schedule: permit k is due at start + k/rate. A permit taken late (a timer fires late, the
 *    submitters were busy) moves the schedule by one interval from where it was, not from now, so
 *    the rate holds; but never more than `maxLagMs` of missed permits are owed: a pause (the CPU
 *    over its limit, the intake busy) is not made up with a burst.
 * 2. A sliding window: a permit is refused while the permit `floor(rate)` places back was taken
 *    less than a second ago, so any second holds at most `floor(rate)` permits (at least one), even
 *    when the schedule catches up after a late timer. inx-spammer paces with a ticker that makes
 *    up for the last interval's error (`pkg/spammer/spammer.go`, `rateLimitWorkerFunc`); this
 *    holds the upper bound exactly instead.
 *
 * Times are milliseconds of one monotonic clock (`performance.now`), handed in by the caller.
 */

/**
 * Missed permits owed at most, in ms of the schedule: 50 ms, or two intervals when longer (at
 * most 100 ms). Enough to make up a late turn of a loaded machine (at 1,000/s with 5 ms a busy
 * second lost a tenth of its permits, bench spammer), small enough that what is made up comes
 * as a short run, never above the window's count.
 */
export const defaultMaxLagMs = (rate: number): number => Math.min(100, Math.max(50, 2000 / rate));

/** The window the rate is held over. */
export const RATE_WINDOW_MS = 1000;

/** The window is held this much longer (1 %: the rate held is 99 % of the one asked for at most). */
export const WINDOW_MARGIN_MS = 10;

export class RatePacer {
  readonly intervalMs: number;
  private next: number;
  /** Times of the last `cap` permits, a ring; `head` is the oldest. */
  private readonly taken: Float64Array;
  private head = 0;

  constructor(
    readonly rate: number,
    now: number,
    private readonly maxLagMs = defaultMaxLagMs(rate),
  ) {
    this.intervalMs = RATE_WINDOW_MS / rate;
    this.next = now;
    this.taken = new Float64Array(Math.max(1, Math.floor(rate))).fill(Number.NEGATIVE_INFINITY);
  }

  /** Milliseconds until a permit may be taken (0: now). */
  waitMs(now: number): number {
    const bySchedule = this.next - now;
    // more than a window and a margin after the permit `cap` places back: a closed 1-s window
    // never holds cap + 1 permits, nor cap + 1 blocks when each reaches the intake a few ms
    // after its permit, some later than others
    const byWindow = this.taken[this.head]! + RATE_WINDOW_MS + WINDOW_MARGIN_MS - now;
    return Math.max(0, bySchedule, byWindow);
  }

  /** Takes a permit if one is due now; false otherwise (ask `waitMs` how long to wait). */
  take(now: number): boolean {
    if (this.waitMs(now) > 0) return false;
    this.next = Math.max(this.next, now - this.maxLagMs) + this.intervalMs;
    this.taken[this.head] = now;
    this.head = (this.head + 1) % this.taken.length;
    return true;
  }

  /**
   * Counts the permits `previous` (the last run's pacer) took within a window and a margin before
   * `now` against this one's window, at most this one's count of them: a restart, at the same
   * rate or another, never puts more than this rate's count into a 1-s window.
   */
  carryOver(previous: RatePacer, now: number): void {
    const from = previous.taken;
    const recent: number[] = [];
    for (let k = 1; k <= from.length && recent.length < this.taken.length; k++) {
      const at = from[(previous.head - k + from.length) % from.length]!;
      if (!(at > now - RATE_WINDOW_MS - WINDOW_MARGIN_MS)) break;
      recent.push(at);
    }
    // oldest first: `head` ends on the oldest of the last `cap` permits, as `take` leaves it
    for (let k = recent.length - 1; k >= 0; k--) {
      this.taken[this.head] = recent[k]!;
      this.head = (this.head + 1) % this.taken.length;
    }
  }

  /** Permits not taken until now are not owed (after a pause). */
  forgive(now: number): void {
    if (this.next < now) this.next = now;
  }
}
