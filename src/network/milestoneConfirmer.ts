import { type Block, type MilestonePayload, PayloadType } from "../codec/types.js";
import type { SemanticValidator } from "../ledger/whiteFlag.js";
import { confirmMilestoneBlock } from "../tangle/confirmMilestone.js";
import type { MilestoneInfo, Tangle } from "../tangle/tangle.js";

/**
 * A follower confirms the milestones it receives itself: once a milestone block is solid (its
 * whole cone is here) and it is the next index, white-flag runs over the cone and must produce
 * the Merkle roots the coordinator signed (confirmMilestoneBlock), so every node reaches the
 * same ledger. Confirmations run one at a time, in index order. A mismatch means this node
 * cannot follow the network (different rules or a forged chain); it stops confirming and says so.
 */
export class MilestoneConfirmer {
  /** Solid milestone blocks not confirmed yet, by index. */
  private readonly solid = new Map<number, { blockId: Uint8Array; milestone: MilestonePayload }>();
  private running = false;
  private stopped = true;
  /** Set when a milestone failed to confirm; the node no longer moves its ledger. */
  failure: Error | undefined;
  private idle: Promise<void> = Promise.resolve();

  constructor(
    private readonly tangle: Tangle,
    private readonly validate: SemanticValidator,
    private readonly onConfirmed: (info: MilestoneInfo) => void,
    private readonly onFailure: (e: Error) => void,
  ) {
    tangle.events.on("blockSolid", (e) => this.blockSolid(e.blockId, e.block));
  }

  start(): void {
    this.stopped = false;
    for (const p of this.tangle.pendingMilestones()) this.solid.set(p.milestone.index, p);
    this.run();
  }

  /** Stops after the confirmation in progress, which it waits for. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.idle;
  }

  /** Whether milestone `index` is here and solid, waiting for its turn. */
  has(index: number): boolean {
    return this.solid.has(index);
  }

  private blockSolid(blockId: Uint8Array, block: Block): void {
    if (block.payload?.type !== PayloadType.Milestone) return;
    const milestone = block.payload;
    if (milestone.index <= this.tangle.latestMilestone.index) return;
    this.solid.set(milestone.index, { blockId, milestone });
    this.run();
  }

  private run(): void {
    if (this.running || this.stopped || this.failure) return;
    const next = this.solid.get(this.tangle.latestMilestone.index + 1);
    if (!next) return;
    this.running = true;
    this.idle = (async () => {
      try {
        for (;;) {
          if (this.stopped) break;
          const index = this.tangle.latestMilestone.index + 1;
          const m = this.solid.get(index);
          if (!m) break;
          const info = await confirmMilestoneBlock(this.tangle, m.blockId, m.milestone, this.validate);
          this.solid.delete(index);
          this.onConfirmed(info);
        }
      } catch (e) {
        this.failure = e as Error;
        this.onFailure(this.failure);
      } finally {
        this.running = false;
        for (const index of this.solid.keys()) if (index <= this.tangle.latestMilestone.index) this.solid.delete(index);
      }
    })();
  }
}
