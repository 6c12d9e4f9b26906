import { NodeStateKey, type Repositories, type WriteBatch } from "../storage/index.js";

/**
 * The clock of the milestones a coordinator issues: the wall clock plus an offset that only
 * grows (time travel on a dev network, `POST /api/dev/v1/time`). Milestone timestamps are the
 * clock of timelock and expiration unlock conditions (TIP-18), so moving this clock is how a test
 * reaches an unlock time without waiting. The offset is node state, kept in the database, so a
 * restart keeps it and a saved state (node/devStates.ts) holds the offset it had.
 */

/** How far the clock moves forward at most in one step (`POST /api/dev/v1/time`): 100 years. */
export const MAX_CLOCK_STEP_SECONDS = 100 * 365 * 24 * 3600;

/** The latest a milestone timestamp can be (a u32 of unix seconds, TIP-29). */
export const MAX_TIMESTAMP = 0xffff_ffff;

/**
 * The latest the clock may be moved to: a year before MAX_TIMESTAMP, so milestones can still
 * follow. Moved to the very end, the node issued the last milestone a timestamp can number and
 * then none: blocks were taken in and never confirmed until a revert or a reset.
 */
export const LATEST_CLOCK = MAX_TIMESTAMP - 365 * 24 * 3600;

export class NodeClock {
  private constructor(private offset: number) {}

  static async load(db: Repositories): Promise<NodeClock> {
    return new NodeClock((await db.nodeState.getU32(NodeStateKey.ClockOffset)) ?? 0);
  }

  /** Seconds this clock is ahead of the wall clock. */
  get offsetSeconds(): number {
    return this.offset;
  }

  /** Unix seconds now on this clock. */
  nowSeconds(now = Date.now()): number {
    return Math.floor(now / 1000) + this.offset;
  }

  /** Moves the clock ahead to `offset` seconds past the wall clock, written in `batch`; the caller writes it. */
  setOffset(db: Repositories, batch: WriteBatch, offset: number): void {
    db.nodeState.putU32(batch, NodeStateKey.ClockOffset, offset);
    this.offset = offset;
  }
}
