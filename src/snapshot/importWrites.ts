import { bytesEqual, toHex } from "../codec/hex.js";
import { MilestoneOptionType, type MilestonePayload } from "../codec/types.js";
import {
  decodeOutputRecord,
  encodeBlockMetadata,
  encodeLedgerDiff,
  encodeMilestoneRecord,
  encodeU32,
  InclusionState,
  type KvStore,
  type Repositories,
  spentOutputRecord,
  type WriteBatch,
} from "../storage/index.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { SnapshotErrorCode } from "./errors.js";
import { type MilestoneDiff, outputRecordOf } from "./format.js";
import type { VerifiedMilestone } from "./verifySnapshot.js";

/**
 * The writes of a snapshot import beyond the outputs themselves: milestone diffs applied
 * forward (a delta) or checked for a rollback (a full snapshot whose ledger is newer than its
 * target), the target's own diff, the milestones with their blocks, and the batches they go in.
 */

/** The milestone options announcing protocol parameters, by target index. */
export function parameterOptions(milestone: MilestonePayload, into: Map<number, Uint8Array>): void {
  for (const o of milestone.options) {
    if (o.type === MilestoneOptionType.ProtocolParams) into.set(o.targetMilestoneIndex, o.params);
  }
}

/**
 * The batch being filled, and the one being written: `flush` waits for the write before and
 * starts writing the filled batch, so reading the file overlaps LevelDB's work; batches land in
 * order, one at a time. `drain` waits for the last write. They are bulk batches, whose memory
 * is freed once written (`KvStore.bulkBatch`): an import writes thousands of them.
 */
export class BatchWriter {
  private batch: WriteBatch;
  private writing: Promise<void> = Promise.resolve();
  constructor(
    private readonly store: KvStore,
    /** Writes per batch at most; by default a batch is full by its bytes (`WriteBatch.full`). */
    private readonly maxWrites = Number.POSITIVE_INFINITY,
  ) {
    this.batch = store.bulkBatch(maxWrites);
  }

  get current(): WriteBatch {
    return this.batch;
  }

  async flush(sync = false): Promise<void> {
    await this.writing;
    const b = this.batch;
    this.batch = this.store.bulkBatch(this.maxWrites);
    this.writing = b.write({ sync });
    // a failed write is reported by the next flush or drain
    this.writing.catch(() => {});
  }

  async drain(): Promise<void> {
    await this.writing;
  }
}

/** A milestone the imported history holds, with its block rebuilt when the file had its payload. */
export interface ChainMilestone {
  index: number;
  milestoneId: Uint8Array;
  timestamp: number;
  rebuilt: VerifiedMilestone | undefined;
}

/**
 * Records of the imported milestones and the blocks that carried them. A milestone block is
 * referenced by the next milestone, so each block but the last is stored as referenced by its
 * successor, provided the successor names it among its parents (else the rebuilt block is not
 * the real one and is not stored). The last one is stored as a block no milestone references
 * yet, as it was on the node that wrote the file: the next milestone (this node's coordinator's
 * or the network's) takes it into its cone, so both count it alike; its parents are entry
 * points. Without a payload the record names the first entry point as the milestone's block.
 */
export function writeMilestones(
  db: Repositories,
  batch: WriteBatch,
  chain: ChainMilestone[],
  successorParents: Uint8Array[] | undefined,
  fallbackBlockId: Uint8Array,
): void {
  chain.forEach((m, i) => {
    const nextParents = i + 1 < chain.length ? chain[i + 1]!.rebuilt?.parents : successorParents;
    const block = m.rebuilt;
    const named = block && nextParents?.some((p) => bytesEqual(p, block.blockId));
    const last = i === chain.length - 1;
    const store = block && (named || (last && nextParents === undefined));
    db.milestones.put(
      batch,
      m.index,
      encodeMilestoneRecord({
        milestoneId: m.milestoneId,
        blockId: store || (block && !last) ? block!.blockId : fallbackBlockId,
        timestamp: m.timestamp,
      }),
    );
    db.milestoneIndexes.put(batch, m.milestoneId, encodeU32(m.index));
    if (!store || !block) return;
    const referencedBy = last ? 0 : m.index + 1;
    db.blocks.put(batch, block.blockId, block.blockBytes);
    db.blockMetadata.put(
      batch,
      block.blockId,
      encodeBlockMetadata({
        solid: referencedBy > 0,
        milestone: true,
        referencedByMilestoneIndex: referencedBy,
        whiteFlagIndex: 0,
        inclusionState: InclusionState.NoTransaction,
        conflictReason: 0,
        arrivalTime: m.timestamp,
      }),
    );
    db.children.put(batch, block.parents, block.blockId);
    if (referencedBy === 0) db.unreferenced.add(batch, block.blockId);
  });
}

/** The target milestone's own diff: its ledger diff record and the outputs it spent. */
export function writeSpentHistory(db: Repositories, batch: WriteBatch, d: MilestoneDiff): void {
  const { index, timestamp } = d.milestone;
  db.ledgerDiffs.put(
    batch,
    index,
    encodeLedgerDiff({ created: d.created.map((o) => o.outputId), consumed: d.consumed.map((s) => s.output.outputId) }),
  );
  for (const s of d.consumed) {
    const spent = { transactionId: s.transactionId, spentIndex: index, spentTimestamp: timestamp };
    db.outputs.put(batch, s.output.outputId, spentOutputRecord(outputRecordOf(s.output), spent));
  }
}

/**
 * A milestone rolled back: what it created must be in the ledger (unless it also consumed it),
 * what it consumed must not be.
 */
export async function checkRollback(db: Repositories, d: MilestoneDiff): Promise<void> {
  const index = d.milestone.index;
  const consumedIn = new Set(d.consumed.map((s) => toHex(s.output.outputId)));
  const created = d.created.filter((o) => !consumedIn.has(toHex(o.outputId)));
  const present = await db.unspent.hasMany(created.map((o) => o.outputId));
  present.forEach((p, i) => {
    if (!p) {
      throw new LedgerNodeError(
        SnapshotErrorCode.Corrupted,
        `milestone ${index} created ${toHex(created[i]!.outputId)}, which the snapshot's ledger does not hold`,
      );
    }
  });
  const consumed = d.consumed.map((s) => s.output.outputId);
  const unspent = await db.unspent.hasMany(consumed);
  unspent.forEach((u, i) => {
    if (u) {
      throw new LedgerNodeError(
        SnapshotErrorCode.Corrupted,
        `milestone ${index} consumed ${toHex(consumed[i]!)}, which the snapshot's ledger holds unspent`,
      );
    }
  });
}

/**
 * A delta milestone applied forward: what it consumed must be unspent, what it created new.
 * Reads see the batches written so far (each diff is flushed before the next is read).
 */
export async function applyDiff(db: Repositories, batch: WriteBatch, d: MilestoneDiff): Promise<void> {
  const { index, timestamp } = d.milestone;
  const consumedIds = d.consumed.map((s) => s.output.outputId);
  const createdIds = d.created.map((o) => o.outputId);
  // an output's record says whether it is spent; a spent one is rewritten from it
  const records = await db.outputs.getManyBytes(consumedIds);
  const createdIn = new Set(createdIds.map(toHex));
  records.forEach((r, i) => {
    const unspent = r !== undefined && decodeOutputRecord(r).spent === undefined;
    if (!unspent && !createdIn.has(toHex(consumedIds[i]!))) {
      throw new LedgerNodeError(
        SnapshotErrorCode.NotMergeable,
        `milestone ${index} of the delta consumes ${toHex(consumedIds[i]!)}, which is not unspent`,
      );
    }
  });
  const existing = await db.outputs.hasMany(createdIds);
  existing.forEach((e, i) => {
    if (e) {
      throw new LedgerNodeError(
        SnapshotErrorCode.NotMergeable,
        `milestone ${index} of the delta creates ${toHex(createdIds[i]!)}, which already exists`,
      );
    }
  });
  for (const o of d.created) {
    db.outputs.put(batch, o.outputId, outputRecordOf(o));
    db.unspent.add(batch, o.outputId);
  }
  d.consumed.forEach((s, i) => {
    const spent = { transactionId: s.transactionId, spentIndex: index, spentTimestamp: timestamp };
    // created by this same milestone, or already in the ledger (checked above)
    const unspent = createdIn.has(toHex(s.output.outputId)) ? outputRecordOf(s.output) : records[i]!;
    db.unspent.del(batch, s.output.outputId);
    db.outputs.put(batch, s.output.outputId, spentOutputRecord(unspent, spent));
  });
  db.ledgerDiffs.put(batch, index, encodeLedgerDiff({ created: createdIds, consumed: consumedIds }));
}
