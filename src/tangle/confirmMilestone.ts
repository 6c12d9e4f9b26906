import { bytesEqual, toHex } from "../codec/hex.js";
import {
  computeMilestoneId,
  computeTransactionId,
  outputIdFromParts,
  outputIdOfInput,
  outputIndexOf,
} from "../codec/ids.js";
import { outputLeafHashes, storedOutputIdProofs, transactionCommitment } from "../codec/outputIdProof.js";
import { decodeOutput, encodeOutput } from "../codec/outputs/output.js";
import { MilestoneOptionType, type MilestonePayload, PayloadType, type ProtocolParameters } from "../codec/types.js";
import { merkleRoot } from "../crypto/merkle.js";
import { pastConeInWhiteFlagOrder } from "../ledger/pastCone.js";
import {
  type ConeTransaction,
  type InputState,
  type LedgerOutput,
  type SemanticValidator,
  type WhiteFlagResult,
  whiteFlagMutations,
  whiteFlagRootEntries,
} from "../ledger/whiteFlag.js";
import {
  decodeOutputRecord,
  encodeBlockMetadata,
  encodeLedgerDiff,
  encodeMilestoneRecord,
  encodeOutputRecord,
  encodeTransactionBlock,
  encodeU32,
  NodeStateKey,
  type Repositories,
  type SpentRecord,
  spentOutputRecord,
  type WriteBatch,
} from "../storage/index.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { TangleErrorCode } from "./errors.js";
import type { MilestoneInfo, NodeEvents } from "./events.js";
import type { Tangle } from "./tangle.js";

/** Merkle leaves (referenced and applied blocks) up to which a milestone's roots are hashed on the main thread. */
const INLINE_MERKLE_LEAVES = 1024;

/**
 * Milestone confirmation: walk the cone (TIP-2), read the ledger state of every input it names,
 * run white-flag, then write everything the milestone changes in ONE atomic, synced batch
 * (block metadata, output records booked or marked spent, ledger diff, proof leaves, milestone
 * record, ledger index). A crash before the batch leaves the ledger at the previous milestone;
 * after it, at this one. Never half.
 */

export interface PlannedConfirmation {
  index: number;
  timestamp: number;
  result: WhiteFlagResult;
  /** The stored records of the unspent inputs read, by output ID hex: a spent one is rewritten from it. */
  inputRecords: Map<string, Uint8Array>;
}

/** Steps 1-3: cone, inputs, white-flag; reads only. */
export async function planConfirmation(
  tangle: Tangle,
  parents: readonly Uint8Array[],
  index: number,
  timestamp: number,
  validate: SemanticValidator,
  protocolParameters: ProtocolParameters = tangle.protocolParameters,
): Promise<PlannedConfirmation> {
  // 1. the newly referenced blocks in white-flag order
  const cone = pastConeInWhiteFlagOrder(parents, tangle.coneLookup);

  // 2. IDs of every transaction, and every input they name. An input some transaction of the
  // cone creates is read from the ledger too: white-flag takes it from that transaction only if
  // it was included, and a conflicting one (a re-attachment of a confirmed transaction, whose
  // outputs are in the ledger already) must not hide the ledger's state (Hornet reads them all).
  const transactions = new Map<string, ConeTransaction>();
  const named = new Set<string>();
  const needed: Uint8Array[] = [];
  const neededKeys: string[] = [];
  for (const c of cone) {
    if (c.block.payload?.type !== PayloadType.Transaction) continue;
    const tx = c.block.payload;
    const transactionId = c.transactionId ?? computeTransactionId(tx);
    const inputIds = tx.essence.inputs.map(outputIdOfInput);
    const outputIds = tx.essence.outputs.map((_, i) => outputIdFromParts(transactionId, i));
    transactions.set(c.key ?? toHex(c.blockId), {
      transactionId,
      inputIds,
      outputIds,
      outputBytes: tx.essence.outputs.map(encodeOutput),
      signingHash: c.signingHash,
    });
    for (const id of inputIds) {
      const key = toHex(id);
      if (named.has(key)) continue;
      named.add(key);
      needed.push(id);
      neededKeys.push(key);
    }
  }

  // 3. the ledger state of those inputs before this milestone
  // (an output's record says whether it is spent: one read per input)
  const inputs = new Map<string, InputState>();
  const inputRecords = new Map<string, Uint8Array>();
  const records = await tangle.db.outputs.getManyBytes(needed);
  needed.forEach((id, i) => {
    const rec = records[i];
    const r = rec && decodeOutputRecord(rec);
    const key = neededKeys[i]!;
    if (!r) inputs.set(key, { state: "missing" });
    else if (r.spent) inputs.set(key, { state: "spent" });
    else {
      inputRecords.set(key, rec!);
      inputs.set(key, {
        state: "unspent",
        output: {
          outputId: id,
          output: decodeOutput(r.outputBytes),
          outputBytes: r.outputBytes,
          blockId: r.blockId,
          bookedIndex: r.bookedIndex,
          bookedTimestamp: r.bookedTimestamp,
        },
      });
    }
  });

  const mutations = whiteFlagMutations({
    milestoneIndex: index,
    milestoneTimestamp: timestamp,
    protocolParameters,
    cone,
    transactions,
    inputs,
    validate,
  });
  const entries = whiteFlagRootEntries(cone, mutations);
  // a small cone is hashed here in less time than a job waits on the threads behind intake's
  // signature checks (measured with bench devnode: 455 ms queued for a 74-block milestone)
  const leaves = entries.reduce((n, e) => n + e.length, 0);
  const [inclusionMerkleRoot, appliedMerkleRoot] = (
    tangle.options.merkleRoots && leaves > INLINE_MERKLE_LEAVES
      ? await tangle.options.merkleRoots(entries)
      : entries.map((e) => merkleRoot(e))
  ) as [Uint8Array, Uint8Array];
  const result: WhiteFlagResult = { ...mutations, inclusionMerkleRoot, appliedMerkleRoot };
  return { index, timestamp, result, inputRecords };
}

/**
 * Step 4: the one atomic batch (block metadata, ledger, milestone, the attached indexes), then
 * the in-memory view, then the events. Readers hear of the milestone only once it is on disk.
 */
export async function applyConfirmation(
  tangle: Tangle,
  plan: PlannedConfirmation,
  milestoneId: Uint8Array,
  milestoneBlockId: Uint8Array,
): Promise<MilestoneInfo> {
  const { index, timestamp, result } = plan;
  const info: MilestoneInfo = { index, milestoneId, blockId: milestoneBlockId, timestamp };
  // the referenced blocks' own writes land first: this batch overwrites their metadata
  await tangle.intakeWritten();
  const batch = tangle.store.batch();
  await putReferencedMetadata(tangle, batch, plan);
  putLedgerChanges(tangle.db, batch, plan);
  putMilestone(tangle.db, batch, info);
  await tangle.events.writeIndexes(batch, result, info);
  await batch.write({ sync: true });

  tangle.markConfirmed(
    info,
    result.referenced.map((r) => r.blockId),
  );
  emitConfirmed(tangle.events, info, result);
  return info;
}

/**
 * Block metadata: referenced, white-flag position, inclusion state. A cone holds blocks not
 * referenced yet, whose metadata is in memory; any other would be read, so that a stored
 * record is never overwritten blindly.
 */
async function putReferencedMetadata(tangle: Tangle, batch: WriteBatch, plan: PlannedConfirmation): Promise<void> {
  const { index, timestamp, result } = plan;
  const known = result.referenced.map((r) => tangle.unreferencedMetadata(r.blockId));
  const unknown = result.referenced.filter((_, i) => !known[i]);
  const db = tangle.db;
  const read = unknown.length > 0 ? await db.blockMetadata.getMany(unknown.map((r) => r.blockId)) : [];
  let nextRead = 0;
  result.referenced.forEach((r, i) => {
    const old = known[i] ?? read[nextRead++];
    db.blockMetadata.put(
      batch,
      r.blockId,
      encodeBlockMetadata({
        solid: true,
        milestone: old?.milestone ?? false,
        arrivalTime: old?.arrivalTime ?? timestamp,
        referencedByMilestoneIndex: index,
        whiteFlagIndex: r.whiteFlagIndex,
        inclusionState: r.inclusionState as 0 | 1 | 2,
        conflictReason: r.conflictReason,
      }),
    );
    db.unreferenced.del(batch, r.blockId);
  });
}

/** The ledger: created outputs booked with the proofs of their IDs, consumed ones marked spent, the diff. */
function putLedgerChanges(db: Repositories, batch: WriteBatch, plan: PlannedConfirmation): void {
  const { index, timestamp, result } = plan;
  const proofs = new Map<string, Uint8Array[]>();
  for (const t of result.included) {
    const commitment = transactionCommitment(t.tx.essence);
    proofs.set(toHex(t.transactionId), storedOutputIdProofs(commitment, outputLeafHashes(t.outputBytes)));
    db.transactionBlocks.put(
      batch,
      t.transactionId,
      encodeTransactionBlock({ blockId: t.blockId, outputCount: t.outputBytes.length }),
    );
  }
  const spentAt = (transactionId: Uint8Array): SpentRecord => ({
    transactionId,
    spentIndex: index,
    spentTimestamp: timestamp,
  });
  const recordOf = (o: LedgerOutput, spent?: SpentRecord) => {
    const proof = proofs.get(toHex(o.outputId.subarray(0, 32)))?.[outputIndexOf(o.outputId)];
    if (!proof)
      throw new LedgerNodeError(
        TangleErrorCode.ConfirmationInconsistent,
        `output ${toHex(o.outputId)} was created by no transaction of this milestone`,
      );
    const { blockId, bookedIndex, bookedTimestamp, outputBytes } = o;
    return encodeOutputRecord({ blockId, bookedIndex, bookedTimestamp, proof, outputBytes, ...(spent && { spent }) });
  };
  for (const o of result.created) {
    db.outputs.put(batch, o.outputId, recordOf(o));
    db.unspent.add(batch, o.outputId);
  }
  for (const s of result.createdAndConsumed) {
    db.outputs.put(batch, s.output.outputId, recordOf(s.output, spentAt(s.spendingTransactionId)));
  }
  for (const s of result.consumed) {
    const stored = plan.inputRecords.get(toHex(s.output.outputId));
    if (!stored)
      throw new LedgerNodeError(
        TangleErrorCode.ConfirmationInconsistent,
        `the spent output ${toHex(s.output.outputId)} was not read before white-flag`,
      );
    db.unspent.del(batch, s.output.outputId);
    db.outputs.put(batch, s.output.outputId, spentOutputRecord(stored, spentAt(s.spendingTransactionId)));
  }
  db.ledgerDiffs.put(
    batch,
    index,
    encodeLedgerDiff({
      created: [...result.created, ...result.createdAndConsumed.map((s) => s.output)].map((o) => o.outputId),
      consumed: [...result.consumed, ...result.createdAndConsumed].map((s) => s.output.outputId),
    }),
  );
}

/** The milestone's record, its ID's index entry and the ledger index. */
function putMilestone(db: Repositories, batch: WriteBatch, info: MilestoneInfo): void {
  db.milestones.put(
    batch,
    info.index,
    encodeMilestoneRecord({ milestoneId: info.milestoneId, blockId: info.blockId, timestamp: info.timestamp }),
  );
  db.milestoneIndexes.put(batch, info.milestoneId, encodeU32(info.index));
  db.nodeState.putU32(batch, NodeStateKey.LedgerIndex, info.index);
}

/** The referenced blocks' new metadata in white-flag order (when anyone listens), then the milestone. */
function emitConfirmed(events: NodeEvents, milestone: MilestoneInfo, result: WhiteFlagResult): void {
  if (events.wants("blockReferenced")) {
    for (const r of result.referenced) {
      events.emit("blockReferenced", {
        blockId: r.blockId,
        milestoneIndex: milestone.index,
        whiteFlagIndex: r.whiteFlagIndex,
        inclusionState: r.inclusionState,
        conflictReason: r.conflictReason,
      });
    }
  }
  events.emit("milestoneConfirmed", { milestone, result });
}

/**
 * Confirms a milestone that arrived as a block (a coordinator's milestone found unapplied at
 * start, or, on a follower, one received from a peer): white-flag over its cone must give the
 * Merkle roots the milestone states (TIP-4), else nothing is written.
 */
export async function confirmMilestoneBlock(
  tangle: Tangle,
  milestoneBlockId: Uint8Array,
  milestone: MilestonePayload,
  validate: SemanticValidator,
): Promise<MilestoneInfo> {
  const latest = tangle.latestMilestone;
  if (milestone.index !== latest.index + 1) {
    throw new LedgerNodeError(
      TangleErrorCode.MilestoneMismatch,
      `milestone ${milestone.index} does not follow ${latest.index}`,
    );
  }
  if (milestone.timestamp <= latest.timestamp) {
    throw new LedgerNodeError(
      TangleErrorCode.MilestoneMismatch,
      `milestone ${milestone.index}: its timestamp ${milestone.timestamp} is not after ${latest.timestamp}`,
    );
  }
  if (!bytesEqual(milestone.previousMilestoneId, latest.milestoneId)) {
    throw new LedgerNodeError(
      TangleErrorCode.MilestoneMismatch,
      `milestone ${milestone.index} does not name milestone ${latest.index} as previous`,
    );
  }
  // A receipt (TIP-34) would move funds from the treasury into the ledger. This node's networks
  // have no migration and its white-flag does not apply receipts, so a milestone carrying one
  // is refused rather than confirmed without its receipt (docs/decisions.md, Receipts and the
  // treasury): the ledger never silently differs from the network's. Receipts reach a node
  // only through snapshot files (snapshot/treasury.ts).
  if (milestone.options.some((o) => o.type === MilestoneOptionType.Receipt)) {
    throw new LedgerNodeError(
      TangleErrorCode.MilestoneMismatch,
      `milestone ${milestone.index} carries a receipt of migrated funds (TIP-34), which this node applies only from snapshot files`,
    );
  }
  const plan = await planConfirmation(tangle, milestone.parents, milestone.index, milestone.timestamp, validate);
  if (!bytesEqual(plan.result.inclusionMerkleRoot, milestone.inclusionMerkleRoot)) {
    throw new LedgerNodeError(
      TangleErrorCode.MilestoneMismatch,
      `milestone ${milestone.index}: inclusion Merkle root differs from this node's white-flag`,
    );
  }
  if (!bytesEqual(plan.result.appliedMerkleRoot, milestone.appliedMerkleRoot)) {
    throw new LedgerNodeError(
      TangleErrorCode.MilestoneMismatch,
      `milestone ${milestone.index}: applied Merkle root differs from this node's white-flag`,
    );
  }
  return applyConfirmation(tangle, plan, computeMilestoneId(milestone), milestoneBlockId);
}
