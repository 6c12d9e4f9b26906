/** Storage errors: the database could not be opened, or holds what this node cannot use. */
export enum StorageErrorCode {
  /** LevelDB could not open the directory (locked by another process, permissions, corruption). */
  OpenFailed = "STORAGE_OPEN_FAILED",
  /** A stored value does not have the layout its bucket documents. */
  CorruptValue = "STORAGE_CORRUPT_VALUE",
  /** The data directory belongs to another network or another schema version. */
  IncompatibleDatabase = "STORAGE_INCOMPATIBLE_DATABASE",
}

export class StorageError extends Error {
  readonly code: StorageErrorCode;
  constructor(code: StorageErrorCode, message: string) {
    super(message);
    this.name = "StorageError";
    this.code = code;
  }
}
