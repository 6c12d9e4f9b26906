import { outputIdFromParts } from "../codec/ids.js";
import { MAX_OUTPUTS_COUNT } from "../codec/transactionEssence.js";
import {
  AddressType,
  type BasicOutput,
  type Ed25519Address,
  type Output,
  OutputType,
  UnlockConditionType,
} from "../codec/types.js";
import type { GenesisOutput } from "../network/index.js";

/**
 * A network's genesis ledger: one basic output per allocation, owned by the allocation's
 * Ed25519 address, with the zero transaction ID and the allocation's position as output index
 * (the form of the dev genesis, whose one allocation is output 0). Every node of the network
 * writes it itself from the network's description, so all start from the same outputs.
 */

/** One genesis allocation: tokens for an Ed25519 address. */
export interface Allocation {
  address: Ed25519Address;
  amount: bigint;
}

/** Genesis outputs at most: an output index is below 128 (TIP-20's outputs count). */
export const MAX_ALLOCATIONS = MAX_OUTPUTS_COUNT;

export const ZERO_TRANSACTION_ID = new Uint8Array(32);

export function allocationOutput(a: Allocation): BasicOutput {
  return {
    type: OutputType.Basic,
    amount: a.amount,
    nativeTokens: [],
    unlockConditions: [{ type: UnlockConditionType.Address, address: a.address }],
    features: [],
  };
}

/** The Ed25519 address a genesis output belongs to, when it is an allocation's form. */
export function allocationOwner(o: Output): Ed25519Address | undefined {
  if (o.type !== OutputType.Basic || o.unlockConditions.length !== 1) return undefined;
  if (o.nativeTokens.length > 0 || o.features.length > 0) return undefined;
  const uc = o.unlockConditions[0]!;
  return uc.type === UnlockConditionType.Address && uc.address.type === AddressType.Ed25519 ? uc.address : undefined;
}

export function genesisOutputs(allocations: readonly Allocation[]): GenesisOutput[] {
  return allocations.map((a, i) => ({
    outputId: outputIdFromParts(ZERO_TRANSACTION_ID, i),
    output: allocationOutput(a),
  }));
}
