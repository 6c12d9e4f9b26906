// Public surface of the snapshot layer: TIP-35 files written from and imported into the database.
export * from "./errors.js";
export {
  type ReadSnapshotOptions,
  readChecksumFile,
  readSnapshot,
  readSnapshotHeader,
  type SnapshotReadResult,
  type SnapshotVisitor,
} from "./fileReader.js";
export { CHECKSUM_SUFFIX, SnapshotFileWriter, sha256OfFile } from "./fileWriter.js";
export * from "./format.js";
export {
  assertNoIncompleteImport,
  IMPORT_IN_PROGRESS_SCHEMA_VERSION,
  type ImportedSnapshot,
  type ImportProgress,
  type ImportSink,
  type ImportSnapshotOptions,
  type ImportState,
  importSnapshot,
  readImportState,
} from "./importSnapshot.js";
export { LedgerView } from "./ledgerView.js";
export {
  type DeltaSnapshotResult,
  type FullSnapshotResult,
  SnapshotManager,
  type SnapshotManagerDeps,
  type SnapshotRequest,
} from "./manager.js";
export * from "./options.js";
export * from "./treasury.js";
export {
  milestoneBlockBytes,
  type VerifiedDelta,
  type VerifiedFull,
  type VerifySnapshotOptions,
  verifyDeltaSnapshot,
  verifyFullSnapshot,
} from "./verifySnapshot.js";
export {
  type DeltaBase,
  milestoneDiffFromStore,
  type WrittenSnapshot,
  writeDeltaSnapshot,
  writeFullSnapshot,
} from "./writeSnapshot.js";
