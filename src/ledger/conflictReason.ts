/**
 * Why a referenced transaction was not applied to the ledger: the `conflictReason` byte Hornet
 * stores in block metadata and reports at `GET /api/core/v2/blocks/{blockId}/metadata`
 * (Hornet `pkg/model/storage` `Conflict`, the Stardust list TIP-25 documents). The numbers are
 * wire values: never renumber them.
 *
 * Codes 1–3 concern the UTXO set and are decided by the white-flag walk, which knows what is
 * spent; semantic validation of a transaction against its consumed outputs yields the others.
 */
export const ConflictReason = {
  /** The block carries no transaction, or its transaction was applied. */
  None: 0,
  /** An input references an output that an earlier milestone already spent. */
  InputUtxoAlreadySpent: 1,
  /** An input references an output that an earlier transaction of the same milestone spent. */
  InputUtxoAlreadySpentInThisMilestone: 2,
  /** An input references an output that is not in the ledger. */
  InputUtxoNotFound: 3,
  /** The sum of the input amounts differs from the sum of the output amounts. */
  InputOutputSumMismatch: 4,
  /** A signature unlock does not verify, or its public key does not hash to the input's address. */
  InvalidSignature: 5,
  /** An input carries a timelock that has not expired at the confirming milestone's timestamp. */
  TimelockNotExpired: 6,
  /** Native tokens are unbalanced without a foundry to mint or melt them, or too many or too large. */
  InvalidNativeTokens: 7,
  /** The outputs do not return the storage deposit a consumed output demands to its return address. */
  ReturnAmountNotFulfilled: 8,
  /** An unlock has the wrong kind or references the wrong input for the address that owns the input. */
  InvalidInputUnlock: 9,
  /** The essence's inputs commitment does not commit to the consumed outputs. */
  InvalidInputsCommitment: 10,
  /** An output's sender feature names an address the transaction does not unlock. */
  InvalidSender: 11,
  /** An alias, foundry or NFT transition (creation, state change, destruction) breaks a TIP-18 rule. */
  InvalidChainStateTransition: 12,
  /** Any other semantic rule failed (e.g. an output below its storage deposit). */
  SemanticValidationFailed: 255,
} as const;

/** One of the conflict reason codes. */
export type ConflictReason = (typeof ConflictReason)[keyof typeof ConflictReason];
