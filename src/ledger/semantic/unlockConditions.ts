import { toHex } from "../../codec/hex.js";
import { foundryAliasAddress } from "../../codec/outputs/foundryOutput.js";
import { type Address, OutputType, UnlockConditionType } from "../../codec/types.js";
import { findUnlockCondition } from "../../codec/unlockConditions.js";
import { ConflictReason } from "../conflictReason.js";
import { conflict } from "./conflict.js";
import type { LedgerOutput, WorkingSet } from "./workingSet.js";

/**
 * TIP-18 unlock conditions evaluated at the confirming milestone's unix timestamp.
 */

/**
 * Timelock: an input is locked while the milestone timestamp is before `Unix Time`; it unlocks
 * at that second exactly.
 */
export function verifyTimelocks(ws: WorkingSet): void {
  const now = ws.ctx.milestoneTimestamp;
  for (let i = 0; i < ws.inputs.length; i++) {
    const timelock = findUnlockCondition(ws.inputs[i]!.unlockConditions, UnlockConditionType.Timelock);
    if (timelock !== undefined && now < timelock.unixTime) {
      conflict(
        ConflictReason.TimelockNotExpired,
        `input ${i} is timelocked until ${timelock.unixTime}, milestone timestamp is ${now}`,
      );
    }
  }
}

/**
 * Expiration: from `Unix Time` on (milestone timestamp ≥ it) only the return address unlocks
 * the output; before, only the owner. Returns the return address once expired.
 */
export function expiredReturnAddress(output: LedgerOutput, now: number): Address | undefined {
  const expiration = findUnlockCondition(output.unlockConditions, UnlockConditionType.Expiration);
  return expiration !== undefined && expiration.unixTime <= now ? expiration.returnAddress : undefined;
}

/**
 * The address whose unlock input `inputIndex` needs:
 * - basic and NFT outputs: the Address unlock condition, or the expiration's return address once
 *   expired;
 * - foundries: the Immutable Alias Address;
 * - aliases: decided by the next state (TIP-18 Alias Output): none (destruction) or the same
 *   state index (governance transition) needs the governor, a state index one higher (state
 *   transition) the state controller; any other next state index is an invalid transition.
 */
export function unlockingAddress(ws: WorkingSet, inputIndex: number): Address {
  const output = ws.inputs[inputIndex]!;
  switch (output.type) {
    case OutputType.Alias: {
      const stateController = findUnlockCondition(output.unlockConditions, UnlockConditionType.StateControllerAddress);
      const governor = findUnlockCondition(output.unlockConditions, UnlockConditionType.GovernorAddress);
      if (stateController === undefined || governor === undefined) {
        return conflict(ConflictReason.SemanticValidationFailed, `alias input ${inputIndex} lacks its controllers`);
      }
      const current = ws.inputChains[inputIndex]!;
      const next = ws.outChains.get(current.key);
      if (next === undefined || next.kind !== "alias") return governor.address;
      if (next.output.stateIndex === output.stateIndex) return governor.address;
      if (next.output.stateIndex === output.stateIndex + 1) return stateController.address;
      return conflict(
        ConflictReason.InvalidChainStateTransition,
        `alias ${toHex(current.id)}: state index ${output.stateIndex} cannot become ${next.output.stateIndex}`,
      );
    }
    case OutputType.Foundry:
      return foundryAliasAddress(output);
    default: {
      const address = findUnlockCondition(output.unlockConditions, UnlockConditionType.Address);
      if (address === undefined) {
        return conflict(ConflictReason.SemanticValidationFailed, `input ${inputIndex} has no address unlock condition`);
      }
      return expiredReturnAddress(output, ws.ctx.milestoneTimestamp) ?? address.address;
    }
  }
}
