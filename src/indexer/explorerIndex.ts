import type { WhiteFlagResult } from "../ledger/whiteFlag.js";
import {
  Bucket,
  childKey,
  decodeMilestoneBlock,
  encodeMilestoneBlock,
  idKey,
  type KvStore,
  type MilestoneBlockRecord,
  milestoneBlockKey,
  type WriteBatch,
  whiteFlagIndexOfKey,
} from "../storage/index.js";
import type { LedgerIndex, MilestoneInfo } from "../tangle/events.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { IndexerErrorCode } from "./errors.js";

/**
 * The explorer's index of the blocks each milestone referenced, in white-flag order, with the
 * type of each block's payload: written into the milestone's batch (a `LedgerIndex` attached to
 * the node's events), so a milestone's block listing appears atomically with the milestone.
 */

/** Adds the referenced blocks of one milestone to its batch. */
export function addMilestoneBlockWrites(batch: WriteBatch, result: WhiteFlagResult, milestone: MilestoneInfo): void {
  // white-flag names each block's payload type: the blocks are not read again
  for (const r of result.referenced) {
    batch.put(
      milestoneBlockKey(milestone.index, r.whiteFlagIndex),
      encodeMilestoneBlock({ blockId: r.blockId, payloadType: r.payloadType }),
    );
  }
}

/**
 * The milestone block index as a ledger index. It has nothing to catch up: the blocks of
 * milestones confirmed before it existed are not rebuildable from the ledger (docs/decisions.md,
 * Explorer).
 */
export function explorerIndex(): LedgerIndex {
  return {
    name: "explorer milestone blocks",
    writeMilestone: (batch, result, milestone) => addMilestoneBlockWrites(batch, result, milestone),
    catchUp: async () => {},
  };
}

export interface MilestoneBlock {
  blockId: Uint8Array;
  whiteFlagIndex: number;
  payloadType: number | undefined;
}

/**
 * Up to `limit` blocks referenced by milestone `index` in white-flag order (or reversed), from
 * white-flag index `from` (inclusive) on.
 */
export async function milestoneBlocks(
  store: KvStore,
  index: number,
  opts: { from?: number; reverse: boolean; limit: number },
): Promise<MilestoneBlock[]> {
  const range = opts.reverse
    ? { lte: milestoneBlockKey(index, opts.from ?? 0xffffffff) }
    : { gte: milestoneBlockKey(index, opts.from ?? 0) };
  const out: MilestoneBlock[] = [];
  const prefix = milestoneBlockKey(index, 0).subarray(0, 5);
  for await (const [key, value] of store.scan({ prefix, ...range, reverse: opts.reverse, limit: opts.limit })) {
    const entry = decodeEntry(value);
    out.push({ blockId: entry.blockId, whiteFlagIndex: whiteFlagIndexOfKey(key), payloadType: entry.payloadType });
  }
  return out;
}

/** Up to `limit` children of `parentId` in ID order, from `from` (inclusive) on. */
export async function blockChildren(
  store: KvStore,
  parentId: Uint8Array,
  opts: { from?: Uint8Array; limit: number },
): Promise<Uint8Array[]> {
  const prefix = idKey(Bucket.Child, parentId);
  const out: Uint8Array[] = [];
  const gte = opts.from ? childKey(parentId, opts.from) : prefix;
  for await (const key of store.scanKeys({ prefix, gte, limit: opts.limit })) out.push(key.slice(33));
  return out;
}

function decodeEntry(value: Uint8Array): MilestoneBlockRecord {
  try {
    return decodeMilestoneBlock(value);
  } catch (e) {
    throw new LedgerNodeError(
      IndexerErrorCode.Corrupt,
      `a milestone block entry does not decode: ${(e as Error).message}`,
    );
  }
}
