import { isCodecError } from "../../codec/errors.js";
import type { TransactionPayload } from "../../codec/types.js";
import { ConflictReason } from "../conflictReason.js";
import { isLedgerError, LedgerErrorCode } from "../errors.js";
import type { SemanticValidationContext, SemanticValidationResult } from "./types.js";
import { verifyTimelocks } from "./unlockConditions.js";
import { verifyBalances } from "./verifyBalances.js";
import { verifyChainTransitions } from "./verifyChainTransitions.js";
import { verifyInputUnlocks } from "./verifyInputUnlocks.js";
import { verifyNativeTokens } from "./verifyNativeTokens.js";
import { verifySenders } from "./verifySenders.js";
import { verifyStorageDeposits } from "./verifyStorageDeposits.js";
import { buildWorkingSet } from "./workingSet.js";

const OK: SemanticValidationResult = { ok: true };

/**
 * Semantic validation of a transaction payload at milestone confirmation (TIP-20 with the
 * TIP-18 output rules and TIP-19 storage deposit). Pure: everything it needs is in `ctx`; the
 * caller has resolved the inputs against the UTXO set (conflict reasons 1–3 are its own).
 *
 * The steps run in the order Hornet runs them, so that a transaction breaking several rules
 * gets the conflict reason Hornet would report for it:
 * 1. storage deposits (Hornet rejects these before confirmation),
 * 2. timelocks, 3. inputs commitment and unlocks, 4. sender features, 5. coin balance and
 * storage deposit returns, 6. native tokens, 7. chain transitions.
 *
 * An object the codec cannot encode (a rule syntactic validation should have caught) fails
 * with SemanticValidationFailed. Throws LedgerError(InvalidContext) when `ctx` does not
 * describe the transaction.
 */
export function validateTransaction(tx: TransactionPayload, ctx: SemanticValidationContext): SemanticValidationResult {
  try {
    const ws = buildWorkingSet(tx, ctx);
    verifyStorageDeposits(ws);
    verifyTimelocks(ws);
    verifyInputUnlocks(ws);
    verifySenders(ws);
    verifyBalances(ws);
    verifyNativeTokens(ws);
    verifyChainTransitions(ws);
    return OK;
  } catch (e) {
    if (isLedgerError(e, LedgerErrorCode.TransactionConflict)) {
      return { ok: false, conflictReason: e.data!.conflictReason!, details: e.message };
    }
    if (isCodecError(e))
      return { ok: false, conflictReason: ConflictReason.SemanticValidationFailed, details: e.message };
    throw e;
  }
}
