import type { ConflictReason } from "./conflictReason.js";

/**
 * Ledger errors. A transaction that breaks a rule is not an error of the node: validation
 * returns its conflict reason. Errors are for callers that break the ledger's contract (a
 * validation context that does not describe the transaction); `TransactionConflictError` carries
 * a conflict between the rule that found it and the function that turns it into a result.
 */
export enum LedgerErrorCode {
  /** The validation context does not describe the transaction (consumed output count or IDs). */
  InvalidContext = "LEDGER_INVALID_CONTEXT",
  /** The transaction breaks a semantic rule; `conflictReason` says which. */
  TransactionConflict = "LEDGER_TRANSACTION_CONFLICT",
}

export class LedgerError extends Error {
  readonly code: LedgerErrorCode;

  constructor(code: LedgerErrorCode, message: string) {
    super(message);
    this.name = "LedgerError";
    this.code = code;
  }
}

/** A semantic rule failed; `message` is the human-readable detail. */
export class TransactionConflictError extends LedgerError {
  readonly conflictReason: ConflictReason;

  constructor(conflictReason: ConflictReason, details: string) {
    super(LedgerErrorCode.TransactionConflict, details);
    this.name = "TransactionConflictError";
    this.conflictReason = conflictReason;
  }
}

export function isLedgerError(e: unknown): e is LedgerError {
  return e instanceof LedgerError;
}
