import { ConflictReason } from "../../../src/ledger/conflictReason";

/**
 * The conflict reason of block metadata in words. The codes are the node's own
 * (src/ledger/conflictReason.ts, the Stardust list of TIP-25 and Hornet's `Conflict`); keyed by
 * them, so a code added there fails this file's type check until it has words here.
 */
const WORDS: Record<ConflictReason, string> = {
  [ConflictReason.None]: "no conflict",
  [ConflictReason.InputUtxoAlreadySpent]: "an input was already spent by an earlier milestone",
  [ConflictReason.InputUtxoAlreadySpentInThisMilestone]:
    "an input was already spent by another transaction confirmed by the same milestone",
  [ConflictReason.InputUtxoNotFound]: "an input references an output that is not in the ledger",
  [ConflictReason.InputOutputSumMismatch]: "the inputs' and the outputs' amounts do not add up to the same sum",
  [ConflictReason.InvalidSignature]: "a signature does not verify, or its key does not own the input",
  [ConflictReason.TimelockNotExpired]: "an input is still timelocked",
  [ConflictReason.InvalidNativeTokens]: "the native tokens do not balance, or there are too many of them",
  [ConflictReason.ReturnAmountNotFulfilled]: "a storage deposit an input demands back is not returned",
  [ConflictReason.InvalidInputUnlock]: "an input is unlocked the wrong way",
  [ConflictReason.InvalidInputsCommitment]: "the inputs commitment does not match the inputs",
  [ConflictReason.InvalidSender]: "a sender feature names an address the transaction does not unlock",
  [ConflictReason.InvalidChainStateTransition]: "an alias, foundry or NFT transition breaks the rules",
  [ConflictReason.SemanticValidationFailed]: "the transaction failed semantic validation",
};

/** The words for a conflict reason code, or what is known when the code is not one. */
export function conflictReasonWords(code: number): string {
  return (WORDS as Record<number, string>)[code] ?? `unknown conflict reason ${code}`;
}
