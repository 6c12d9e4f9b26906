import type { FastifyInstance } from "fastify";
import type { Tangle } from "../../tangle/tangle.js";

/**
 * The `metrics` of `GET /api/core/v2/info`, computed as Hornet does at each confirmed milestone:
 * blocks that became solid since the previous milestone and blocks the milestone referenced,
 * each divided by the time between the two milestones' timestamps; the referenced rate is the
 * ratio of the two in percent. Zero until two milestones were seen by this server.
 */
export interface NodeMetrics {
  blocksPerSecond: number;
  referencedBlocksPerSecond: number;
  referencedRate: number;
}

export class MetricsTracker {
  private newBlocks = 0;
  private lastTimestamp: number | undefined;
  private closed = false;
  private current: NodeMetrics = { blocksPerSecond: 0, referencedBlocksPerSecond: 0, referencedRate: 0 };

  /** Listens to the tangle until the server closes. */
  constructor(app: FastifyInstance, tangle: Tangle) {
    this.lastTimestamp = tangle.latestMilestone.index > 0 ? tangle.latestMilestone.timestamp : undefined;
    tangle.onSolid(() => {
      if (!this.closed) this.newBlocks++;
    });
    // Adds no writes to the milestone's batch: it only reads how many blocks the milestone referenced.
    const writer: Tangle["confirmationWriters"][number] = (_batch, result, milestone) => {
      this.onMilestone(result.referenced.length, milestone.timestamp);
    };
    tangle.confirmationWriters.push(writer);
    app.addHook("onClose", async () => {
      this.closed = true;
      const i = tangle.confirmationWriters.indexOf(writer);
      if (i >= 0) tangle.confirmationWriters.splice(i, 1);
    });
  }

  get metrics(): NodeMetrics {
    return this.current;
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
