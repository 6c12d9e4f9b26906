import type { WhiteFlagResult } from "../ledger/whiteFlag.js";
import type { MilestoneBlockEntry, MilestoneBlocks, Repositories, WriteBatch } from "../storage/index.js";
import type { LedgerIndex, MilestoneInfo } from "../tangle/events.js";

/**
 * The explorer's index of the blocks each milestone referenced, in white-flag order, with the
 * type of each block's payload: written into the milestone's batch (a `LedgerIndex` attached to
 * the node's events), so a milestone's block listing appears atomically with the milestone.
 */

/** Adds the referenced blocks of one milestone to its batch. */
export function addMilestoneBlockWrites(
  blocks: MilestoneBlocks,
  batch: WriteBatch,
  result: WhiteFlagResult,
  milestone: MilestoneInfo,
): void {
  // white-flag names each block's payload type: the blocks are not read again
  for (const r of result.referenced) {
    blocks.put(batch, milestone.index, r.whiteFlagIndex, { blockId: r.blockId, payloadType: r.payloadType });
  }
}

/**
 * The milestone block index as a ledger index. It has nothing to catch up: the blocks of
 * milestones confirmed before it existed are not rebuildable from the ledger (docs/decisions.md,
 * Explorer).
 */
export function explorerIndex(db: Repositories): LedgerIndex {
  return {
    name: "explorer milestone blocks",
    writeMilestone: (batch, result, milestone) => addMilestoneBlockWrites(db.milestoneBlocks, batch, result, milestone),
    catchUp: async () => {},
  };
}

export type MilestoneBlock = MilestoneBlockEntry;

/**
 * Up to `limit` blocks referenced by milestone `index` in white-flag order (or reversed), from
 * white-flag index `from` (inclusive) on.
 */
export function milestoneBlocks(
  db: Repositories,
  index: number,
  opts: { from?: number; reverse: boolean; limit: number },
): Promise<MilestoneBlock[]> {
  return db.milestoneBlocks.list(index, opts);
}

/** Up to `limit` children of `parentId` in ID order, from `from` (inclusive) on. */
export function blockChildren(
  db: Repositories,
  parentId: Uint8Array,
  opts: { from?: Uint8Array; limit: number },
): Promise<Uint8Array[]> {
  return db.children.of(parentId, opts);
}
