import { CodecErrorCode, codecError } from "./errors.js";
import { toHex } from "./hex.js";
import { networkIdFromName } from "./ids.js";
import { validateOutput } from "./outputs/validateOutput.js";
import { MAX_TAG_LENGTH } from "./taggedData.js";
import { MAX_INPUTS_COUNT, MAX_OUTPUTS_COUNT } from "./transactionEssence.js";
import {
  EssenceType,
  InputType,
  type Output,
  OutputType,
  PayloadType,
  type ProtocolParameters,
  SignatureType,
  type TaggedDataPayload,
  type TransactionPayload,
  type Unlock,
  UnlockType,
} from "./types.js";

/**
 * Syntactic validation of transaction and tagged data payloads (TIP-20, TIP-23): the rules a
 * node checks on receipt, given its protocol parameters, before any ledger lookup. Decoding
 * already enforced the structure; these rules are re-checked here where cheap, since payloads
 * are also built in memory (wallet, coordinator, tests). Failures are CodecError SyntacticRule
 * (StorageDeposit for outputs short of their deposit) naming the field.
 */

/** Max Native Token Count (TIP-22/32): distinct native tokens a transaction may touch. */
export const MAX_NATIVE_TOKEN_COUNT_PER_TRANSACTION = 64;

export function rule(field: string, reason: string): never {
  throw codecError(CodecErrorCode.SyntacticRule, field, reason);
}

/** TIP-23: `length(Tag)` ≤ Max Tag Length (64). */
export function validateTaggedDataSyntax(p: TaggedDataPayload, field = "taggedData"): void {
  if (p.type !== PayloadType.TaggedData) rule(`${field}.type`, `expected tagged data payload type 5, got ${p.type}`);
  if (p.tag.length > MAX_TAG_LENGTH)
    rule(`${field}.tag`, `tag is ${p.tag.length} bytes, the limit is ${MAX_TAG_LENGTH}`);
}

/** TIP-20 syntactic validation of a transaction payload. */
export function validateTransactionSyntax(
  tx: TransactionPayload,
  params: ProtocolParameters,
  field = "transaction",
): void {
  const e = tx.essence;
  const ef = `${field}.essence`;
  // 1. Essence type and replay protection.
  if (e.type !== EssenceType.Regular) rule(`${ef}.type`, "transaction essence type must be 1");
  const networkId = networkIdFromName(params.networkName);
  if (e.networkId !== networkId) {
    rule(`${ef}.networkId`, `network ID ${e.networkId} is not ${networkId} (network "${params.networkName}")`);
  }
  // 2. Inputs: 1..128 UTXO inputs, output index < Max Outputs Count, each output once.
  if (e.inputs.length < 1 || e.inputs.length > MAX_INPUTS_COUNT) rule(`${ef}.inputs`, "inputs count must be 1..128");
  const seen = new Set<string>();
  e.inputs.forEach((input, i) => {
    const f = `${ef}.inputs[${i}]`;
    if (input.type !== InputType.Utxo) rule(`${f}.type`, "a transaction takes UTXO inputs only");
    if (input.transactionOutputIndex >= MAX_OUTPUTS_COUNT) {
      rule(`${f}.transactionOutputIndex`, `output index must be < ${MAX_OUTPUTS_COUNT}`);
    }
    const key = `${toHex(input.transactionId)}${input.transactionOutputIndex}`;
    if (seen.has(key)) rule(f, "input references the same output as an earlier input");
    seen.add(key);
  });
  // 3. Outputs: 1..128, each valid on its own, amounts within the supply, ≤ 64 distinct tokens.
  if (e.outputs.length < 1 || e.outputs.length > MAX_OUTPUTS_COUNT)
    rule(`${ef}.outputs`, "outputs count must be 1..128");
  let total = 0n;
  e.outputs.forEach((o, i) => {
    const f = `${ef}.outputs[${i}]`;
    if (o.type === OutputType.Treasury) rule(`${f}.type`, "a transaction cannot create a treasury output");
    validateOutput(o, params, f);
    total += o.amount;
  });
  if (total > params.tokenSupply)
    rule(`${ef}.outputs`, `outputs hold ${total}, more than the supply ${params.tokenSupply}`);
  checkNativeTokenCount([e.outputs], `${ef}.outputs`);
  // 4. Optional payload: tagged data only.
  if (e.payload !== undefined) {
    if (e.payload.type !== PayloadType.TaggedData) rule(`${ef}.payload.type`, "an essence carries tagged data only");
    validateTaggedDataSyntax(e.payload, `${ef}.payload`);
  }
  // 5. Unlocks: one per input, signatures unique, references pointing backwards.
  if (tx.unlocks.length !== e.inputs.length) {
    rule(`${field}.unlocks`, `${tx.unlocks.length} unlocks for ${e.inputs.length} inputs`);
  }
  validateUnlocksSyntax(tx.unlocks, `${field}.unlocks`);
}

/**
 * Distinct native token IDs over the given output lists must not exceed 64 (TIP-20). Syntactic
 * validation passes the created outputs; semantic validation passes consumed and created.
 */
export function checkNativeTokenCount(outputLists: readonly (readonly Output[])[], field: string): void {
  const ids = new Set<string>();
  for (const outputs of outputLists) {
    for (const o of outputs) {
      if (o.type === OutputType.Treasury) continue;
      for (const t of o.nativeTokens) ids.add(toHex(t.id));
    }
  }
  if (ids.size > MAX_NATIVE_TOKEN_COUNT_PER_TRANSACTION) {
    rule(field, `${ids.size} distinct native tokens, the limit is ${MAX_NATIVE_TOKEN_COUNT_PER_TRANSACTION}`);
  }
}

/**
 * Unlock list rules (TIP-20, as Hornet applies them):
 * - a signature unlock holds an Ed25519 signature and no other signature unlock repeats it;
 * - a reference unlock at i points to a signature unlock at an index < i;
 * - an alias or NFT unlock at i points to any unlock at an index < i (they may chain).
 */
export function validateUnlocksSyntax(unlocks: readonly Unlock[], field: string): void {
  const signatures = new Set<string>();
  unlocks.forEach((u, i) => {
    const f = `${field}[${i}]`;
    switch (u.type) {
      case UnlockType.Signature: {
        if (u.signature.type !== SignatureType.Ed25519) rule(`${f}.signature.type`, "signature must be Ed25519");
        const key = toHex(u.signature.publicKey) + toHex(u.signature.signature);
        if (signatures.has(key)) rule(`${f}.signature`, "signature unlock repeats an earlier one");
        signatures.add(key);
        return;
      }
      case UnlockType.Reference:
        if (u.reference >= i) rule(`${f}.reference`, `must reference an earlier unlock (< ${i})`);
        if (unlocks[u.reference]!.type !== UnlockType.Signature) {
          rule(`${f}.reference`, `unlock ${u.reference} is not a signature unlock`);
        }
        return;
      case UnlockType.Alias:
      case UnlockType.Nft:
        if (u.reference >= i) rule(`${f}.reference`, `must reference an earlier unlock (< ${i})`);
        return;
      default:
        rule(`${f}.type`, `unknown unlock type ${(u as { type: number }).type}`);
    }
  });
}
