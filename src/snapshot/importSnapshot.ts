import { encodeReceipt } from "../codec/milestoneOptions.js";
import { encodeProtocolParameters } from "../codec/protocolParameters.js";
import type { ProtocolParameters } from "../codec/types.js";
import {
  encodeU32,
  type KvStore,
  NodeStateKey,
  Repositories,
  SCHEMA_VERSION,
  type TreasuryRecord,
  type WriteBatch,
} from "../storage/index.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { isSnapshotError, SnapshotErrorCode } from "./errors.js";
import { readSnapshot } from "./fileReader.js";
import {
  type DeltaSnapshotHeader,
  type FullSnapshotHeader,
  type MilestoneDiff,
  outputRecordOf,
  type SnapshotOutput,
  SnapshotType,
} from "./format.js";
import {
  applyDiff,
  BatchWriter,
  type ChainMilestone,
  checkRollback,
  parameterOptions,
  writeMilestones,
  writeSpentHistory,
} from "./importWrites.js";
import { receiptOf } from "./treasury.js";
import {
  type ProgressReport,
  type VerifiedDelta,
  type VerifiedFull,
  verifyDeltaSnapshot,
  verifyFullSnapshot,
} from "./verifySnapshot.js";

/**
 * Starting a node from snapshot files: fills an EMPTY database with the state of a full
 * snapshot (and a delta on top of it), in the layout `initDatabase` writes for a fresh network
 * minus the genesis: outputs with their booking milestone and block, the unspent set, the
 * target milestone's record (and its block, rebuilt from the payload the file carries), the
 * delta's milestones with their ledger diffs, the receipts of the milestones it keeps (the
 * target's and the delta's), the solid entry points, the protocol parameters and the NodeState
 * entries (network, ledger index, pruning index, the treasury output, TIP-34). The node's secrets are
 * not part of a ledger: the node makes them when it opens the database (`initDatabase`).
 *
 * 1. Both files are read and checked completely first (`verifySnapshot.ts`); a damaged,
 *    foreign or mismatched file is refused before anything is written.
 * 2. The first write marks the import as in progress, with a schema version no node accepts;
 *    then the ledger goes in, in bounded batches; the last write sets the real schema version
 *    and the "complete" marker. A crash in between leaves a directory every start refuses.
 * 3. A failure during the writes removes what was written, so the database is empty again.
 */

/** NodeState entry of an import: u8 0 while in progress, 1 once complete. */
/** The schema version an import in progress writes: no layout has it, so no node opens the directory. */
export const IMPORT_IN_PROGRESS_SCHEMA_VERSION = 0;

export type ImportState = "none" | "inProgress" | "complete";

export interface ImportProgress extends ProgressReport {
  phase: "verify" | "import";
  file: string;
}

export interface ImportSnapshotOptions {
  fullPath: string;
  deltaPath?: string;
  /** The network the node runs; a snapshot of another one is refused (WrongNetwork). */
  expectedNetworkName: string;
  /**
   * Accept milestones without valid signatures or previous milestone IDs (`--snapshot-unverified`,
   * `verifySnapshot.ts`); ignored when `verified` is given (the check already ran).
   */
  unverified?: boolean;
  /** Outputs per write batch (bounded memory); default 1000. */
  batchSize?: number;
  /** Called as the files are read; awaited when it returns a promise. */
  onProgress?: (p: ImportProgress) => void | Promise<void>;
  /**
   * The files as `verifyFullSnapshot`/`verifyDeltaSnapshot` already checked them (before the
   * data directory was created, say): the check pass is skipped, and the import pass still
   * proves it reads the very bytes that were checked (same SHA-256).
   */
  verified?: { full: VerifiedFull; delta?: VerifiedDelta };
  /**
   * What else is written for each unspent output of the full snapshot, into the batch the
   * output goes in, as it is streamed: the node's indexes (indexer/rebuild.ts, `IndexerLoad`),
   * so that nothing has to read the ledger back after the import.
   */
  sink?: ImportSink;
}

/** Writes of its own for each output a full snapshot's ledger streams (see `sink`). */
export interface ImportSink {
  add(batch: WriteBatch, output: SnapshotOutput): void;
}

export interface ImportedSnapshot {
  /** The ledger index of the filled database: the delta's target, else the full snapshot's. */
  ledgerIndex: number;
  /** The lowest milestone with data: the full snapshot's target. */
  pruningIndex: number;
  milestoneId: Uint8Array;
  protocolParameters: ProtocolParameters;
  /** The treasury output at the ledger index. */
  treasury: TreasuryRecord;
  outputCount: number;
  solidEntryPoints: Uint8Array[];
  fullHeader: FullSnapshotHeader;
  deltaHeader?: DeltaSnapshotHeader;
  /**
   * Whether the sink was handed the imported ledger exactly: every output it was handed is
   * unspent at `ledgerIndex` and no other is (false when milestones were rolled back or a delta
   * applied after the outputs streamed, or without a sink).
   */
  sinkHoldsLedger: boolean;
}

const EMPTY = new Uint8Array(0);

/** Whether an import began in this database and whether it finished. */
export async function readImportState(store: KvStore): Promise<ImportState> {
  const v = await Repositories.of(store).nodeState.get(NodeStateKey.SnapshotImport);
  if (!v) return "none";
  return v[0] === 1 ? "complete" : "inProgress";
}

/** Refuses a database whose snapshot import never finished (IncompleteImport). */
export async function assertNoIncompleteImport(store: KvStore): Promise<void> {
  if ((await readImportState(store)) === "inProgress") {
    throw new LedgerNodeError(
      SnapshotErrorCode.IncompleteImport,
      "a snapshot import into this data directory did not finish: empty the directory and start from the snapshot again",
    );
  }
}

/** Deletes every key of the database, in batches. */
async function clearStore(store: KvStore): Promise<void> {
  for (;;) {
    const batch = store.batch();
    for await (const key of store.scanKeys({ prefix: EMPTY, limit: 10_000 })) batch.del(key);
    if (batch.size === 0) return;
    await batch.write({ sync: true });
  }
}

/**
 * Fills the empty database `store` from a full snapshot and an optional delta on top of it.
 * Throws SnapshotError (DatabaseNotEmpty, Truncated, Corrupted, UnsupportedVersion, WrongType,
 * WrongNetwork, NotMergeable, LedgerInconsistent) with the database left empty.
 */
export async function importSnapshot(store: KvStore, options: ImportSnapshotOptions): Promise<ImportedSnapshot> {
  if (!(await store.isEmpty())) {
    await assertNoIncompleteImport(store);
    throw new LedgerNodeError(
      SnapshotErrorCode.DatabaseNotEmpty,
      "the database already holds data: import only into an empty one",
    );
  }

  // 1. verify both files completely, write nothing
  const progress = (phase: ImportProgress["phase"], file: string) => (p: ProgressReport) => {
    const r = options.onProgress?.({ phase, file, ...p });
    if (r) r.catch(() => {});
  };
  const unverified = options.unverified ?? false;
  const full =
    options.verified?.full ??
    (await verifyFullSnapshot(options.fullPath, options.expectedNetworkName, {
      unverified,
      onProgress: progress("verify", options.fullPath),
    }));
  if (full.protocolParameters.networkName !== options.expectedNetworkName) {
    throw new LedgerNodeError(
      SnapshotErrorCode.WrongNetwork,
      `the snapshot is of network "${full.protocolParameters.networkName}"`,
    );
  }
  const deltaPath = options.deltaPath;
  const delta = deltaPath
    ? (options.verified?.delta ??
      (await verifyDeltaSnapshot(deltaPath, full, { unverified, onProgress: progress("verify", deltaPath) })))
    : undefined;

  // 2. write, marked in progress until the last batch
  const nodeState = Repositories.of(store).nodeState;
  const begun = store.batch();
  nodeState.put(begun, NodeStateKey.SnapshotImport, Uint8Array.of(0));
  nodeState.putU32(begun, NodeStateKey.SchemaVersion, IMPORT_IN_PROGRESS_SCHEMA_VERSION);
  nodeState.put(begun, NodeStateKey.NetworkName, new TextEncoder().encode(options.expectedNetworkName));
  await begun.write({ sync: true });
  try {
    // the markers in a table of their own, apart from the ledger's sorted streams (BULK_BATCH_BYTES)
    await store.flushMemtable();
    return await writeImport(store, options, full, delta);
  } catch (e) {
    // 3. leave the database empty again (if even that fails, the marker makes every start refuse it)
    await clearStore(store).catch(() => {});
    if (isSnapshotError(e)) throw e;
    throw new LedgerNodeError(SnapshotErrorCode.WriteFailed, `the snapshot import failed: ${(e as Error).message}`, {
      cause: e,
    });
  }
}

/** What the steps of an import share: the batches, the parameters met, the running total, progress. */
interface ImportRun {
  store: KvStore;
  options: ImportSnapshotOptions;
  out: BatchWriter;
  /** Protocol parameters by the milestone index they apply from. */
  params: Map<number, Uint8Array>;
  /** The sum of the unspent outputs written so far (it must end at the supply). */
  total: bigint;
  /** Where the reader is, reported (and awaited) after each batch written. */
  read: { file: string; bytesRead: number; fileSize: number };
  /** The streamed outputs' Unspent markers and the sink's writes, each in batches of their own (`importFullLedger`). */
  unspent: BatchWriter;
  sinkOut: BatchWriter;
  /** Whether outputs changed after they streamed to the sink (a rollback, a delta). */
  changedAfterSink: boolean;
}

/** The amount of serialized output bytes (type u8, then amount u64; TIP-18). */
const amountOf = (bytes: Uint8Array) => new DataView(bytes.buffer, bytes.byteOffset + 1, 8).getBigUint64(0, true);

/** Steps a-e of the import, the ledger only: the node makes its own secrets (`initDatabase`). */
async function writeImport(
  store: KvStore,
  options: ImportSnapshotOptions,
  full: VerifiedFull,
  delta: VerifiedDelta | undefined,
): Promise<ImportedSnapshot> {
  const header = full.header;
  const run: ImportRun = {
    store,
    options,
    out: new BatchWriter(store, options.batchSize),
    params: new Map([[header.protocolParameters.option.targetMilestoneIndex, header.protocolParameters.option.params]]),
    total: 0n,
    read: { file: options.fullPath, bytesRead: 0, fileSize: 0 },
    unspent: new BatchWriter(store, options.batchSize),
    sinkOut: new BatchWriter(store, options.batchSize),
    changedAfterSink: false,
  };
  try {
    await importFullLedger(run, full);
    let ledgerIndex = header.targetMilestoneIndex;
    let seps = full.solidEntryPoints;
    if (delta && options.deltaPath) {
      await importDelta(run, options.deltaPath, delta);
      ledgerIndex = delta.header.targetMilestoneIndex;
      seps = delta.solidEntryPoints;
    }
    const milestoneId = importMilestones(run, full, delta, seps[0]!);
    // d. the ledger must add up before it is declared complete: the outputs hold what the
    // treasury does not (TIP-34; the receipts of the delta moved funds from one to the other)
    const treasury = delta?.treasury ?? full.treasury;
    const supply = full.protocolParameters.tokenSupply - treasury.amount;
    if (run.total !== supply) {
      throw new LedgerNodeError(
        SnapshotErrorCode.LedgerInconsistent,
        `the imported ledger holds ${run.total}, the token supply outside the treasury is ${supply}`,
      );
    }
    await finishImport(run, full, seps, ledgerIndex, treasury);
    return {
      ledgerIndex,
      pruningIndex: header.targetMilestoneIndex,
      milestoneId,
      protocolParameters: full.protocolParameters,
      treasury,
      outputCount: full.outputCount,
      solidEntryPoints: seps,
      fullHeader: header,
      ...(delta ? { deltaHeader: delta.header } : {}),
      sinkHoldsLedger: options.sink !== undefined && !run.changedAfterSink && delta === undefined,
    };
  } catch (e) {
    // the writes on their way land before the caller clears what was written
    await Promise.allSettled([run.out.drain(), run.unspent.drain(), run.sinkOut.drain()]);
    throw e;
  }
}

/** Reports progress after a batch was written (awaited when the callback returns a promise). */
async function written(run: ImportRun): Promise<void> {
  const r = run.options.onProgress?.({ phase: "import", ...run.read });
  if (r) await r;
}

/** Flushes the current batch once it holds a batch's worth of writes. */
async function flushWhenFull(run: ImportRun): Promise<void> {
  if (!run.out.current.full) return;
  await run.out.flush();
  await written(run);
}

/** Writes the Unspent markers and the sink's entries gathered so far, and waits for them. */
async function flushStreams(run: ImportRun): Promise<void> {
  await run.unspent.flush();
  await run.sinkOut.flush();
  await run.unspent.drain();
  await run.sinkOut.drain();
}

const tracker = (run: ImportRun) => (bytesRead: number, fileSize: number) => {
  run.read.bytesRead = bytesRead;
  run.read.fileSize = fileSize;
};

/**
 * a. The ledger at the full snapshot's ledger index, then rolled back to its target (diffs
 * newest first); the target's own diff (if the file has it) becomes its ledger diff.
 */
async function importFullLedger(run: ImportRun, full: VerifiedFull): Promise<void> {
  const { out, store } = run;
  const db = Repositories.of(store);
  const target = full.header.targetMilestoneIndex;
  const fullRead = await readSnapshot(
    run.options.fullPath,
    {
      output(o) {
        db.outputs.put(out.current, o.outputId, outputRecordOf(o));
        db.unspent.add(run.unspent.current, o.outputId);
        run.options.sink?.add(run.sinkOut.current, o);
        run.total += amountOf(o.outputBytes);
        // a promise only when a batch is full, not one per output
        // each kind of write in batches of its own (BULK_BATCH_BYTES, storage/kvStore.ts): this
        // node's writer walks its ledger in key order, so the Output records and the Unspent
        // markers of its files come in key order, in tables that overlap none; a file in another
        // order loads alike, its tables merged by LevelDB's compactions as they come
        if (out.current.full) return flushWhenFull(run);
        if (run.unspent.current.full) return run.unspent.flush();
        if (run.sinkOut.current.full) return run.sinkOut.flush();
      },
      async diff(d) {
        parameterOptions(d.milestone, run.params);
        const index = d.milestone.index;
        if (index > target) {
          run.changedAfterSink = true;
          await flushStreams(run);
          await out.flush();
          await out.drain(); // the checks read what the batches before wrote
          await checkRollback(db, d);
          // consumed first: an output created and consumed by the same milestone ends up absent
          for (const s of d.consumed) {
            db.outputs.put(out.current, s.output.outputId, outputRecordOf(s.output));
            db.unspent.add(out.current, s.output.outputId);
            run.total += amountOf(s.output.outputBytes);
          }
          for (const o of d.created) {
            db.outputs.del(out.current, o.outputId);
            db.unspent.del(out.current, o.outputId);
            run.total -= amountOf(o.outputBytes);
          }
        } else if (index === target) {
          writeSpentHistory(db, out.current, d);
          putReceipt(db, out.current, d);
        }
        await flushWhenFull(run);
      },
    },
    { expectedType: SnapshotType.Full, decodeOutputs: false, onProgress: tracker(run) },
  );
  checkUnchanged(run.options.fullPath, fullRead.sha256, full.sha256);
  await flushStreams(run);
  await out.flush();
}

/**
 * The receipt of a milestone the imported history keeps (the target's, the delta's), stored as
 * Hornet stores it: the treasury it moved is the verified one (`VerifiedDelta.treasury`).
 */
function putReceipt(db: Repositories, batch: WriteBatch, d: MilestoneDiff): void {
  const receipt = receiptOf(d.milestone);
  if (receipt) db.receipts.put(batch, receipt.migratedAt, d.milestone.index, encodeReceipt(receipt));
}

/** c. The delta's milestones forward: each diff applied to the ledger as confirmation would. */
async function importDelta(run: ImportRun, deltaPath: string, delta: VerifiedDelta): Promise<void> {
  const { out, store } = run;
  run.read.file = deltaPath;
  const deltaRead = await readSnapshot(
    deltaPath,
    {
      async diff(d) {
        await out.drain(); // the diff's checks read what the batches before wrote
        await applyDiff(Repositories.of(store), out.current, d);
        putReceipt(Repositories.of(store), out.current, d);
        for (const o of d.created) run.total += amountOf(o.outputBytes);
        for (const s of d.consumed) run.total -= amountOf(s.output.outputBytes);
        parameterOptions(d.milestone, run.params);
        await out.flush();
        await written(run);
      },
    },
    { expectedType: SnapshotType.Delta, decodeOutputs: false, onProgress: tracker(run) },
  );
  checkUnchanged(deltaPath, deltaRead.sha256, delta.sha256);
}

/** The milestones of this node's history (the target's, then the delta's); returns the last one's ID. */
function importMilestones(
  run: ImportRun,
  full: VerifiedFull,
  delta: VerifiedDelta | undefined,
  entryPoint: Uint8Array,
): Uint8Array {
  const header = full.header;
  const chain: ChainMilestone[] = [];
  if (header.targetMilestoneIndex > 0) {
    chain.push({
      index: header.targetMilestoneIndex,
      milestoneId: header.targetMilestoneId,
      timestamp: header.targetMilestoneTimestamp,
      rebuilt: full.targetMilestone,
    });
  }
  for (const m of delta?.milestones ?? []) chain.push({ ...m, rebuilt: m });
  writeMilestones(
    Repositories.of(run.store),
    run.out.current,
    chain,
    delta ? undefined : full.successorParents,
    entryPoint,
  );
  return chain.length > 0 ? chain[chain.length - 1]!.milestoneId : header.targetMilestoneId;
}

/** e. Entry points, parameters, the ledger's node state with the treasury; the complete marker last. */
async function finishImport(
  run: ImportRun,
  full: VerifiedFull,
  seps: readonly Uint8Array[],
  ledgerIndex: number,
  treasury: TreasuryRecord,
): Promise<void> {
  const db = Repositories.of(run.store);
  const b = run.out.current;
  for (const sep of seps) db.solidEntryPoints.put(b, sep, encodeU32(ledgerIndex));
  for (const [at, bytes] of run.params) db.protocolParameters.put(b, at, bytes);
  // parameters in force from the start of this node's history, where `initDatabase` looks
  if (!run.params.has(0)) {
    db.protocolParameters.put(b, 0, encodeProtocolParameters(full.protocolParameters));
  }
  await run.out.flush(true);
  await run.out.drain();
  const done = run.store.batch();
  db.nodeState.putU32(done, NodeStateKey.LedgerIndex, ledgerIndex);
  db.nodeState.putU32(done, NodeStateKey.PruningIndex, full.header.targetMilestoneIndex);
  db.nodeState.putTreasury(done, treasury);
  db.nodeState.putU32(done, NodeStateKey.SchemaVersion, SCHEMA_VERSION);
  db.nodeState.put(done, NodeStateKey.SnapshotImport, Uint8Array.of(1));
  await done.write({ sync: true });
}

/** The second pass must have read the bytes the first one checked. */
function checkUnchanged(path: string, sha256: string, verified: string): void {
  if (sha256 !== verified) {
    throw new LedgerNodeError(SnapshotErrorCode.Corrupted, `${path} changed while it was being imported`);
  }
}
