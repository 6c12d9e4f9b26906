import { addressToBech32 } from "../../codec/address.js";
import { type Address, OutputType, UnlockConditionType } from "../../codec/types.js";
import { findUnlockCondition } from "../../codec/unlockConditions.js";
import { ConflictReason } from "../conflictReason.js";
import { conflict } from "./conflict.js";
import { addressKey } from "./keys.js";
import type { WorkingSet } from "./workingSet.js";

/**
 * IOTA coin balance (TIP-20) and Storage Deposit Return (TIP-18):
 * 1. the input amounts sum to the output amounts;
 * 2. per return address, the return amounts of the consumed outputs are paid back by basic
 *    outputs with only an Address unlock condition on that address, no native tokens and no
 *    features. An input unlocked by its return address itself (an expired output reclaimed)
 *    owes nothing.
 */
export function verifyBalances(ws: WorkingSet): void {
  let inSum = 0n;
  const owed = new Map<string, { address: Address; amount: bigint }>();
  for (let i = 0; i < ws.inputs.length; i++) {
    const input = ws.inputs[i]!;
    inSum += input.amount;
    const sdr = findUnlockCondition(input.unlockConditions, UnlockConditionType.StorageDepositReturn);
    if (sdr === undefined) continue;
    const key = addressKey(sdr.returnAddress);
    if (ws.unlocked.unlockedBy(i, key)) continue;
    const entry = owed.get(key);
    if (entry === undefined) owed.set(key, { address: sdr.returnAddress, amount: sdr.amount });
    else entry.amount += sdr.amount;
  }

  let outSum = 0n;
  const returned = new Map<string, bigint>();
  for (const output of ws.outputs) {
    outSum += output.amount;
    if (
      output.type === OutputType.Basic &&
      output.unlockConditions.length === 1 &&
      output.features.length === 0 &&
      output.nativeTokens.length === 0
    ) {
      const address = findUnlockCondition(output.unlockConditions, UnlockConditionType.Address);
      if (address === undefined) continue;
      const key = addressKey(address.address);
      returned.set(key, (returned.get(key) ?? 0n) + output.amount);
    }
  }

  // 1. coins
  if (inSum !== outSum) {
    conflict(ConflictReason.InputOutputSumMismatch, `inputs hold ${inSum}, outputs ${outSum}`);
  }

  // 2. storage deposit returns
  for (const [key, { address, amount }] of owed) {
    const paid = returned.get(key) ?? 0n;
    if (paid < amount) {
      const bech32 = addressToBech32(address, ws.ctx.protocolParameters.bech32Hrp);
      conflict(
        ConflictReason.ReturnAmountNotFulfilled,
        `${amount} must return to ${bech32}, the outputs return ${paid}`,
      );
    }
  }
}
