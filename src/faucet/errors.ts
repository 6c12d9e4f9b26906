import { errorGuard, type LedgerNodeError } from "../util/ledgerNodeError.js";

/**
 * Why the faucet refused a request (the API maps each code to a status; the messages are
 * inx-faucet's user-facing texts where it has one, `pkg/faucet/faucet.go`).
 */
export const FaucetErrorCode = {
  /** The address is not bech32, or not of this network's human-readable part. */
  InvalidAddress: "FAUCET_INVALID_ADDRESS",
  /** A request for the address is queued or in the faucet's pending transaction. */
  AlreadyQueued: "FAUCET_ALREADY_QUEUED",
  /** The address already holds at least `maxAddressBalance` (inx-faucet's rule). */
  EnoughFunds: "FAUCET_ENOUGH_FUNDS",
  /** The address asked again before its period was over. */
  AddressRateLimited: "FAUCET_ADDRESS_RATE_LIMITED",
  /** The client (its IP address) sent more requests than its limit allows. */
  ClientRateLimited: "FAUCET_CLIENT_RATE_LIMITED",
  /** The queue holds `queueSize` requests: try later. */
  QueueFull: "FAUCET_QUEUE_FULL",
  /** The faucet's balance, less what the queue will pay, is below the amount: try later. */
  NoFunds: "FAUCET_NO_FUNDS",
  /** The node is not synced or not healthy, so the faucet takes no requests: try later. */
  NotHealthy: "FAUCET_NOT_HEALTHY",
  /** The faucet's options break a rule (amount below the storage deposit, batch size out of range). */
  InvalidOptions: "FAUCET_INVALID_OPTIONS",
  /** Its transaction was referenced as conflicting, or will never be referenced: its requests are queued again. */
  TransactionNotIncluded: "FAUCET_TRANSACTION_NOT_INCLUDED",
  /** Its outputs cannot pay one request: the queued requests are dropped (inx-faucet ignores them). */
  CannotPay: "FAUCET_CANNOT_PAY",
  /** The intake refused its block, or the faucet stopped before submitting it: the requests are queued again. */
  NotSubmitted: "FAUCET_NOT_SUBMITTED",
} as const;
export type FaucetErrorCode = (typeof FaucetErrorCode)[keyof typeof FaucetErrorCode];

/** An error of this layer: the one error class with one of its codes. */
export type FaucetError = LedgerNodeError<FaucetErrorCode>;
export const isFaucetError = errorGuard<FaucetError>(FaucetErrorCode);
