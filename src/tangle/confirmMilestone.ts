import { bytesEqual, toHex } from "../codec/hex.js";
import { computeMilestoneId, computeTransactionId, outputIdFromParts, outputIdOfInput } from "../codec/ids.js";
import { outputLeafHashes, transactionCommitment } from "../codec/outputIdProof.js";
import { decodeOutput, encodeOutput } from "../codec/outputs/output.js";
import type { MilestonePayload, ProtocolParameters } from "../codec/types.js";
import { pastConeInWhiteFlagOrder } from "../ledger/pastCone.js";
import {
  type ConeTransaction,
  type InputState,
  type LedgerOutput,
  type SemanticValidator,
  type WhiteFlagResult,
  whiteFlag,
} from "../ledger/whiteFlag.js";
import {
  Bucket,
  decodeBlockMetadata,
  decodeOutputRecord,
  EMPTY_VALUE,
  encodeBlockMetadata,
  encodeLedgerDiff,
  encodeMilestoneRecord,
  encodeOutputRecord,
  encodeSpentRecord,
  encodeTransactionOutputs,
  encodeU32,
  idKey,
  indexKey,
  NodeStateKey,
  nodeStateKey,
} from "../storage/index.js";
import type { MilestoneInfo, Tangle } from "./tangle.js";

/**
 * Milestone confirmation: walk the cone (TIP-2), read the ledger state of every input it names,
 * run white-flag, then write everything the milestone changes in ONE atomic, synced batch
 * (block metadata, outputs, spent records, ledger diff, proof leaves, milestone record, ledger
 * index). A crash before the batch leaves the ledger at the previous milestone; after it, at
 * this one. Never half.
 */

export interface PlannedConfirmation {
  index: number;
  timestamp: number;
  result: WhiteFlagResult;
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

  // 2. IDs of every transaction, and the inputs they name that the cone does not create itself
  const transactions = new Map<string, ConeTransaction>();
  const createdInCone = new Set<string>();
  const needed: Uint8Array[] = [];
  for (const c of cone) {
    if (c.block.payload?.type !== 6) continue;
    const tx = c.block.payload;
    const transactionId = c.transactionId ?? computeTransactionId(tx);
    const inputIds = tx.essence.inputs.map(outputIdOfInput);
    const outputIds = tx.essence.outputs.map((_, i) => outputIdFromParts(transactionId, i));
    transactions.set(toHex(c.blockId), {
      transactionId,
      inputIds,
      outputIds,
      outputBytes: tx.essence.outputs.map(encodeOutput),
      signingHash: c.signingHash,
    });
    for (const id of inputIds) if (!createdInCone.has(toHex(id))) needed.push(id);
    for (const id of outputIds) createdInCone.add(toHex(id));
  }

  // 3. the ledger state of those inputs before this milestone
  const inputs = new Map<string, InputState>();
  const store = tangle.store;
  const unspentFlags = await store.getMany(needed.map((id) => idKey(Bucket.Unspent, id)));
  const records = await store.getMany(needed.map((id) => idKey(Bucket.Output, id)));
  needed.forEach((id, i) => {
    const rec = records[i];
    if (!rec) inputs.set(toHex(id), { state: "missing" });
    else if (!unspentFlags[i]) inputs.set(toHex(id), { state: "spent" });
    else {
      const r = decodeOutputRecord(rec);
      inputs.set(toHex(id), {
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

  const result = whiteFlag({
    milestoneIndex: index,
    milestoneTimestamp: timestamp,
    protocolParameters,
    cone,
    transactions,
    inputs,
    validate,
  });
  return { index, timestamp, result };
}

/** Step 4: the one atomic batch, then the in-memory view. */
export async function applyConfirmation(
  tangle: Tangle,
  plan: PlannedConfirmation,
  milestoneId: Uint8Array,
  milestoneBlockId: Uint8Array,
): Promise<MilestoneInfo> {
  const { index, timestamp, result } = plan;
  const store = tangle.store;
  const batch = store.batch();

  // block metadata: referenced, white-flag position, inclusion state
  const metas = await store.getMany(result.referenced.map((r) => idKey(Bucket.BlockMetadata, r.blockId)));
  result.referenced.forEach((r, i) => {
    const old = metas[i] ? decodeBlockMetadata(metas[i]!) : undefined;
    batch.put(
      idKey(Bucket.BlockMetadata, r.blockId),
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
    batch.del(idKey(Bucket.Unreferenced, r.blockId));
  });

  // ledger: book created outputs, mark consumed ones spent
  const book = (o: LedgerOutput) =>
    batch.put(
      idKey(Bucket.Output, o.outputId),
      encodeOutputRecord({
        blockId: o.blockId,
        bookedIndex: o.bookedIndex,
        bookedTimestamp: o.bookedTimestamp,
        outputBytes: o.outputBytes,
      }),
    );
  for (const o of result.created) {
    book(o);
    batch.put(idKey(Bucket.Unspent, o.outputId), EMPTY_VALUE);
  }
  for (const s of result.createdAndConsumed) book(s.output);
  for (const s of [...result.consumed, ...result.createdAndConsumed]) {
    batch.del(idKey(Bucket.Unspent, s.output.outputId));
    batch.put(
      idKey(Bucket.Spent, s.output.outputId),
      encodeSpentRecord({ transactionId: s.spendingTransactionId, spentIndex: index, spentTimestamp: timestamp }),
    );
  }
  for (const t of result.included) {
    batch.put(
      idKey(Bucket.TransactionOutputs, t.transactionId),
      encodeTransactionOutputs({
        transactionCommitment: transactionCommitment(t.tx.essence),
        leafHashes: outputLeafHashes(t.outputBytes),
      }),
    );
    batch.put(idKey(Bucket.TransactionBlock, t.transactionId), t.blockId);
  }
  batch.put(
    indexKey(Bucket.LedgerDiff, index),
    encodeLedgerDiff({
      created: [...result.created, ...result.createdAndConsumed.map((s) => s.output)].map((o) => o.outputId),
      consumed: [...result.consumed, ...result.createdAndConsumed].map((s) => s.output.outputId),
    }),
  );

  // milestone record and ledger index
  batch.put(
    indexKey(Bucket.MilestoneByIndex, index),
    encodeMilestoneRecord({ milestoneId, blockId: milestoneBlockId, timestamp }),
  );
  batch.put(idKey(Bucket.MilestoneById, milestoneId), encodeU32(index));
  batch.put(nodeStateKey(NodeStateKey.LedgerIndex), encodeU32(index));
  const info = { index, milestoneId, blockId: milestoneBlockId, timestamp };
  for (const writer of tangle.confirmationWriters) await writer(batch, result, info);
  await batch.write({ sync: true });

  tangle.markConfirmed(
    info,
    result.referenced.map((r) => r.blockId),
  );
  return info;
}

export class MilestoneMismatchError extends Error {
  readonly code = "TANGLE_MILESTONE_MISMATCH";
  constructor(message: string) {
    super(message);
    this.name = "MilestoneMismatchError";
  }
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
    throw new MilestoneMismatchError(`milestone ${milestone.index} does not follow ${latest.index}`);
  }
  if (!bytesEqual(milestone.previousMilestoneId, latest.milestoneId)) {
    throw new MilestoneMismatchError(
      `milestone ${milestone.index} does not name milestone ${latest.index} as previous`,
    );
  }
  const plan = await planConfirmation(tangle, milestone.parents, milestone.index, milestone.timestamp, validate);
  if (!bytesEqual(plan.result.inclusionMerkleRoot, milestone.inclusionMerkleRoot)) {
    throw new MilestoneMismatchError(
      `milestone ${milestone.index}: inclusion Merkle root differs from this node's white-flag`,
    );
  }
  if (!bytesEqual(plan.result.appliedMerkleRoot, milestone.appliedMerkleRoot)) {
    throw new MilestoneMismatchError(
      `milestone ${milestone.index}: applied Merkle root differs from this node's white-flag`,
    );
  }
  return applyConfirmation(tangle, plan, computeMilestoneId(milestone), milestoneBlockId);
}
