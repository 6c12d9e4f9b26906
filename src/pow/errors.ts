import { errorGuard, type LedgerNodeError } from "../util/ledgerNodeError.js";

/**
 * Proof-of-work errors. Every failure of scoring or mining is a `PowError` with a string code,
 * so the API can map codes to HTTP statuses in one place (`Disabled` becomes 503) and tests
 * assert codes, never messages.
 */
export const PowErrorCode = {
  /** PoW was requested from a node configured with zero PoW workers. */
  Disabled: "POW_DISABLED",
  /** The pool already holds as many calls as the caller allows (a queue bound); try later. */
  Busy: "POW_BUSY",
  /** The caller's AbortSignal fired before a nonce was found. */
  Aborted: "POW_ABORTED",
  /** The worker count is not a non-negative integer. */
  InvalidWorkers: "POW_INVALID_WORKERS",
  /** The target score cannot be reached: it needs more trailing zeros than a 243-trit hash has. */
  UnreachableTarget: "POW_UNREACHABLE_TARGET",
  /** A digest is not 32 bytes, a nonce is not a u64, or a block is too short to hold a nonce. */
  InvalidInput: "POW_INVALID_INPUT",
  /** A mining worker thread failed or exited before answering. */
  WorkerFailed: "POW_WORKER_FAILED",
  /** The miner's thread pool was closed while the request was running. */
  PoolClosed: "POW_POOL_CLOSED",
  /** A worker reported a nonce that the scalar scorer does not confirm (a hasher bug). */
  NonceRejected: "POW_NONCE_REJECTED",
} as const;
export type PowErrorCode = (typeof PowErrorCode)[keyof typeof PowErrorCode];

/** An error of this layer: the one error class with one of its codes. */
export type PowError = LedgerNodeError<PowErrorCode>;
export const isPowError = errorGuard<PowError>(PowErrorCode);
