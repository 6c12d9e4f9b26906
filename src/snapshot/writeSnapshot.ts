import { decodeBlock } from "../codec/block.js";
import { bytesEqual, toHex } from "../codec/hex.js";
import { encodePayload } from "../codec/payload.js";
import { decodeProtocolParameters } from "../codec/protocolParameters.js";
import { type MilestonePayload, PayloadType, type ProtocolParameters } from "../codec/types.js";
import { decodeOutputRecord, type KvStore, type MilestoneRecord, Repositories } from "../storage/index.js";
import { solidEntryPointsAt } from "../tangle/prune.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { isSnapshotError, type SnapshotError, SnapshotErrorCode } from "./errors.js";
import { SnapshotFileWriter } from "./fileWriter.js";
import {
  amountOfOutputBytes,
  DELTA_HEADER,
  type DeltaSnapshotHeader,
  encodeDeltaHeader,
  encodeFullHeader,
  encodeMilestoneDiff,
  FULL_HEADER,
  fullHeaderCountOffsets,
  MAX_SEP_COUNT,
  type MilestoneDiff,
  protocolParamsOption,
  type SnapshotOutput,
} from "./format.js";
import { LedgerView } from "./ledgerView.js";
import { receiptOf, treasuryInputOf } from "./treasury.js";

/**
 * Writing snapshot files from this node's database (TIP-35 version 2), the way Hornet writes
 * them.
 *
 * A full snapshot at milestone N holds the unspent outputs at the ledger index L of one
 * consistent view (see `LedgerView`) and the diffs of milestones L down to N + 1, newest first,
 * which roll that ledger back to N (the TIP leaves the rollback to the consumer "to speed up
 * local snapshot creation"); for N = L there is none. It also carries milestone N's own diff,
 * an extra one (diffs at or below the target are never applied), because the file has no other
 * place for the target milestone's payload, which a node starting from the file needs to
 * rebuild the milestone's block (a milestone block is the payload on its own parents, nonce 0).
 * Its SEPs are Hornet's entry points (`solidEntryPointsAt`). Its header's treasury output is
 * the node's at L, from the same view (TIP-34; the empty one on a network without migration);
 * the diff of a milestone with a receipt carries the treasury input the receipt spent.
 *
 * A delta snapshot at D holds the diffs from its full snapshot's target + 1 to D, oldest first.
 */

export interface WrittenSnapshot {
  filePath: string;
  targetIndex: number;
  /** The ledger index when the file was written. */
  ledgerIndex: number;
  outputCount: number;
  milestoneDiffCount: number;
  sepCount: number;
  sha256: string;
}

function badIndex(reason: string): SnapshotError {
  return new LedgerNodeError(SnapshotErrorCode.BadIndex, reason);
}

function pruned(reason: string): SnapshotError {
  return new LedgerNodeError(SnapshotErrorCode.Pruned, reason);
}

function inconsistent(reason: string): SnapshotError {
  return new LedgerNodeError(SnapshotErrorCode.LedgerInconsistent, reason);
}

export function checkIndex(index: unknown, what = "index"): number {
  if (typeof index !== "number" || !Number.isInteger(index) || index < 1 || index > 0xffffffff) {
    throw badIndex(`${what}: expected a milestone index of at least 1, got ${JSON.stringify(index)}`);
  }
  return index;
}

function milestoneRecord(store: KvStore, index: number): Promise<MilestoneRecord | undefined> {
  return Repositories.of(store).milestones.get(index);
}

/** The payload of the milestone whose block is `blockId`, when the block is stored. */
async function milestonePayloadOf(store: KvStore, blockId: Uint8Array): Promise<MilestonePayload | undefined> {
  const bytes = await Repositories.of(store).blocks.get(blockId);
  if (!bytes) return undefined;
  const payload = decodeBlock(bytes).payload;
  return payload?.type === PayloadType.Milestone ? payload : undefined;
}

/** Snapshot outputs of `ids` from their `Output` records, with the spending transaction of spent ones. */
async function outputsOf(
  store: KvStore,
  ids: Uint8Array[],
  what: string,
): Promise<(SnapshotOutput & { spentBy: Uint8Array | undefined })[]> {
  const records = await Repositories.of(store).outputs.getMany(ids);
  return ids.map((outputId, i) => {
    const rec = records[i];
    if (!rec) throw inconsistent(`${what}: output ${toHex(outputId)} has no record`);
    const { blockId, bookedIndex, bookedTimestamp, outputBytes, spent } = rec;
    return { outputId, blockId, bookedIndex, bookedTimestamp, outputBytes, spentBy: spent?.transactionId };
  });
}

/**
 * The TIP-35 diff of milestone `index` from the database: its payload (from its block), the
 * outputs its ledger diff created and consumed, each consumed one with its spending transaction,
 * and, when it carries a receipt, the treasury output the receipt spent (`treasuryInputOf`).
 * Undefined when the milestone's record, block or diff is not stored.
 */
export async function milestoneDiffFromStore(store: KvStore, index: number): Promise<MilestoneDiff | undefined> {
  const rec = await milestoneRecord(store, index);
  if (!rec) return undefined;
  const milestone = await milestonePayloadOf(store, rec.blockId);
  const diff = await Repositories.of(store).ledgerDiffs.get(index);
  if (!milestone || !diff) return undefined;
  const receipt = receiptOf(milestone);
  const what = `ledger diff of milestone ${index}`;
  const created = (await outputsOf(store, diff.created, what)).map(({ spentBy: _, ...output }) => output);
  const consumed = (await outputsOf(store, diff.consumed, what)).map(({ spentBy, ...output }) => {
    if (!spentBy) throw inconsistent(`${what}: consumed output ${toHex(output.outputId)} is not marked spent`);
    return { output, transactionId: spentBy };
  });
  return {
    milestone,
    milestoneBytes: encodePayload(milestone),
    ...(receipt ? { treasuryInput: treasuryInputOf(receipt) } : {}),
    created,
    consumed,
  };
}

/** The protocol parameters in force at `index`: the entry with the highest target index at or below it. */
function parametersAt(entries: Map<number, Uint8Array>, index: number) {
  let best: number | undefined;
  for (const at of entries.keys()) if (at <= index && (best === undefined || at > best)) best = at;
  if (best === undefined) throw inconsistent(`no protocol parameters are stored for milestone ${index}`);
  return protocolParamsOption(best, decodeProtocolParameters(entries.get(best)!));
}

/**
 * SEPs for a snapshot at `index` (Hornet's rule, `solidEntryPointsAt`): they include the
 * parents of milestone `index`'s block, which a node starting from the file stores as a block
 * no milestone references yet. A history without stored blocks (none to walk) gets the
 * milestone's block itself, so a node always has something to attach to.
 */
async function snapshotEntryPoints(
  store: KvStore,
  index: number,
  milestoneBlockId: Uint8Array,
  belowMaxDepth: number,
): Promise<Uint8Array[]> {
  const seps = (await solidEntryPointsAt(Repositories.of(store), index, belowMaxDepth)).map((sep) => sep.blockId);
  if (seps.length === 0) seps.push(milestoneBlockId);
  if (seps.length > MAX_SEP_COUNT) throw inconsistent(`${seps.length} solid entry points do not fit a u16 count`);
  return seps;
}

/** Runs `write` on a fresh temporary file and commits it; anything unexpected is WriteFailed. */
async function withFile(
  filePath: string,
  write: (w: SnapshotFileWriter) => Promise<void>,
): Promise<{ sha256: string }> {
  const w = await SnapshotFileWriter.create(filePath);
  try {
    await write(w);
  } catch (e) {
    await w.abort();
    if (isSnapshotError(e)) throw e;
    throw new LedgerNodeError(SnapshotErrorCode.WriteFailed, `cannot write ${filePath}: ${(e as Error).message}`, {
      cause: e,
    });
  }
  return { sha256: await w.commit() };
}

function u64(v: number | bigint): Uint8Array {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, BigInt(v), true);
  return b;
}

function u32(v: number): Uint8Array {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, v, true);
  return b;
}

function u16(v: number): Uint8Array {
  const b = new Uint8Array(2);
  new DataView(b.buffer).setUint16(0, v, true);
  return b;
}

/**
 * Writes a full snapshot of the ledger as of milestone `index` to `filePath`. Checks, in order:
 * the index is at least 1 and at most the ledger index (BadIndex), its data is not pruned
 * (Pruned), and the outputs add up to the token supply (LedgerInconsistent, nothing written).
 */
export async function writeFullSnapshot(
  store: KvStore,
  index: number,
  filePath: string,
  options: { belowMaxDepth?: number } = {},
): Promise<WrittenSnapshot> {
  checkIndex(index);
  // 1. the request: confirmed (the ledger index only grows), not pruned (the caller pins it)
  const nodeState = Repositories.of(store).nodeState;
  const confirmed = await nodeState.ledgerIndex();
  if (index > confirmed) throw badIndex(`index ${index} is newer than the confirmed milestone ${confirmed}`);
  const pruningIndex = await nodeState.pruningIndex();
  if (index < pruningIndex) throw pruned(`milestone ${index} is older than the pruning index ${pruningIndex}`);
  const target = await milestoneRecord(store, index);
  if (!target) throw pruned(`milestone ${index} is not stored`);

  // 2. what does not change once written: the parameters in force at the target (entries for
  //    later milestones are only ever added), its own diff and payload, the entry points
  const params = parametersAt(await protocolParameterEntries(store), index);
  const parameters: ProtocolParameters = params.parameters;
  const targetDiff = await milestoneDiffFromStore(store, index);
  const seps = await snapshotEntryPoints(
    store,
    index,
    target.blockId,
    options.belowMaxDepth ?? parameters.belowMaxDepth,
  );

  // 3. the file: header, the outputs of the view, the rollback diffs, the target's diff, SEPs;
  //    then the counts, the ledger index and the treasury, known only now, patched in
  const header = encodeFullHeader({
    genesisMilestoneIndex: 0,
    targetMilestoneIndex: index,
    targetMilestoneTimestamp: target.timestamp,
    targetMilestoneId: target.milestoneId,
    ledgerMilestoneIndex: index,
    treasuryOutputMilestoneId: new Uint8Array(32),
    treasuryOutputAmount: 0n,
    protocolParameters: params,
    outputCount: 0,
    milestoneDiffCount: 0,
    sepCount: 0,
  });
  const counts = fullHeaderCountOffsets(header.length - fullHeaderCountOffsets(0).end);
  const view = LedgerView.open(store, index);
  let outputCount = 0;
  let diffCount = 0;
  try {
    const { sha256 } = await withFile(filePath, async (w) => {
      await w.write(header);
      let total = 0n;
      for await (const { ids, records } of view.unspent()) {
        for (let i = 0; i < ids.length; i++) {
          const record = records[i]!;
          const output = decodeOutputRecord(record).outputBytes;
          const pending = w.appendOutputEntry(ids[i]!, record, output);
          if (pending) await pending;
          total += amountOfOutputBytes(output);
        }
        outputCount += ids.length;
      }
      if (view.ledgerIndex < index) throw inconsistent(`the ledger index went back below ${index}`);
      if (view.pruningIndex > index) {
        throw pruned(`milestone ${index} is older than the pruning index ${view.pruningIndex}`);
      }
      if (total + view.treasury.amount !== parameters.tokenSupply) {
        throw inconsistent(
          `the ledger at milestone ${view.ledgerIndex} holds ${total} and the treasury ${view.treasury.amount}, the token supply is ${parameters.tokenSupply}`,
        );
      }
      for (let m = view.ledgerIndex; m > index; m--) {
        if (!view.diffs.has(m)) throw pruned(`the ledger diff of milestone ${m} is not stored`);
        const diff = await milestoneDiffFromStore(store, m);
        if (!diff) throw pruned(`the data of milestone ${m} is no longer stored`);
        await w.write(encodeMilestoneDiff(diff));
        diffCount++;
      }
      if (targetDiff) {
        await w.write(encodeMilestoneDiff(targetDiff));
        diffCount++;
      }
      for (const sep of seps) await w.write(sep);
      await w.patch(FULL_HEADER.ledgerMilestoneIndex, u32(view.ledgerIndex));
      await w.patch(FULL_HEADER.treasuryOutputMilestoneId, view.treasury.milestoneId);
      await w.patch(FULL_HEADER.treasuryOutputAmount, u64(view.treasury.amount));
      await w.patch(counts.outputs, u64(outputCount));
      await w.patch(counts.milestoneDiffs, u32(diffCount));
      await w.patch(counts.seps, u16(seps.length));
    });
    return {
      filePath,
      targetIndex: index,
      ledgerIndex: view.ledgerIndex,
      outputCount,
      milestoneDiffCount: diffCount,
      sepCount: seps.length,
      sha256,
    };
  } finally {
    await view.close();
  }
}

/** Every ProtocolParameters entry by target milestone index. */
async function protocolParameterEntries(store: KvStore): Promise<Map<number, Uint8Array>> {
  const entries = new Map<number, Uint8Array>();
  for await (const [index, value] of Repositories.of(store).protocolParameters.entries()) entries.set(index, value);
  return entries;
}

/** What a delta is built on: the full snapshot's target index and milestone ID. */
export interface DeltaBase {
  targetMilestoneIndex: number;
  targetMilestoneId: Uint8Array;
}

/**
 * Writes a delta snapshot at milestone `index` on top of the full snapshot `base`: the diffs of
 * milestones base + 1 .. index. BadIndex when the index is not above the base or newer than the
 * ledger; Pruned when a diff is no longer stored; NotMergeable when the base is not this
 * node's history (the first diff's previous milestone is not the base's target).
 */
export async function writeDeltaSnapshot(
  store: KvStore,
  index: number,
  base: DeltaBase,
  filePath: string,
  options: { belowMaxDepth: number },
): Promise<WrittenSnapshot> {
  checkIndex(index);
  const from = base.targetMilestoneIndex;
  if (index <= from) {
    throw badIndex(`a delta snapshot at ${index} is not newer than its full snapshot at ${from}`);
  }
  const ledgerIndex = await Repositories.of(store).nodeState.ledgerIndex();
  if (index > ledgerIndex) throw badIndex(`index ${index} is newer than the confirmed milestone ${ledgerIndex}`);
  const target = await milestoneRecord(store, index);
  if (!target) throw pruned(`milestone ${index} is not stored`);
  const seps = await snapshotEntryPoints(store, index, target.blockId, options.belowMaxDepth);
  const header: Omit<DeltaSnapshotHeader, "type" | "version"> = {
    targetMilestoneIndex: index,
    targetMilestoneTimestamp: target.timestamp,
    fullSnapshotTargetMilestoneId: base.targetMilestoneId,
    sepFileOffset: 0,
    milestoneDiffCount: 0,
    sepCount: 0,
  };
  let count = 0;
  const { sha256 } = await withFile(filePath, async (w) => {
    await w.write(encodeDeltaHeader(header));
    for (let m = from + 1; m <= index; m++) {
      const diff = await milestoneDiffFromStore(store, m);
      if (!diff) throw pruned(`the data of milestone ${m} is no longer stored`);
      if (m === from + 1 && !bytesEqual(diff.milestone.previousMilestoneId, base.targetMilestoneId)) {
        throw new LedgerNodeError(
          SnapshotErrorCode.NotMergeable,
          `milestone ${m} does not follow the full snapshot's target milestone ${toHex(base.targetMilestoneId)}`,
        );
      }
      await w.write(encodeMilestoneDiff(diff));
      count++;
    }
    const sepOffset = w.position;
    for (const sep of seps) await w.write(sep);
    await w.patch(DELTA_HEADER.sepFileOffset, u64(sepOffset));
    await w.patch(DELTA_HEADER.milestoneDiffCount, u32(count));
    await w.patch(DELTA_HEADER.sepCount, u16(seps.length));
  });
  return {
    filePath,
    targetIndex: index,
    ledgerIndex,
    outputCount: 0,
    milestoneDiffCount: count,
    sepCount: seps.length,
    sha256,
  };
}
