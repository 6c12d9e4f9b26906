import { serializeAddressBytes } from "../codec/address.js";
import { decodeOutput } from "../codec/outputs/output.js";
import { type Address, OutputType, UnlockConditionType } from "../codec/types.js";
import { IndexedField, type Indexer } from "../indexer/index.js";
import type { OutputRecord } from "../storage/index.js";
import type { FaucetInput } from "./transaction.js";

/**
 * What an address can spend as the faucet spends (inx-faucet asks the indexer for basic outputs
 * without expiration, timelock or storage deposit return): the faucet's own inputs, and a
 * requester's balance as inx-faucet counts it.
 */

/** Outputs one balance read looks at at most (the requester's, the faucet's own). */
export const BALANCE_PAGE = 1000;

/** What the reads need of the node: the indexer's listings and the output records. */
export interface OwnOutputsDeps {
  indexer: Pick<Indexer, "outputs">;
  outputs: { getMany(ids: readonly Uint8Array[]): Promise<(OutputRecord | undefined)[]> };
}

/**
 * The basic outputs of `address` without conditions, up to BALANCE_PAGE of them, oldest
 * first; `withoutTokens`: only those without native tokens (what the faucet can spend).
 */
export async function spendableOutputs(
  deps: OwnOutputsDeps,
  address: Address,
  withoutTokens: boolean,
): Promise<{ inputs: FaucetInput[]; total: bigint }> {
  const page = await deps.indexer.outputs({
    type: OutputType.Basic,
    fields: [{ field: IndexedField.Address, value: serializeAddressBytes(address) }],
    ...(withoutTokens ? { hasNativeTokens: false } : {}),
    hasStorageDepositReturn: false,
    hasExpiration: false,
    hasTimelock: false,
    pageSize: BALANCE_PAGE,
  });
  const records = await deps.outputs.getMany(page.items);
  const inputs: FaucetInput[] = [];
  let total = 0n;
  records.forEach((record, i) => {
    const input = record && spendableInput(page.items[i]!, record, withoutTokens);
    if (!input) return;
    inputs.push(input);
    total += input.amount;
  });
  return { inputs, total };
}

/**
 * `record` as an input the faucet can spend: unspent, a basic output whose one unlock condition
 * is its address; `withoutTokens`: no native tokens either (a remainder would have to carry them).
 */
export function spendableInput(
  outputId: Uint8Array,
  record: OutputRecord,
  withoutTokens: boolean,
): FaucetInput | undefined {
  if (record.spent) return undefined;
  const output = decodeOutput(record.outputBytes);
  if (output.type !== OutputType.Basic || output.unlockConditions.length !== 1) return undefined;
  if (output.unlockConditions[0]!.type !== UnlockConditionType.Address) return undefined;
  if (withoutTokens && output.nativeTokens.length > 0) return undefined;
  return { outputId, amount: output.amount, outputBytes: record.outputBytes };
}
