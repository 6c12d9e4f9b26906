import { errorGuard, type LedgerNodeError } from "../util/ledgerNodeError.js";

/** Why the spammer refused a command (the API maps each code to a status). */
export const SpammerErrorCode = {
  /** A start setting is out of its range or of the wrong type (the message names it). */
  InvalidSettings: "SPAMMER_INVALID_SETTINGS",
  /** Value spam was asked for, but the node has no funded key for the spammer (`--spammer-key-file`, a dev account). */
  NoFundedKey: "SPAMMER_NO_FUNDED_KEY",
  /** The intake rejected one of the spammer's blocks (logged; never answered to a client). */
  BlockRefused: "SPAMMER_BLOCK_REFUSED",
} as const;
export type SpammerErrorCode = (typeof SpammerErrorCode)[keyof typeof SpammerErrorCode];

/** An error of this layer: the one error class with one of its codes. */
export type SpammerError = LedgerNodeError<SpammerErrorCode>;
export const isSpammerError = errorGuard<SpammerError>(SpammerErrorCode);
