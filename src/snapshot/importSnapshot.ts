import { randomBytes } from "node:crypto";
import { encodeProtocolParameters } from "../codec/protocolParameters.js";
import type { ProtocolParameters } from "../codec/types.js";
import {
  Bucket,
  encodeU32,
  idKey,
  indexKey,
  type KvStore,
  NodeStateKey,
  nodeStateKey,
  SCHEMA_VERSION,
} from "../storage/index.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { isSnapshotError, SnapshotErrorCode } from "./errors.js";
import { readSnapshot } from "./fileReader.js";
import { type DeltaSnapshotHeader, type FullSnapshotHeader, outputRecordOf, SnapshotType } from "./format.js";
import {
  applyDiff,
  BatchWriter,
  type ChainMilestone,
  checkRollback,
  parameterOptions,
  writeMilestones,
  writeSpentHistory,
} from "./importWrites.js";
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
 * delta's milestones with their ledger diffs, the solid entry points, the protocol parameters
 * and the NodeState entries (network, ledger index, pruning index, secrets).
 *
 * 1. Both files are read and checked completely first (`verifySnapshot.ts`); a damaged,
 *    foreign or mismatched file is refused before anything is written.
 * 2. The first write marks the import as in progress, with a schema version no node accepts;
 *    then the ledger goes in, in bounded batches; the last write sets the real schema version
 *    and the "complete" marker. A crash in between leaves a directory every start refuses.
 * 3. A failure during the writes removes what was written, so the database is empty again.
 */

/** NodeState entry of an import: u8 0 while in progress, 1 once complete. */
export const SNAPSHOT_IMPORT_STATE_KEY = idKey(Bucket.NodeState, new TextEncoder().encode("snapshotImport"));
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
  /** The coordinator's Ed25519 seed; a node holding the snapshot's coordinator key continues its chain. Default: fresh. */
  coordinatorSeed?: Uint8Array;
  /** HS256 secret for the API's JWTs. Default: fresh. */
  jwtSecret?: Uint8Array;
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
}

export interface ImportedSnapshot {
  /** The ledger index of the filled database: the delta's target, else the full snapshot's. */
  ledgerIndex: number;
  /** The lowest milestone with data: the full snapshot's target. */
  pruningIndex: number;
  milestoneId: Uint8Array;
  protocolParameters: ProtocolParameters;
  outputCount: number;
  solidEntryPoints: Uint8Array[];
  fullHeader: FullSnapshotHeader;
  deltaHeader?: DeltaSnapshotHeader;
}

const EMPTY = new Uint8Array(0);

/** Whether an import began in this database and whether it finished. */
export async function readImportState(store: KvStore): Promise<ImportState> {
  const v = await store.get(SNAPSHOT_IMPORT_STATE_KEY);
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

async function isEmpty(store: KvStore): Promise<boolean> {
  for await (const _key of store.scanKeys({ prefix: EMPTY, limit: 1 })) return false;
  return true;
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
  if (!(await isEmpty(store))) {
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
  const full =
    options.verified?.full ??
    (await verifyFullSnapshot(options.fullPath, options.expectedNetworkName, progress("verify", options.fullPath)));
  if (full.protocolParameters.networkName !== options.expectedNetworkName) {
    throw new LedgerNodeError(
      SnapshotErrorCode.WrongNetwork,
      `the snapshot is of network "${full.protocolParameters.networkName}"`,
    );
  }
  const deltaPath = options.deltaPath;
  const delta = deltaPath
    ? (options.verified?.delta ?? (await verifyDeltaSnapshot(deltaPath, full.header, progress("verify", deltaPath))))
    : undefined;

  // 2. write, marked in progress until the last batch
  await store
    .batch()
    .put(SNAPSHOT_IMPORT_STATE_KEY, Uint8Array.of(0))
    .put(nodeStateKey(NodeStateKey.SchemaVersion), encodeU32(IMPORT_IN_PROGRESS_SCHEMA_VERSION))
    .put(nodeStateKey(NodeStateKey.NetworkName), new TextEncoder().encode(options.expectedNetworkName))
    .write({ sync: true });
  try {
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

async function writeImport(
  store: KvStore,
  options: ImportSnapshotOptions,
  full: VerifiedFull,
  delta: VerifiedDelta | undefined,
): Promise<ImportedSnapshot> {
  const header = full.header;
  const target = header.targetMilestoneIndex;
  const outputOps = 2 * Math.max(1, options.batchSize ?? 1000);
  const out = new BatchWriter(store);
  const params = new Map<number, Uint8Array>([
    [header.protocolParameters.option.targetMilestoneIndex, header.protocolParameters.option.params],
  ]);
  let total = 0n;
  const amount = (bytes: Uint8Array) => new DataView(bytes.buffer, bytes.byteOffset + 1, 8).getBigUint64(0, true);
  /** Where the reader is, reported (and awaited) after each batch written. */
  const read = { file: options.fullPath, bytesRead: 0, fileSize: 0 };
  const track = (bytesRead: number, fileSize: number) => {
    read.bytesRead = bytesRead;
    read.fileSize = fileSize;
  };
  const written = async () => {
    const r = options.onProgress?.({ phase: "import", ...read });
    if (r) await r;
  };

  // a. the ledger at the ledger index, then rolled back to the target (diffs newest first);
  //    the target's own diff (if the file has it) becomes the target milestone's ledger diff
  const fullRead = await readSnapshot(
    options.fullPath,
    {
      async output(o) {
        out.current
          .put(idKey(Bucket.Output, o.outputId), outputRecordOf(o))
          .put(idKey(Bucket.Unspent, o.outputId), EMPTY);
        total += amount(o.outputBytes);
        if (out.current.size >= outputOps) {
          await out.flush();
          await written();
        }
      },
      async diff(d) {
        parameterOptions(d.milestone, params);
        const index = d.milestone.index;
        if (index > target) {
          await out.flush();
          await out.drain(); // the checks read what the batches before wrote
          await checkRollback(store, d);
          // consumed first: an output created and consumed by the same milestone ends up absent
          for (const s of d.consumed) {
            out.current
              .put(idKey(Bucket.Output, s.output.outputId), outputRecordOf(s.output))
              .put(idKey(Bucket.Unspent, s.output.outputId), EMPTY);
            total += amount(s.output.outputBytes);
          }
          for (const o of d.created) {
            out.current.del(idKey(Bucket.Output, o.outputId)).del(idKey(Bucket.Unspent, o.outputId));
            total -= amount(o.outputBytes);
          }
        } else if (index === target) {
          writeSpentHistory(out.current, d);
        }
        if (out.current.size >= outputOps) {
          await out.flush();
          await written();
        }
      },
    },
    { expectedType: SnapshotType.Full, decodeOutputs: false, onProgress: track },
  );
  checkUnchanged(options.fullPath, fullRead.sha256, full.sha256);

  await out.flush();

  // c. the delta's milestones forward: each diff applied to the ledger as confirmation would
  let ledgerIndex = target;
  let seps = full.solidEntryPoints;
  if (delta && options.deltaPath) {
    read.file = options.deltaPath;
    const deltaRead = await readSnapshot(
      options.deltaPath,
      {
        async diff(d) {
          await out.drain(); // the diff's checks read what the batches before wrote
          await applyDiff(store, out.current, d);
          for (const o of d.created) total += amount(o.outputBytes);
          for (const s of d.consumed) total -= amount(s.output.outputBytes);
          parameterOptions(d.milestone, params);
          await out.flush();
          await written();
        },
      },
      { expectedType: SnapshotType.Delta, decodeOutputs: false, onProgress: track },
    );
    checkUnchanged(options.deltaPath, deltaRead.sha256, delta.sha256);
    ledgerIndex = delta.header.targetMilestoneIndex;
    seps = delta.solidEntryPoints;
  }

  // the milestones of this node's history: the target's, then the delta's
  const chain: ChainMilestone[] = [];
  if (target > 0) {
    chain.push({
      index: target,
      milestoneId: header.targetMilestoneId,
      timestamp: header.targetMilestoneTimestamp,
      rebuilt: full.targetMilestone,
    });
  }
  for (const m of delta?.milestones ?? []) chain.push({ ...m, rebuilt: m });
  writeMilestones(out.current, chain, delta ? undefined : full.successorParents, seps[0]!);
  const milestoneId = chain.length > 0 ? chain[chain.length - 1]!.milestoneId : header.targetMilestoneId;

  // d. the ledger must add up before it is declared complete
  const supply = full.protocolParameters.tokenSupply - header.treasuryOutputAmount;
  if (total !== supply) {
    throw new LedgerNodeError(
      SnapshotErrorCode.LedgerInconsistent,
      `the imported ledger holds ${total}, the token supply outside the treasury is ${supply}`,
    );
  }

  // e. entry points, parameters, node state; the complete marker last
  const b = out.current;
  for (const sep of seps) b.put(idKey(Bucket.SolidEntryPoint, sep), encodeU32(ledgerIndex));
  for (const [at, bytes] of params) b.put(indexKey(Bucket.ProtocolParameters, at), bytes);
  // parameters in force from the start of this node's history, where `initDatabase` looks
  if (!params.has(0)) b.put(indexKey(Bucket.ProtocolParameters, 0), encodeProtocolParameters(full.protocolParameters));
  await out.flush(true);
  await out.drain();
  await store
    .batch()
    .put(nodeStateKey(NodeStateKey.LedgerIndex), encodeU32(ledgerIndex))
    .put(nodeStateKey(NodeStateKey.PruningIndex), encodeU32(target))
    .put(nodeStateKey(NodeStateKey.CoordinatorSeed), options.coordinatorSeed ?? new Uint8Array(randomBytes(32)))
    .put(nodeStateKey(NodeStateKey.JwtSecret), options.jwtSecret ?? new Uint8Array(randomBytes(32)))
    .put(nodeStateKey(NodeStateKey.SchemaVersion), encodeU32(SCHEMA_VERSION))
    .put(SNAPSHOT_IMPORT_STATE_KEY, Uint8Array.of(1))
    .write({ sync: true });
  return {
    ledgerIndex,
    pruningIndex: target,
    milestoneId,
    protocolParameters: full.protocolParameters,
    outputCount: full.outputCount,
    solidEntryPoints: seps,
    fullHeader: header,
    ...(delta ? { deltaHeader: delta.header } : {}),
  };
}

/** The second pass must have read the bytes the first one checked. */
function checkUnchanged(path: string, sha256: string, verified: string): void {
  if (sha256 !== verified) {
    throw new LedgerNodeError(SnapshotErrorCode.Corrupted, `${path} changed while it was being imported`);
  }
}
