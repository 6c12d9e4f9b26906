import { errorGuard, type LedgerNodeError } from "../util/ledgerNodeError.js";

/**
 * Snapshot errors: every failure to read, write or import a TIP-35 file is a `SnapshotError`
 * with a string code and a human reason. The API maps codes to statuses in one place:
 * `BadIndex`, `NoFullSnapshot`, `NotMergeable` → 400, `Pruned` → 404, `WriteFailed` and
 * `LedgerInconsistent` → 500.
 */
export const SnapshotErrorCode = {
  /** The file does not exist or cannot be opened. */
  Unreadable: "SNAPSHOT_UNREADABLE",
  /** The file ends before a field the header or a length prefix promised. */
  Truncated: "SNAPSHOT_TRUNCATED",
  /** A field holds a value no valid file can hold (bad type byte, bad length, undecodable output, checksum). */
  Corrupted: "SNAPSHOT_CORRUPTED",
  /** The file format version is not 2 (TIP-35). */
  UnsupportedVersion: "SNAPSHOT_UNSUPPORTED_VERSION",
  /** A full snapshot was expected and a delta found, or the other way round. */
  WrongType: "SNAPSHOT_WRONG_TYPE",
  /**
   * A milestone of the file does not carry valid signatures by the keys it names (TIP-29); a
   * file whose milestones are not to be verified (test files, `--snapshot-unverified`) is
   * imported with `unverified`.
   */
  Unverified: "SNAPSHOT_UNVERIFIED",
  /** The snapshot belongs to another network than the node runs. */
  WrongNetwork: "SNAPSHOT_WRONG_NETWORK",
  /** The delta snapshot does not build on the full snapshot it is paired with. */
  NotMergeable: "SNAPSHOT_NOT_MERGEABLE",
  /** An import was asked into a database that already holds data. */
  DatabaseNotEmpty: "SNAPSHOT_DATABASE_NOT_EMPTY",
  /** A previous import stopped half-way (crash or failure): the data directory must be emptied. */
  IncompleteImport: "SNAPSHOT_INCOMPLETE_IMPORT",
  /** The requested index is 0, not an integer, newer than the ledger, or a delta at or below its full snapshot. */
  BadIndex: "SNAPSHOT_BAD_INDEX",
  /** The data the snapshot needs is below the pruning horizon. */
  Pruned: "SNAPSHOT_PRUNED",
  /** A delta snapshot was asked but no full snapshot exists to base it on. */
  NoFullSnapshot: "SNAPSHOT_NO_FULL_SNAPSHOT",
  /** The node's own ledger does not add up (a sum differs from the token supply, a record is missing). */
  LedgerInconsistent: "SNAPSHOT_LEDGER_INCONSISTENT",
  /** Writing the file failed (disk full, permissions); the partial file was removed. */
  WriteFailed: "SNAPSHOT_WRITE_FAILED",
} as const;
export type SnapshotErrorCode = (typeof SnapshotErrorCode)[keyof typeof SnapshotErrorCode];

/** An error of this layer: the one error class with one of its codes. */
export type SnapshotError = LedgerNodeError<SnapshotErrorCode>;
export const isSnapshotError = errorGuard<SnapshotError>(SnapshotErrorCode);
