/**
 * A log for what outsiders can trigger as often as they like (a client's oversized packet, a
 * protocol error, a dropped connection): one line per kind per interval, so a flood of
 * offenders costs the node a few lines, not a line each. The first occurrence of a kind is
 * logged at once; the rest of its interval is counted, and when the interval ends one line
 * says how many more there were ("… (N more in the last 10 s)"). A quiet interval closes the
 * kind, so its next occurrence is again logged at once. Only what the caller passes is logged:
 * callers pass an error's message, never the error (no stack traces for a client's mistakes).
 */

/** The levels a rate-limited line may take (a client's misbehaviour is never an error of the node). */
export type RateLimitedLevel = "info" | "warn";

/** The logger underneath (pino's signature). */
export interface LineLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

interface Window {
  level: RateLimitedLevel;
  msg: string;
  obj: object;
  /** Occurrences in this interval not logged yet. */
  more: number;
  timer: NodeJS.Timeout;
}

export class RateLimitedLog {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly log: LineLog,
    readonly intervalMs = 10_000,
  ) {}

  /** Logs `msg` under `kind` unless a line of that kind went out in the current interval. */
  write(level: RateLimitedLevel, kind: string, obj: object, msg: string): void {
    const open = this.windows.get(kind);
    if (open) {
      open.more++;
      open.level = level;
      open.msg = msg;
      open.obj = obj;
      return;
    }
    this.log[level](obj, msg);
    const timer = setTimeout(() => this.endInterval(kind), this.intervalMs);
    timer.unref();
    this.windows.set(kind, { level, msg, obj, more: 0, timer });
  }

  info(kind: string, obj: object, msg: string): void {
    this.write("info", kind, obj, msg);
  }

  warn(kind: string, obj: object, msg: string): void {
    this.write("warn", kind, obj, msg);
  }

  /** Logs what is counted and forgets every kind (at shutdown). */
  close(): void {
    for (const [kind, w] of this.windows) {
      clearTimeout(w.timer);
      if (w.more > 0) this.summary(w);
      this.windows.delete(kind);
    }
  }

  private endInterval(kind: string): void {
    const w = this.windows.get(kind);
    if (!w) return;
    if (w.more === 0) {
      this.windows.delete(kind);
      return;
    }
    this.summary(w);
    // the kind stays open for one more interval: a steady flood is one line per interval
    w.more = 0;
    w.timer.refresh();
  }

  private summary(w: Window): void {
    const ms = this.intervalMs;
    const span = ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`;
    this.log[w.level]({ ...w.obj, more: w.more }, `${w.msg} (${w.more} more in the last ${span})`);
  }
}
