import { minStorageDeposit, minStorageDepositForReturn, minStorageDepositForSize } from "../../codec/storageDeposit.js";
import { UnlockConditionType } from "../../codec/types.js";
import { findUnlockCondition } from "../../codec/unlockConditions.js";
import { ConflictReason } from "../conflictReason.js";
import { conflict } from "./conflict.js";
import type { WorkingSet } from "./workingSet.js";

/**
 * TIP-19 storage deposit of every created output under the rent structure in force at the
 * confirming milestone, and the TIP-18 bounds of a Storage Deposit Return:
 * minimum deposit of a basic return output ≤ Return Amount ≤ Amount.
 * Hornet rejects such a transaction before confirmation, so it has no conflict reason of its
 * own here: a failure is SemanticValidationFailed.
 */
export function verifyStorageDeposits(ws: WorkingSet): void {
  const rent = ws.ctx.protocolParameters.rentStructure;
  const sizes = ws.ctx.precomputed?.outputBytes;
  for (let i = 0; i < ws.outputs.length; i++) {
    const output = ws.outputs[i]!;
    const min = sizes ? minStorageDepositForSize(sizes[i]!.length, rent) : minStorageDeposit(output, rent);
    if (output.amount < min) {
      conflict(
        ConflictReason.SemanticValidationFailed,
        `output ${i} holds ${output.amount}, its storage deposit is ${min}`,
      );
    }
    const sdr = findUnlockCondition(output.unlockConditions, UnlockConditionType.StorageDepositReturn);
    if (sdr === undefined) continue;
    const minReturn = minStorageDepositForReturn(sdr.returnAddress, rent);
    if (sdr.amount < minReturn || sdr.amount > output.amount) {
      conflict(
        ConflictReason.SemanticValidationFailed,
        `output ${i}: return amount ${sdr.amount} is outside [${minReturn}, ${output.amount}]`,
      );
    }
  }
}
