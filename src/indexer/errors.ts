import { errorGuard, type LedgerNodeError } from "../util/ledgerNodeError.js";

/** Why the indexer could not answer; the API answers 500 with the message as the reason. */
export const IndexerErrorCode = {
  /** The indexes have not been built yet (or have another layout version). */
  NotReady: "INDEXER_NOT_READY",
  /** The ledger moved on during every attempt to read a consistent answer. */
  Busy: "INDEXER_BUSY",
  /** An index entry does not decode: the database is damaged. */
  Corrupt: "INDEXER_CORRUPT",
  /**
   * A chunk a list's directory names is not stored: a milestone rewrote the list between the two
   * reads (the reader retries), or the index is damaged (when the ledger did not move).
   */
  ListMoved: "INDEXER_LIST_MOVED",
  /** A past ledger asked for is newer than the ledger, or further back than one request may roll it back. */
  LedgerIndexOutOfRange: "INDEXER_LEDGER_INDEX_OUT_OF_RANGE",
  /** A past ledger asked for needs history that is pruned (or was pruned while it was read). */
  HistoryPruned: "INDEXER_HISTORY_PRUNED",
  /**
   * An address's balance depends on more conditional entries than one read examines
   * (MAX_CONDITIONAL_READ, addressConditionals.ts): it is not computed rather than computed wrong.
   */
  TooManyConditional: "INDEXER_TOO_MANY_CONDITIONAL",
} as const;
export type IndexerErrorCode = (typeof IndexerErrorCode)[keyof typeof IndexerErrorCode];

/** An error of this layer: the one error class with one of its codes. */
export type IndexerError = LedgerNodeError<IndexerErrorCode>;
export const isIndexerError = errorGuard<IndexerError>(IndexerErrorCode);
