import type { NodeEventMap } from "./events.js";

/**
 * The `metrics` of `GET /api/core/v2/info`, computed as Hornet does at each confirmed milestone:
 * blocks that became solid since the previous milestone and blocks the milestone referenced,
 * each divided by the time between the two milestones' timestamps; the referenced rate is the
 * ratio of the two in percent. Zero until two milestones were confirmed while the node ran.
 */
export interface NodeMetrics {
  blocksPerSecond: number;
  referencedBlocksPerSecond: number;
  referencedRate: number;
}

export interface MetricsSnapshot {
  newBlocks: number;
  lastTimestamp: number | undefined;
  current: NodeMetrics;
}

/** A listener of the node's events (attached in node/components.ts) that keeps `NodeMetrics` current. */
export class MetricsTracker {
  private newBlocks = 0;
  private lastTimestamp: number | undefined;
  private current: NodeMetrics = { blocksPerSecond: 0, referencedBlocksPerSecond: 0, referencedRate: 0 };
  /** When (local clock, ms) the ledger last advanced; the node's start before its first milestone here. */
  lastConfirmedAt = Date.now();

  /** `lastTimestamp`: the latest milestone's timestamp when there is one (the first interval's start). */
  constructor(options: { lastTimestamp: number | undefined }) {
    this.lastTimestamp = options.lastTimestamp;
  }

  /** `blockSolid`: one more block in this interval. */
  blockSolid(): void {
    this.newBlocks++;
  }

  /** `milestoneConfirmed`: the interval ends at the milestone's timestamp. */
  milestoneConfirmed(e: NodeEventMap["milestoneConfirmed"]): void {
    this.lastConfirmedAt = Date.now();
    this.onMilestone(e.result.referenced.length, e.milestone.timestamp);
  }

  get metrics(): NodeMetrics {
    return this.current;
  }

  /** What the tracker holds, to be given back by `restore` (a dev save and revert, node/devStates.ts). */
  snapshot(): MetricsSnapshot {
    return { newBlocks: this.newBlocks, lastTimestamp: this.lastTimestamp, current: this.current };
  }

  restore(s: MetricsSnapshot): void {
    this.newBlocks = s.newBlocks;
    this.lastTimestamp = s.lastTimestamp;
    this.current = s.current;
  }

  private onMilestone(referenced: number, timestamp: number): void {
    const previous = this.lastTimestamp;
    this.lastTimestamp = timestamp;
    const newBlocks = this.newBlocks;
    this.newBlocks = 0;
    if (previous === undefined || timestamp <= previous) return;
    const seconds = timestamp - previous;
    this.current = {
      blocksPerSecond: newBlocks / seconds,
      referencedBlocksPerSecond: referenced / seconds,
      referencedRate: newBlocks === 0 ? 0 : (referenced / newBlocks) * 100,
    };
  }
}
