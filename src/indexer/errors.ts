/** Why the indexer could not answer; the API answers 500 with the message as the reason. */
export enum IndexerErrorCode {
  /** The indexes have not been built yet (or have another layout version). */
  NotReady = "INDEXER_NOT_READY",
  /** The ledger moved on during every attempt to read a consistent answer. */
  Busy = "INDEXER_BUSY",
  /** An index entry does not decode: the database is damaged. */
  Corrupt = "INDEXER_CORRUPT",
}

export class IndexerError extends Error {
  readonly code: IndexerErrorCode;
  constructor(code: IndexerErrorCode, message: string) {
    super(message);
    this.name = "IndexerError";
    this.code = code;
  }
}
