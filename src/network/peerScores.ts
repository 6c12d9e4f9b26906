/**
 * This node's opinion of each peer. A peer starts at 0 and loses `penalty` for every invalid
 * block or malformed message it sends; the loss recovers by half every `halfLifeMs`, so an
 * honest peer that once relayed something odd is not punished for long, while a peer that keeps
 * sending garbage reaches `banThreshold`, is disconnected and refused for `banMs`. (Gossipsub
 * scores peers too, for mesh upkeep; this score is about the ledger's rules.)
 */

export interface PeerScoreOptions {
  penalty: number;
  halfLifeMs: number;
  banThreshold: number;
  banMs: number;
}

interface Entry {
  score: number;
  at: number;
  invalid: number;
  bannedUntil: number;
}

/**
 * Peers remembered at most. Peer IDs cost an attacker nothing to make, so the map is bounded:
 * beyond it the peer scored longest ago that is not banned is forgotten (at worst a peer with a
 * bad score starts again from 0, still banned once it misbehaves as often again).
 */
export const MAX_SCORED_PEERS = 4096;

export class PeerScores {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly options: PeerScoreOptions,
    private readonly now: () => number = Date.now,
    private readonly maxEntries = MAX_SCORED_PEERS,
  ) {}

  private entry(peer: string): Entry {
    let e = this.entries.get(peer);
    const t = this.now();
    if (!e) {
      e = { score: 0, at: t, invalid: 0, bannedUntil: 0 };
      this.entries.set(peer, e);
      if (this.entries.size > this.maxEntries) this.evictOne(t);
    } else if (e.score !== 0) {
      e.score *= 0.5 ** ((t - e.at) / this.options.halfLifeMs);
      if (Math.abs(e.score) < 0.01) e.score = 0;
    }
    e.at = t;
    return e;
  }

  private evictOne(now: number): void {
    let oldest: string | undefined;
    let oldestAt = Number.POSITIVE_INFINITY;
    for (const [peer, e] of this.entries) {
      if (e.bannedUntil > now) continue;
      if (e.at < oldestAt) {
        oldest = peer;
        oldestAt = e.at;
      }
    }
    // every entry banned: the one whose ban ends first goes
    if (oldest === undefined) {
      for (const [peer, e] of this.entries)
        if (oldest === undefined || e.bannedUntil < this.entries.get(oldest)!.bannedUntil) oldest = peer;
    }
    if (oldest !== undefined) this.entries.delete(oldest);
  }

  /** A disconnected peer with nothing held against it need not be remembered. */
  forgetIfClean(peer: string): void {
    const e = this.entries.get(peer);
    if (e && e.bannedUntil <= this.now() && this.entry(peer).score === 0) this.entries.delete(peer);
  }

  /** Peers remembered now (bounded by MAX_SCORED_PEERS). */
  get size(): number {
    return this.entries.size;
  }

  /** The peer's current score (0 for a peer never scored). */
  score(peer: string): number {
    return this.entries.has(peer) ? this.entry(peer).score : 0;
  }

  /** Invalid messages counted from this peer since start. */
  invalidCount(peer: string): number {
    return this.entries.get(peer)?.invalid ?? 0;
  }

  /** Lowers the peer's score; returns true when that bans it (the caller disconnects it). */
  penalize(peer: string, weight = 1): boolean {
    const e = this.entry(peer);
    e.invalid++;
    e.score -= this.options.penalty * weight;
    if (e.score <= this.options.banThreshold && e.bannedUntil <= this.now()) {
      e.bannedUntil = this.now() + this.options.banMs;
      return true;
    }
    return false;
  }

  isBanned(peer: string): boolean {
    const e = this.entries.get(peer);
    return e !== undefined && e.bannedUntil > this.now();
  }

  /** Peers banned right now. */
  bannedPeers(): string[] {
    const now = this.now();
    return [...this.entries.entries()].filter(([, e]) => e.bannedUntil > now).map(([peer]) => peer);
  }

  /** When the ban of a peer ends (0 when it is not banned). */
  bannedUntil(peer: string): number {
    const e = this.entries.get(peer);
    return e && e.bannedUntil > this.now() ? e.bannedUntil : 0;
  }
}
