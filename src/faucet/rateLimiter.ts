import type { RateLimit } from "./options.js";

/**
 * Token buckets by key (a client's IP address, a requested address), as echo's rate limiter
 * that inx-faucet puts in front of its enqueue route (`components/faucet/routes.go`): a key may
 * take `burst` at once, refilled at `requests` per `periodMs`. The map is bounded: a key whose
 * bucket is full again is forgotten, and beyond `maxKeys` the least recently used key makes
 * room (a flood of fresh keys cannot grow memory; the evicted key only starts afresh).
 */
export class RateLimiter {
  /** Tokens and when they were counted, by key; in order of last use (oldest first). */
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly perMs: number;

  constructor(
    private readonly limit: RateLimit,
    private readonly maxKeys = 100_000,
    private readonly now: () => number = Date.now,
  ) {
    this.perMs = limit.requests / limit.periodMs;
  }

  /** Tokens `key` holds now. */
  private tokensOf(key: string, now: number): number {
    const b = this.buckets.get(key);
    if (!b) return this.limit.burst;
    return Math.min(this.limit.burst, b.tokens + (now - b.at) * this.perMs);
  }

  /** Whether `key` may make a request now (nothing is taken). */
  allows(key: string): boolean {
    return this.tokensOf(key, this.now()) >= 1;
  }

  /** Milliseconds until `key` may make a request (0: now). */
  waitMs(key: string): number {
    const tokens = this.tokensOf(key, this.now());
    return tokens >= 1 ? 0 : Math.ceil((1 - tokens) / this.perMs);
  }

  /** Takes one token of `key` when it has one; false (nothing taken) when it has none. */
  take(key: string): boolean {
    const now = this.now();
    const tokens = this.tokensOf(key, now);
    if (tokens < 1) return false;
    this.buckets.delete(key);
    this.buckets.set(key, { tokens: tokens - 1, at: now });
    this.prune(now);
    return true;
  }

  /** Keys tracked (for tests and bounds). */
  get size(): number {
    return this.buckets.size;
  }

  /** Forgets buckets that are full again (oldest first) and the least recently used beyond the bound. */
  private prune(now: number): void {
    for (const [key, b] of this.buckets) {
      if (this.buckets.size <= this.maxKeys && b.tokens + (now - b.at) * this.perMs < this.limit.burst) break;
      this.buckets.delete(key);
    }
  }
}
