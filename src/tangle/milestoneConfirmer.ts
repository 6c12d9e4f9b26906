import { type Block, type MilestonePayload, PayloadType } from "../codec/types.js";
import type { SemanticValidator } from "../ledger/whiteFlag.js";
import { confirmMilestoneBlock } from "./confirmMilestone.js";
import type { Tangle } from "./tangle.js";

/**
 * A follower confirms the milestones it receives itself: once a milestone block is solid (its
 * whole cone is here) and it is the next index, white-flag runs over the cone and must produce
 * the Merkle roots the coordinator signed (confirmMilestoneBlock), so every node reaches the
 * same ledger. Confirmations run one at a time, in index order. A mismatch means this node
 * cannot follow the network (different rules or a forged chain); it stops confirming and says so.
 * It listens to `blockSolid` (attached in node/components.ts) and runs while the network does.
 */

export interface MilestoneConfirmerDeps {
  tangle: Tangle;
  /** White-flag's semantic validation (the node's). */
  validate: SemanticValidator;
  /** Told once, when a milestone fails to confirm: the node no longer follows the network. */
  onFailure: (e: Error) => void;
}
export class MilestoneConfirmer {
  /** Solid milestone blocks not confirmed yet, by index. */
  private readonly solid = new Map<number, { blockId: Uint8Array; milestone: MilestonePayload }>();
  private running = false;
  private stopped = true;
  /** Set when a milestone failed to confirm; the node no longer moves its ledger. */
  failure: Error | undefined;
  private idle: Promise<void> = Promise.resolve();

  private readonly tangle: Tangle;

  constructor(private readonly deps: MilestoneConfirmerDeps) {
    this.tangle = deps.tangle;
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

  /** A solid block: a milestone above the ledger waits for its turn. */
  blockSolid(blockId: Uint8Array, block: Block): void {
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
          await confirmMilestoneBlock(this.tangle, m.blockId, m.milestone, this.deps.validate);
          this.solid.delete(index);
        }
      } catch (e) {
        this.failure = e as Error;
        this.deps.onFailure(this.failure);
      } finally {
        this.running = false;
        for (const index of this.solid.keys()) if (index <= this.tangle.latestMilestone.index) this.solid.delete(index);
      }
    })();
  }
}
