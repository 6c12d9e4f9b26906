import { isNetworkError, NetworkErrorCode } from "./errors.js";
import type { Heartbeat } from "./messages.js";

/**
 * Keeping up with the network. The newest milestone this node knows of is the newest one it has
 * received with valid coordinator signatures (gossip or an answer): when the ledger trails it by
 * more than the tolerance the node is behind (the API then refuses blocks with 503). A peer's
 * heartbeat is only a hint: the index it claims to have confirmed is asked for (its cone), and
 * counts once that milestone has arrived; a peer whose claim does not materialise loses score
 * and its claims from that index up are ignored (docs/decisions.md, Threats). Missing milestones
 * are asked for by index, `window` at a time, each answered with its whole cone, and confirmed
 * in order as their cones become solid (milestoneConfirmer.ts), which moves the ledger and lets
 * the next requests go out.
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
  /** A peer claimed milestone `index` and could not deliver it (the caller scores it down). */
  onClaimRefuted(peer: string, index: number): void;
}

interface PeerState {
  heartbeat: Heartbeat;
  at: number;
  /** Claims from `from` up are not believed until `until` (a request for one failed). */
  doubt: { from: number; until: number } | undefined;
  /** Times requests to this peer timed out since its last delivery (requests failing together count once). */
  timeouts: number;
  lastTimeoutAt: number;
}

/**
 * How long a peer's undelivered claim is doubted. An honest peer may time out once (a slow
 * link, a large cone); it is believed again after this, so a node with one peer is not cut off.
 */
export const CLAIM_DOUBT_MS = 30_000;

/**
 * Timeouts in a row after which a peer's claim is doubted. A peer that answers "not found" or
 * closes the stream without the cone refutes its claim at once; one that is merely slow (a busy
 * honest node) gets a few chances, or a node with one peer would stall on its first timeout.
 */
export const CLAIM_TIMEOUTS = 3;
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
    const known = this.peers.get(peer);
    this.peers.set(peer, {
      heartbeat,
      at: this.now(),
      doubt: known?.doubt,
      timeouts: known?.timeouts ?? 0,
      lastTimeoutAt: known?.lastTimeoutAt ?? Number.NEGATIVE_INFINITY,
    });
    this.noteTarget();
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
      this.noteTarget();
    }
  }

  /** The newest milestone known as a fact: the ledger's, or one received with valid signatures. */
  latestMilestoneIndex(): number {
    return Math.max(this.deps.ledgerIndex(), this.seenMilestoneIndex);
  }

  /** The newest milestone a peer claims to have confirmed and is not doubted on (a hint). */
  private claimOf(p: PeerState): number {
    const claim = p.heartbeat.solidMilestoneIndex;
    return p.doubt && claim >= p.doubt.from && p.doubt.until > this.now() ? 0 : claim;
  }

  /** What to catch up to: the newest milestone known, or a higher one a peer claims. */
  private target(): number {
    let target = this.latestMilestoneIndex();
    for (const p of this.peers.values()) target = Math.max(target, this.claimOf(p));
    return target;
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

  private noteTarget(): void {
    const target = this.target();
    if (target > this.latestSince.index) this.latestSince = { index: target, at: this.now() };
  }

  /**
   * Sends the requests that are due: every index from ledger+1 up to the window that is neither
   * stored nor asked for already, and the newest index a peer claims (asking for it is how the
   * claim is checked). The newest index waits `requestDelayMs` after it was first heard of,
   * since gossip normally delivers it (and its cone) by itself.
   */
  tick(): void {
    if (this.stopped || this.deps.isCoordinator) return;
    const ledger = this.deps.ledgerIndex();
    const target = this.target();
    if (target <= ledger) return;
    const last = Math.min(target, ledger + this.options.syncWindow);
    for (let index = ledger + 1; index <= last; index++) this.request(index, target);
    if (target > last && target > this.seenMilestoneIndex) this.request(target, target);
    for (const index of this.failed.keys()) if (index <= ledger) this.failed.delete(index);
  }

  private request(index: number, target: number): void {
    const now = this.now();
    if (this.inFlight.has(index) || this.deps.hasMilestone(index)) return;
    if (index === target && now - this.latestSince.at < this.options.requestDelayMs) return;
    const failure = this.failed.get(index);
    if (failure && failure.until > now) return;
    const peer = this.pickPeer(index, failure?.peer);
    if (!peer) return;
    this.inFlight.set(index, peer);
    this.deps
      .fetchCone(peer, index)
      .then(
        // stored; if the milestone still is not solid (an earlier cone missing), ask again later
        () => {
          this.failed.set(index, { peer, until: this.now() + 4 * this.options.retryMs });
          const p = this.peers.get(peer);
          if (p) p.timeouts = 0;
        },
        (e) => {
          this.failed.set(index, { peer, until: this.now() + this.options.retryMs });
          this.deps.onError(peer, index, e);
          this.refuteClaim(peer, index, isNetworkError(e, NetworkErrorCode.Timeout));
        },
      )
      .finally(() => {
        this.inFlight.delete(index);
        this.tick();
      });
  }

  /**
   * A request for `index` failed: if only the peer's claim said it exists, its claims from there
   * up are doubted for a while (after CLAIM_TIMEOUTS timeouts, or at once for any other failure),
   * and it is reported once per doubt (a window of failed requests is one refuted claim).
   */
  private refuteClaim(peer: string, index: number, timedOut: boolean): void {
    const p = this.peers.get(peer);
    if (!p || index <= this.latestMilestoneIndex() || this.deps.hasMilestone(index)) return;
    if (timedOut) {
      const at = this.now();
      if (at - p.lastTimeoutAt > this.options.retryMs) p.timeouts++;
      p.lastTimeoutAt = at;
      if (p.timeouts < CLAIM_TIMEOUTS) return;
    }
    const now = this.now();
    const doubting = p.doubt !== undefined && p.doubt.until > now;
    if (doubting && index >= p.doubt!.from) return;
    p.doubt = { from: doubting ? Math.min(index, p.doubt!.from) : index, until: now + CLAIM_DOUBT_MS };
    if (!doubting) this.deps.onClaimRefuted(peer, index);
  }

  /** A peer that has milestone `index` and has not pruned it, in turn; another than `avoid` if possible. */
  private pickPeer(index: number, avoid?: string): string | undefined {
    const candidates = [...this.peers.entries()]
      .filter(([, p]) => this.claimOf(p) >= index && p.heartbeat.prunedMilestoneIndex < index)
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
