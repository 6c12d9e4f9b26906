import { essenceSigningHash, inputsCommitmentFromBytes, utxoInputOfOutputId } from "../codec/ids.js";
import { minStorageDepositForReturn } from "../codec/storageDeposit.js";
import {
  type Address,
  type BasicOutput,
  OutputType,
  PayloadType,
  type RentStructure,
  type TransactionPayload,
  UnlockConditionType,
} from "../codec/types.js";
import { type Ed25519KeyPair, ed25519Sign } from "../crypto/ed25519.js";
import { MAX_TRANSACTION_INPUTS } from "./options.js";

/**
 * The faucet's transaction (TIP-20), built as inx-faucet's `buildTransactionPayload` does:
 * the faucet's unspent basic outputs in, one basic output of `amount` per request (an address
 * unlock condition only) and the remainder back to the faucet out, a tagged-data payload, one
 * signature unlock and references to it.
 */

/** One of the faucet's unspent basic outputs (address unlock condition only, no native tokens). */
export interface FaucetInput {
  outputId: Uint8Array;
  amount: bigint;
  /** Its serialized bytes, for the inputs commitment. */
  outputBytes: Uint8Array;
}

/** What one transaction can do with the inputs at hand. */
export interface BatchPlan {
  /** The inputs it spends, a prefix of those offered. */
  inputs: FaucetInput[];
  /** How many of the requests (the first ones) it pays. */
  served: number;
  /** Back to the faucet: 0, or at least the storage deposit of a basic output. */
  remainder: bigint;
}

/**
 * The storage deposit (TIP-19) of a basic output with only an address unlock condition: what
 * each payment and the remainder must at least hold. Every address kind serializes to 33 bytes,
 * so one figure serves them all.
 */
export function basicOutputDeposit(address: Address, rent: RentStructure): bigint {
  return minStorageDepositForReturn(address, rent);
}

/**
 * Pays as many of `requests` as the inputs cover: the fewest leading inputs whose sum reaches
 * `served × amount` and leaves a remainder of 0 or at least `minDeposit` (a smaller remainder
 * could not stand as an output of its own). Undefined when not even one request can be paid.
 */
export function planBatch(
  inputs: readonly FaucetInput[],
  requests: number,
  amount: bigint,
  minDeposit: bigint,
  maxInputs = MAX_TRANSACTION_INPUTS,
): BatchPlan | undefined {
  const usable = inputs.slice(0, maxInputs);
  const sums: bigint[] = [];
  let total = 0n;
  for (const input of usable) {
    total += input.amount;
    sums.push(total);
  }
  for (let served = requests; served >= 1; served--) {
    const need = BigInt(served) * amount;
    const first = sums.findIndex((s) => s >= need);
    if (first < 0) continue;
    // one more input turns a remainder too small to stand into one that can
    for (const k of [first, first + 1]) {
      if (k >= sums.length) break;
      const remainder = sums[k]! - need;
      if (remainder === 0n || remainder >= minDeposit) return { inputs: usable.slice(0, k + 1), served, remainder };
    }
  }
  return undefined;
}

/**
 * `plan` with more of `inputs` gathered into its remainder, up to `maxInputs` in all: the outputs
 * a crowded faucet address holds (dust others sent it) are spent along with a payment, so they
 * cannot pile up in front of the faucet's funds (faucet.ts, `CROWDED`). Each gathered output holds
 * at least its own storage deposit, so the remainder stays one that can stand.
 */
export function gatherInputs(
  plan: BatchPlan,
  inputs: readonly FaucetInput[],
  maxInputs = MAX_TRANSACTION_INPUTS,
): BatchPlan {
  const taken = new Set(plan.inputs);
  const gathered = [...plan.inputs];
  let remainder = plan.remainder;
  for (const input of inputs) {
    if (gathered.length >= maxInputs) break;
    if (taken.has(input)) continue;
    gathered.push(input);
    remainder += input.amount;
  }
  return { inputs: gathered, served: plan.served, remainder };
}

/** A transaction that pays nobody: the first `maxInputs` of `inputs` gathered into one output. */
export function sweepPlan(inputs: readonly FaucetInput[], maxInputs = MAX_TRANSACTION_INPUTS): BatchPlan {
  return gatherInputs({ inputs: [], served: 0, remainder: 0n }, inputs, maxInputs);
}

function basicOutput(address: Address, amount: bigint): BasicOutput {
  return {
    type: OutputType.Basic,
    amount,
    nativeTokens: [],
    unlockConditions: [{ type: UnlockConditionType.Address, address }],
    features: [],
  };
}

export interface FaucetTransactionParams {
  networkId: bigint;
  keyPair: Ed25519KeyPair;
  /** The faucet's own address: the remainder goes there. */
  faucetAddress: Address;
  plan: BatchPlan;
  /** One per paid request, in queue order. */
  recipients: readonly Address[];
  amount: bigint;
  /** The tagged-data payload's tag (UTF-8, at most 64 bytes). */
  tag: string;
}

/** The signed transaction paying `recipients` `amount` each, the remainder last. */
export function buildFaucetTransaction(p: FaucetTransactionParams): TransactionPayload {
  const outputs = p.recipients.map((address) => basicOutput(address, p.amount));
  if (p.plan.remainder > 0n) outputs.push(basicOutput(p.faucetAddress, p.plan.remainder));
  const essence = {
    type: 1 as const,
    networkId: p.networkId,
    inputs: p.plan.inputs.map((i) => utxoInputOfOutputId(i.outputId)),
    inputsCommitment: inputsCommitmentFromBytes(p.plan.inputs.map((i) => i.outputBytes)),
    outputs,
    payload: { type: PayloadType.TaggedData, tag: new TextEncoder().encode(p.tag), data: new Uint8Array(0) },
  };
  const signature = ed25519Sign(p.keyPair, essenceSigningHash(essence));
  return {
    type: PayloadType.Transaction,
    essence,
    unlocks: p.plan.inputs.map((_, i) =>
      i === 0
        ? { type: 0 as const, signature: { type: 0 as const, publicKey: p.keyPair.publicKey, signature } }
        : { type: 1 as const, reference: 0 },
    ),
  };
}
