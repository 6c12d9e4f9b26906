import { aliasAddressOf, nftAddressOf } from "../../codec/address.js";
import { bytesEqual, toHex } from "../../codec/hex.js";
import {
  aliasIdFromOutputId,
  essenceSigningHash,
  nftIdFromOutputId,
  outputIdFromParts,
  outputIdOfInput,
} from "../../codec/ids.js";
import { foundryId } from "../../codec/outputs/foundryOutput.js";
import {
  type AliasOutput,
  type BasicOutput,
  type FoundryOutput,
  type NftOutput,
  OutputType,
  type TransactionPayload,
} from "../../codec/types.js";
import { LedgerNodeError } from "../../util/ledgerNodeError.js";
import { ConflictReason } from "../conflictReason.js";
import { LedgerErrorCode } from "../errors.js";
import { conflict } from "./conflict.js";
import { addressKey, tokenKey } from "./keys.js";
import type { SemanticValidationContext } from "./types.js";
import { UnlockedIdentities } from "./unlockedIdentities.js";

/** An output a transaction may consume or create (treasury outputs are neither). */
export type LedgerOutput = BasicOutput | AliasOutput | FoundryOutput | NftOutput;

/**
 * One state of a chain (TIP-18 "Chain Constraint in UTXO"): an alias, NFT or foundry output with
 * its resolved ID (a zero alias/NFT ID resolved from the output ID), its key and its position
 * among the inputs or outputs.
 */
export type ChainState =
  | { kind: "alias"; key: string; id: Uint8Array; index: number; output: AliasOutput }
  | { kind: "nft"; key: string; id: Uint8Array; index: number; output: NftOutput }
  | { kind: "foundry"; key: string; id: Uint8Array; index: number; output: FoundryOutput };

/** A native token balance over one side of a transaction. */
export interface TokenSum {
  id: Uint8Array;
  amount: bigint;
}

/** What the validation steps share; each step reads it and some add to it. */
export interface WorkingSet {
  tx: TransactionPayload;
  ctx: SemanticValidationContext;
  /** The consumed outputs in input order. */
  inputs: LedgerOutput[];
  /** The outputs the transaction creates. */
  outputs: LedgerOutput[];
  /** BLAKE2b-256 of the serialized essence: the message every signature unlock signs. */
  signingHash: Uint8Array;
  /** Chains on the input side (current states), by chain key. */
  inChains: Map<string, ChainState>;
  /** The chain state of each input, by input index (undefined for basic outputs). */
  inputChains: (ChainState | undefined)[];
  /** Chains on the output side (next states), by chain key. */
  outChains: Map<string, ChainState>;
  /** Identities unlocked by the inputs; filled by the unlock step. */
  unlocked: UnlockedIdentities;
  /** Native token sums over inputs and outputs by token key; filled by the native token step. */
  inTokens: Map<string, TokenSum>;
  outTokens: Map<string, TokenSum>;
}

/** True for an all-zero ID (an alias or NFT not created yet). */
export function isZero(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) if (bytes[i] !== 0) return false;
  return true;
}

/**
 * The chain state an output represents, if any. A zero alias/NFT ID is resolved to
 * BLAKE2b-256(outputId): for a consumed output that is its implicit ID (TIP-18), for a created
 * one the ID the new chain will be known by.
 */
function chainStateOf(output: LedgerOutput, outputId: Uint8Array, index: number): ChainState | undefined {
  switch (output.type) {
    case OutputType.Alias: {
      const id = isZero(output.aliasId) ? aliasIdFromOutputId(outputId) : output.aliasId;
      return { kind: "alias", key: addressKey(aliasAddressOf(id)), id, index, output };
    }
    case OutputType.Nft: {
      const id = isZero(output.nftId) ? nftIdFromOutputId(outputId) : output.nftId;
      return { kind: "nft", key: addressKey(nftAddressOf(id)), id, index, output };
    }
    case OutputType.Foundry: {
      const id = foundryId(output);
      return { kind: "foundry", key: tokenKey(id), id, index, output };
    }
    default:
      return undefined;
  }
}

function addChain(chains: Map<string, ChainState>, state: ChainState | undefined, side: string): void {
  if (state === undefined) return;
  if (chains.has(state.key)) {
    conflict(
      ConflictReason.InvalidChainStateTransition,
      `${state.kind} ${toHex(state.id)} occurs twice among the ${side}`,
    );
  }
  chains.set(state.key, state);
}

/**
 * Checks that `ctx` describes `tx` (a mismatch is the caller's error, thrown as LedgerError),
 * then indexes inputs and outputs for the validation steps.
 */
export function buildWorkingSet(tx: TransactionPayload, ctx: SemanticValidationContext): WorkingSet {
  const essence = tx.essence;
  // 1. the context: a 32-byte transaction ID, and per input the consumed output with its output ID
  if (ctx.transactionId.length !== 32) {
    throw new LedgerNodeError(
      LedgerErrorCode.InvalidContext,
      `transaction ID has ${ctx.transactionId.length} bytes, not 32`,
    );
  }
  if (ctx.inputs.length !== essence.inputs.length) {
    throw new LedgerNodeError(
      LedgerErrorCode.InvalidContext,
      `the transaction has ${essence.inputs.length} inputs but ${ctx.inputs.length} consumed outputs were given`,
    );
  }
  const inputs: LedgerOutput[] = [];
  for (let i = 0; i < ctx.inputs.length; i++) {
    const input = essence.inputs[i]!;
    const consumed = ctx.inputs[i]!;
    if (!bytesEqual(consumed.outputId, outputIdOfInput(input))) {
      throw new LedgerNodeError(
        LedgerErrorCode.InvalidContext,
        `consumed output ${i} has ID ${toHex(consumed.outputId)}, which input ${i} does not reference`,
      );
    }
    const output = consumed.output;
    if (output.type === OutputType.Treasury) {
      conflict(ConflictReason.SemanticValidationFailed, `input ${i} references a treasury output`);
    }
    inputs.push(output);
  }

  // 2. one unlock per input (a syntactic rule, checked again because unlocks are indexed by input)
  if (tx.unlocks.length !== inputs.length) {
    conflict(
      ConflictReason.SemanticValidationFailed,
      `the transaction has ${inputs.length} inputs but ${tx.unlocks.length} unlocks`,
    );
  }

  // 3. chains on both sides; a chain may occur once per side
  const outputs: LedgerOutput[] = [];
  const inChains = new Map<string, ChainState>();
  const outChains = new Map<string, ChainState>();
  const inputChains: (ChainState | undefined)[] = [];
  for (let i = 0; i < inputs.length; i++) {
    const state = chainStateOf(inputs[i]!, ctx.inputs[i]!.outputId, i);
    inputChains.push(state);
    addChain(inChains, state, "inputs");
  }
  for (let i = 0; i < essence.outputs.length; i++) {
    const output = essence.outputs[i]!;
    if (output.type === OutputType.Treasury) {
      conflict(ConflictReason.SemanticValidationFailed, `output ${i} is a treasury output`);
    }
    outputs.push(output);
    addChain(outChains, chainStateOf(output, outputIdFromParts(ctx.transactionId, i), i), "outputs");
  }

  return {
    tx,
    ctx,
    inputs,
    outputs,
    signingHash: ctx.precomputed?.signingHash ?? essenceSigningHash(essence),
    inChains,
    inputChains,
    outChains,
    unlocked: new UnlockedIdentities(),
    inTokens: new Map(),
    outTokens: new Map(),
  };
}
