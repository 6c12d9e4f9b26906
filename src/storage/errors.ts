import { errorGuard, type LedgerNodeError } from "../util/ledgerNodeError.js";

/** Storage errors: the database could not be opened, holds what this node cannot use, or refuses writes. */
export const StorageErrorCode = {
  /** LevelDB could not open the directory (locked by another process, permissions, corruption). */
  OpenFailed: "STORAGE_OPEN_FAILED",
  /** A stored value does not have the layout its bucket documents. */
  CorruptValue: "STORAGE_CORRUPT_VALUE",
  /** The data directory belongs to another network or another schema version. */
  IncompatibleDatabase: "STORAGE_INCOMPATIBLE_DATABASE",
  /** Writes fail (a full disk, an I/O error): the node takes no blocks until it is restarted. */
  WriteFailed: "STORAGE_WRITE_FAILED",
} as const;
export type StorageErrorCode = (typeof StorageErrorCode)[keyof typeof StorageErrorCode];

/** An error of this layer: the one error class with one of its codes. */
export type StorageError = LedgerNodeError<StorageErrorCode>;
export const isStorageError = errorGuard<StorageError>(StorageErrorCode);
