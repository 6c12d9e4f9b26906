import { bytesEqual, toHex } from "../codec/hex.js";
import { migratedAmount } from "../codec/milestoneOptions.js";
import { MilestoneOptionType, type MilestonePayload, type ReceiptMilestoneOption } from "../codec/types.js";
import type { TreasuryRecord } from "../storage/index.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { type SnapshotError, SnapshotErrorCode } from "./errors.js";
import { amountOfOutputBytes, type MilestoneDiff, type TreasuryInput } from "./format.js";

/**
 * The treasury (TIP-34) as snapshot files move it. A full snapshot's header holds the treasury
 * output at its ledger index; a milestone with a receipt consumes the treasury output (its diff
 * carries that treasury input, TIP-35) and makes a new one, its treasury transaction's output,
 * named by the milestone's own ID (as Hornet's `MilestoneDiff.TreasuryOutput`). The funds it
 * migrates are outputs the diff creates, so the diff's created outputs exceed its consumed ones
 * by exactly what left the treasury. Rolling a receipt milestone back (a full snapshot's diffs
 * above its target) puts the consumed treasury output back.
 */

function corrupted(reason: string): SnapshotError {
  return new LedgerNodeError(SnapshotErrorCode.Corrupted, reason);
}

/** The receipt a milestone carries, if any (TIP-29: each option type at most once). */
export function receiptOf(milestone: MilestonePayload): ReceiptMilestoneOption | undefined {
  return milestone.options.find((o): o is ReceiptMilestoneOption => o.type === MilestoneOptionType.Receipt);
}

/** The treasury output a receipt milestone makes: its treasury transaction's output, under its own ID. */
export function treasuryMadeBy(receipt: ReceiptMilestoneOption, milestoneId: Uint8Array): TreasuryRecord {
  return { milestoneId, amount: receipt.transaction.output.amount };
}

/**
 * The treasury output a receipt consumed, from the receipt alone: the milestone its treasury
 * input names, and the new output's amount plus what it migrated (TIP-34: the treasury
 * transaction's output is its input less the migrated funds). The snapshot writer puts it into
 * the diff; a node that applied the receipt can always rebuild it.
 */
export function treasuryInputOf(receipt: ReceiptMilestoneOption): TreasuryInput {
  return {
    milestoneId: receipt.transaction.input.milestoneId,
    amount: receipt.transaction.output.amount + migratedAmount(receipt),
  };
}

const describe = (t: { milestoneId: Uint8Array; amount: bigint }) => `${t.amount} of milestone ${toHex(t.milestoneId)}`;

/**
 * The rules a diff with a receipt must keep, on its own: it carries the treasury input its
 * receipt names, the receipt moves out of the treasury exactly what it migrates, and the diff
 * creates that much more than it consumes. A diff without a receipt creates what it consumes.
 */
export function checkDiffBalance(d: MilestoneDiff, field: string): void {
  let created = 0n;
  let consumed = 0n;
  for (const o of d.created) created += amountOfOutputBytes(o.outputBytes);
  for (const s of d.consumed) consumed += amountOfOutputBytes(s.output.outputBytes);
  const index = d.milestone.index;
  const receipt = receiptOf(d.milestone);
  if (!receipt || !d.treasuryInput) {
    if (created !== consumed)
      throw corrupted(`${field}: milestone ${index} creates ${created} and consumes ${consumed}`);
    return;
  }
  const input = d.treasuryInput;
  if (!bytesEqual(input.milestoneId, receipt.transaction.input.milestoneId)) {
    throw corrupted(
      `${field}: milestone ${index}'s treasury input is of milestone ${toHex(input.milestoneId)}, its receipt spends the treasury of ${toHex(receipt.transaction.input.milestoneId)}`,
    );
  }
  const migrated = migratedAmount(receipt);
  if (input.amount - receipt.transaction.output.amount !== migrated) {
    throw corrupted(
      `${field}: milestone ${index}'s receipt takes ${input.amount - receipt.transaction.output.amount} out of the treasury and migrates ${migrated}`,
    );
  }
  if (created - consumed !== migrated) {
    throw corrupted(
      `${field}: milestone ${index} creates ${created} and consumes ${consumed}, its receipt migrates ${migrated}`,
    );
  }
}

/** A receipt milestone applied forward: it must spend the treasury as it is; returns the new one. */
export function applyReceiptToTreasury(
  current: TreasuryRecord,
  d: MilestoneDiff,
  milestoneId: Uint8Array,
  field: string,
): TreasuryRecord {
  const receipt = receiptOf(d.milestone);
  if (!receipt || !d.treasuryInput) return current;
  const input = d.treasuryInput;
  if (!bytesEqual(input.milestoneId, current.milestoneId) || input.amount !== current.amount) {
    throw corrupted(
      `${field}: milestone ${d.milestone.index} spends the treasury ${describe(input)}, the treasury is ${describe(current)}`,
    );
  }
  return treasuryMadeBy(receipt, milestoneId);
}

/** A receipt milestone rolled back: the treasury must be the one it made; returns the one it spent. */
export function rollBackReceiptFromTreasury(
  current: TreasuryRecord,
  d: MilestoneDiff,
  milestoneId: Uint8Array,
  field: string,
): TreasuryRecord {
  const receipt = receiptOf(d.milestone);
  if (!receipt || !d.treasuryInput) return current;
  const made = treasuryMadeBy(receipt, milestoneId);
  if (!bytesEqual(made.milestoneId, current.milestoneId) || made.amount !== current.amount) {
    throw corrupted(
      `${field}: milestone ${d.milestone.index} made the treasury ${describe(made)}, the ledger's is ${describe(current)}`,
    );
  }
  return { milestoneId: d.treasuryInput.milestoneId, amount: d.treasuryInput.amount };
}
