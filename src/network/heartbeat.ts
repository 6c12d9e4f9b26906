import type { Tangle } from "../tangle/tangle.js";
import type { Heartbeat } from "./messages.js";
import { type OpenStream, sendHeartbeat } from "./protocol.js";
import type { SyncManager } from "./syncManager.js";

/**
 * Telling peers where this node stands: a heartbeat (ledger index, pruning index, newest known
 * milestone, peer counts) to every connected peer each interval and to a peer as soon as it
 * connects. Peers learn from heartbeats how far behind they are and whom to ask for what.
 */
export class HeartbeatSender {
  private timer: NodeJS.Timeout | undefined;
  private prunedIndex = 0;

  constructor(
    private readonly tangle: Tangle,
    private readonly sync: SyncManager,
    private readonly deps: {
      openStream: OpenStream;
      /** Connected peers now. */
      peers(): string[];
      timeoutMs: number;
      onSent(peer: string): void;
      onFailed(peer: string, e: unknown): void;
    },
  ) {}

  async start(intervalMs: number): Promise<void> {
    this.prunedIndex = await this.tangle.db.nodeState.pruningIndex();
    this.timer = setInterval(() => void this.round(), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** What this node announces now. */
  current(): Heartbeat {
    return {
      solidMilestoneIndex: this.tangle.latestMilestone.index,
      prunedMilestoneIndex: this.prunedIndex,
      latestMilestoneIndex: this.sync.latestMilestoneIndex(),
      connectedPeers: this.deps.peers().length,
      syncedPeers: this.sync.syncedPeers(),
    };
  }

  /** Sends the current heartbeat to one peer (e.g. one that just connected); never rejects. */
  async sendTo(peer: string, heartbeat = this.current()): Promise<void> {
    try {
      await sendHeartbeat(this.deps.openStream, peer, heartbeat, this.deps.timeoutMs);
      this.deps.onSent(peer);
    } catch (e) {
      this.deps.onFailed(peer, e);
    }
  }

  private async round(): Promise<void> {
    this.prunedIndex = await this.tangle.db.nodeState.pruningIndex().catch(() => this.prunedIndex);
    const heartbeat = this.current();
    await Promise.all(this.deps.peers().map((p) => this.sendTo(p, heartbeat)));
  }
}
