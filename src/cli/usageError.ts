import { isLedgerNodeError, LedgerNodeError } from "../util/ledgerNodeError.js";

/** Why the command line was refused. */
export const CliErrorCode = {
  /** A flag, value or argument the command does not take (the message says which). */
  Usage: "CLI_USAGE",
} as const;
export type CliErrorCode = (typeof CliErrorCode)[keyof typeof CliErrorCode];

/** The command line is wrong: runCommand prints the message and exits with 2. */
export function usageError(message: string): LedgerNodeError<CliErrorCode> {
  return new LedgerNodeError(CliErrorCode.Usage, message);
}

export function isUsageError(e: unknown): e is LedgerNodeError<CliErrorCode> {
  return isLedgerNodeError(e, CliErrorCode, CliErrorCode.Usage);
}
