import { errorGuard, LedgerNodeError } from "../util/ledgerNodeError.js";
import type { ConflictReason } from "./conflictReason.js";

/**
 * Ledger errors. A transaction that breaks a rule is not an error of the node: validation
 * returns its conflict reason. Errors are for callers that break the ledger's contract (a
 * validation context that does not describe the transaction); `TransactionConflictError` carries
 * a conflict between the rule that found it and the function that turns it into a result.
 */
export const LedgerErrorCode = {
  /** The validation context does not describe the transaction (consumed output count or IDs). */
  InvalidContext: "LEDGER_INVALID_CONTEXT",
  /** The transaction breaks a semantic rule; `conflictReason` says which. */
  TransactionConflict: "LEDGER_TRANSACTION_CONFLICT",
  /** A milestone's past cone misses a block (white-flag needs a solid cone). */
  ConeNotSolid: "LEDGER_CONE_NOT_SOLID",
} as const;
export type LedgerErrorCode = (typeof LedgerErrorCode)[keyof typeof LedgerErrorCode];

/** An error of this layer: the one error class with one of its codes. */
export type LedgerError = LedgerNodeError<
  LedgerErrorCode,
  { conflictReason?: ConflictReason; missingBlockId?: Uint8Array } | undefined
>;
export const isLedgerError = errorGuard<LedgerError>(LedgerErrorCode);

/** A semantic rule failed: `conflictReason` says which, the message is the detail. */
export function transactionConflict(conflictReason: ConflictReason, details: string): LedgerError {
  return new LedgerNodeError(LedgerErrorCode.TransactionConflict, details, { conflictReason });
}
