import type { Heartbeat } from "./messages.js";

/**
 * Keeping up with the network. Peers' heartbeats and the milestones that arrive tell this node
 * the newest milestone index in the network; when the ledger trails it by more than the
 * tolerance the node is behind (the API then refuses blocks with 503) and asks peers for the
 * missing milestones by index, `window` at a time, each answered with its whole cone. The
 * milestones are confirmed in order as their cones become solid (milestoneConfirmer.ts), which
 * moves the ledger and lets the next requests go out.
 */

export interface SyncManagerOptions {
  syncTolerance: number;
  syncWindow: number;
  /** A milestone announced but not yet seen is requested after this delay (gossip may bring it). */
  requestDelayMs: number;
  /** Wait after a failed request before asking for the same index again. */
  retryMs: number;
}

export interface SyncManagerDeps {
  /** The ledger index (last confirmed milestone). */
  ledgerIndex(): number;
  /** The node issues milestones itself: it is the network's reference and always synced. */
  isCoordinator: boolean;
  /** Whether milestone `index` is stored here (solid or waiting for its cone). */
  hasMilestone(index: number): boolean;
  /** Fetches the cone of milestone `index` from `peer`, validates and stores it. */
  fetchCone(peer: string, index: number): Promise<void>;
  onError(peer: string, index: number, e: unknown): void;
}

interface PeerState {
  heartbeat: Heartbeat;
  at: number;
}

export class SyncManager {
  private readonly peers = new Map<string, PeerState>();
  private seenMilestoneIndex = 0;
  /** When the current latest index was first heard of. */
  private latestSince = { index: 0, at: 0 };
  private readonly inFlight = new Map<number, string>();
  private readonly failed = new Map<number, { peer: string; until: number }>();
  private rotation = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;

  constructor(
    private readonly options: SyncManagerOptions,
    private readonly deps: SyncManagerDeps,
    private readonly now: () => number = Date.now,
  ) {}

  start(intervalMs = 100): void {
    this.stopped = false;
    this.timer = setInterval(() => this.tick(), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
  }

  onHeartbeat(peer: string, heartbeat: Heartbeat): void {
    this.peers.set(peer, { heartbeat, at: this.now() });
    this.noteLatest();
    this.tick();
  }

  forgetPeer(peer: string): void {
    this.peers.delete(peer);
  }

  heartbeatOf(peer: string): Heartbeat | undefined {
    return this.peers.get(peer)?.heartbeat;
  }

  /** A milestone with a valid signature arrived (gossip or an answer). */
  milestoneSeen(index: number): void {
    if (index > this.seenMilestoneIndex) {
      this.seenMilestoneIndex = index;
      this.noteLatest();
    }
  }

  /** The newest milestone index known: the ledger, milestones seen, and peers' heartbeats. */
  latestMilestoneIndex(): number {
    let latest = Math.max(this.deps.ledgerIndex(), this.seenMilestoneIndex);
    for (const p of this.peers.values()) latest = Math.max(latest, p.heartbeat.latestMilestoneIndex);
    return latest;
  }

  isSynced(): boolean {
    if (this.deps.isCoordinator) return true;
    return this.latestMilestoneIndex() - this.deps.ledgerIndex() <= this.options.syncTolerance;
  }

  /** Peers whose own ledger is within the tolerance of the newest index they report. */
  syncedPeers(): number {
    let n = 0;
    for (const p of this.peers.values()) {
      const h = p.heartbeat;
      if (h.latestMilestoneIndex - h.solidMilestoneIndex <= this.options.syncTolerance) n++;
    }
    return n;
  }

  private noteLatest(): void {
    const latest = this.latestMilestoneIndex();
    if (latest > this.latestSince.index) this.latestSince = { index: latest, at: this.now() };
  }

  /**
   * Sends the requests that are due: every index from ledger+1 up to the window that is neither
   * stored nor asked for already. The newest index waits `requestDelayMs` after it was first
   * heard of, since gossip normally delivers it (and its cone) by itself.
   */
  tick(): void {
    if (this.stopped || this.deps.isCoordinator) return;
    const ledger = this.deps.ledgerIndex();
    const latest = this.latestMilestoneIndex();
    if (latest <= ledger) return;
    const now = this.now();
    const last = Math.min(latest, ledger + this.options.syncWindow);
    for (let index = ledger + 1; index <= last; index++) {
      if (this.inFlight.has(index) || this.deps.hasMilestone(index)) continue;
      if (index === latest && now - this.latestSince.at < this.options.requestDelayMs) continue;
      const failure = this.failed.get(index);
      if (failure && failure.until > now) continue;
      const peer = this.pickPeer(index, failure?.peer);
      if (!peer) continue;
      this.inFlight.set(index, peer);
      this.deps
        .fetchCone(peer, index)
        .then(
          // stored; if the milestone still is not solid (an earlier cone missing), ask again later
          () => this.failed.set(index, { peer, until: this.now() + 4 * this.options.retryMs }),
          (e) => {
            this.failed.set(index, { peer, until: this.now() + this.options.retryMs });
            this.deps.onError(peer, index, e);
          },
        )
        .finally(() => {
          this.inFlight.delete(index);
          this.tick();
        });
    }
    for (const index of this.failed.keys()) if (index <= ledger) this.failed.delete(index);
  }

  /** A peer that has milestone `index` and has not pruned it, in turn; another than `avoid` if possible. */
  private pickPeer(index: number, avoid?: string): string | undefined {
    const candidates = [...this.peers.entries()]
      .filter(([, p]) => p.heartbeat.solidMilestoneIndex >= index && p.heartbeat.prunedMilestoneIndex < index)
      .map(([id]) => id);
    if (candidates.length === 0) return undefined;
    const others = candidates.filter((c) => c !== avoid);
    const pool = others.length > 0 ? others : candidates;
    return pool[this.rotation++ % pool.length];
  }

  /** Indexes being fetched right now (for status and tests). */
  requestsInFlight(): number {
    return this.inFlight.size;
  }
}
