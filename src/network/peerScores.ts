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

export class PeerScores {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly options: PeerScoreOptions,
    private readonly now: () => number = Date.now,
  ) {}

  private entry(peer: string): Entry {
    let e = this.entries.get(peer);
    const t = this.now();
    if (!e) {
      e = { score: 0, at: t, invalid: 0, bannedUntil: 0 };
      this.entries.set(peer, e);
    } else if (e.score !== 0) {
      e.score *= 0.5 ** ((t - e.at) / this.options.halfLifeMs);
      if (Math.abs(e.score) < 0.01) e.score = 0;
    }
    e.at = t;
    return e;
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
