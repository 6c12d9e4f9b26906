/**
 * Builds consumed outputs and signed transactions for semantic validation tests: wallets from
 * named seeds, output constructors with defaults that satisfy the syntactic rules, and a
 * transaction builder that computes the inputs commitment and the unlocks (a signature the
 * first time a wallet unlocks an input, a reference to it afterwards).
 */
import assert from "node:assert/strict";
import { aliasAddressOf, ed25519AddressOf, nftAddressOf } from "../../src/codec/address.js";
import {
  aliasIdFromOutputId,
  computeFoundryId,
  computeTransactionId,
  essenceSigningHash,
  inputsCommitment,
  nftIdFromOutputId,
  outputIdFromParts,
  utxoInputOfOutputId,
} from "../../src/codec/ids.js";
import {
  type Address,
  type AliasAddress,
  type AliasOutput,
  type BasicOutput,
  type Ed25519Address,
  EssenceType,
  type Feature,
  type FoundryOutput,
  type NativeToken,
  type NftOutput,
  type Output,
  OutputType,
  PayloadType,
  type ProtocolParameters,
  SignatureType,
  type TransactionPayload,
  type Unlock,
  type UnlockCondition,
  UnlockConditionType,
  UnlockType,
} from "../../src/codec/types.js";
import { blake2b256, type Ed25519KeyPair, ed25519KeyPairFromSeed, ed25519Sign } from "../../src/crypto/index.js";
import type { ConflictReason } from "../../src/ledger/conflictReason.js";
import {
  type ConsumedOutput,
  type SemanticValidationContext,
  validateTransaction,
} from "../../src/ledger/semantic/index.js";

/** Dev network parameters (docs/decisions.md, The dev network). */
export const DEV_PROTOCOL_PARAMETERS: ProtocolParameters = {
  protocolVersion: 2,
  networkName: "dev",
  bech32Hrp: "tst",
  minPowScore: 100,
  belowMaxDepth: 15,
  rentStructure: { vByteCost: 100, vByteFactorData: 1, vByteFactorKey: 10 },
  tokenSupply: 2779530283277761n,
};

/** The confirming milestone of built transactions unless a test names another. */
export const MILESTONE_TIMESTAMP = 1_700_000_000;
export const MILESTONE_INDEX = 100;

/** An amount comfortably above the storage deposit of every output the helpers build. */
export const AMOUNT = 1_000_000n;

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

// ---------------------------------------------------------------- wallets

export interface Wallet {
  keyPair: Ed25519KeyPair;
  address: Ed25519Address;
}

/** A wallet whose seed is BLAKE2b-256 of `name`: the same name gives the same keys. */
export function wallet(name: string): Wallet {
  const keyPair = ed25519KeyPairFromSeed(blake2b256(utf8(name)));
  return { keyPair, address: ed25519AddressOf(blake2b256(keyPair.publicKey)) };
}

/** The wallets the tests name: `wallet(name)` of their names. */
export const alice = wallet("alice");
export const bob = wallet("bob");
export const carol = wallet("carol");
export const controller = wallet("state controller");
export const governor = wallet("governor");

// ---------------------------------------------------------------- outputs

export interface OutputExtras {
  amount?: bigint;
  nativeTokens?: NativeToken[];
  /** Unlock conditions besides the owner's (sorted by type by the helper). */
  unlockConditions?: UnlockCondition[];
  features?: Feature[];
  immutableFeatures?: Feature[];
}

const byType = <T extends { type: number }>(list: T[]): T[] => [...list].sort((a, b) => a.type - b.type);
const byId = (tokens: NativeToken[]): NativeToken[] =>
  [...tokens].sort((a, b) => Buffer.compare(Buffer.from(a.id), Buffer.from(b.id)));

/** A basic output owned by `owner`. */
export function basic(owner: Address, extras: OutputExtras = {}): BasicOutput {
  return {
    type: OutputType.Basic,
    amount: extras.amount ?? AMOUNT,
    nativeTokens: byId(extras.nativeTokens ?? []),
    unlockConditions: byType([
      { type: UnlockConditionType.Address, address: owner },
      ...(extras.unlockConditions ?? []),
    ]),
    features: byType(extras.features ?? []),
  };
}

export interface AliasFields extends OutputExtras {
  aliasId?: Uint8Array;
  stateIndex?: number;
  stateMetadata?: Uint8Array;
  foundryCounter?: number;
  stateController: Address;
  governor: Address;
}

/** An alias output; a zero alias ID unless given. */
export function alias(fields: AliasFields): AliasOutput {
  return {
    type: OutputType.Alias,
    amount: fields.amount ?? AMOUNT,
    nativeTokens: byId(fields.nativeTokens ?? []),
    aliasId: fields.aliasId ?? new Uint8Array(32),
    stateIndex: fields.stateIndex ?? 0,
    stateMetadata: fields.stateMetadata ?? new Uint8Array(),
    foundryCounter: fields.foundryCounter ?? 0,
    unlockConditions: [
      { type: UnlockConditionType.StateControllerAddress, address: fields.stateController },
      { type: UnlockConditionType.GovernorAddress, address: fields.governor },
    ],
    features: byType(fields.features ?? []),
    immutableFeatures: byType(fields.immutableFeatures ?? []),
  };
}

export interface FoundryFields extends OutputExtras {
  aliasId: Uint8Array;
  serialNumber: number;
  minted?: bigint;
  melted?: bigint;
  maximumSupply?: bigint;
}

/** A foundry of the alias `aliasId` with a simple token scheme (maximum supply 10^9 unless given). */
export function foundry(fields: FoundryFields): FoundryOutput {
  const controller: AliasAddress = aliasAddressOf(fields.aliasId);
  return {
    type: OutputType.Foundry,
    amount: fields.amount ?? AMOUNT,
    nativeTokens: byId(fields.nativeTokens ?? []),
    serialNumber: fields.serialNumber,
    tokenScheme: {
      type: 0,
      mintedTokens: fields.minted ?? 0n,
      meltedTokens: fields.melted ?? 0n,
      maximumSupply: fields.maximumSupply ?? 1_000_000_000n,
    },
    unlockConditions: [{ type: UnlockConditionType.ImmutableAliasAddress, address: controller }],
    features: byType(fields.features ?? []),
    immutableFeatures: byType(fields.immutableFeatures ?? []),
  };
}

export interface NftFields extends OutputExtras {
  nftId?: Uint8Array;
  owner: Address;
}

/** An NFT output owned by `owner`; a zero NFT ID unless given. */
export function nft(fields: NftFields): NftOutput {
  return {
    type: OutputType.Nft,
    amount: fields.amount ?? AMOUNT,
    nativeTokens: byId(fields.nativeTokens ?? []),
    nftId: fields.nftId ?? new Uint8Array(32),
    unlockConditions: byType([
      { type: UnlockConditionType.Address, address: fields.owner },
      ...(fields.unlockConditions ?? []),
    ]),
    features: byType(fields.features ?? []),
    immutableFeatures: byType(fields.immutableFeatures ?? []),
  };
}

/** The native token ID of the simple-scheme foundry `serialNumber` of alias `aliasId`. */
export function tokenId(aliasId: Uint8Array, serialNumber: number): Uint8Array {
  return computeFoundryId(aliasId, serialNumber, 0);
}

/** A native token entry. */
export function token(id: Uint8Array, amount: bigint): NativeToken {
  return { id, amount };
}

/** A 32-byte ID derived from a name, for explicit alias/NFT IDs. */
export function idOf(name: string): Uint8Array {
  return blake2b256(utf8(`id:${name}`));
}

export { aliasAddressOf, nftAddressOf };

// ---------------------------------------------------------------- consumed outputs

let fundingCounter = 0;

/** `output` as an unspent output of a fresh (made-up) funding transaction. */
export function consumed(output: Output, outputIndex = 0): ConsumedOutput {
  const transactionId = blake2b256(utf8(`funding transaction ${fundingCounter++}`));
  return {
    outputId: outputIdFromParts(transactionId, outputIndex),
    output,
    bookedMilestoneIndex: MILESTONE_INDEX - 1,
    bookedTimestamp: MILESTONE_TIMESTAMP - 10,
  };
}

/** The implicit alias ID of a consumed alias output created with a zero ID. */
export function implicitAliasId(input: ConsumedOutput): Uint8Array {
  return aliasIdFromOutputId(input.outputId);
}

/** The implicit NFT ID of a consumed NFT output created with a zero ID. */
export function implicitNftId(input: ConsumedOutput): Uint8Array {
  return nftIdFromOutputId(input.outputId);
}

// ---------------------------------------------------------------- transactions

/** Who unlocks an input: a wallet (signature, or reference once it signed), or a chain input. */
export type Unlocker = Wallet | { alias: number } | { nft: number } | { reference: number };

export interface TxSpec {
  inputs: ConsumedOutput[];
  outputs: Output[];
  /** One per input, in input order. */
  unlockers: Unlocker[];
  /** Replaces the computed inputs commitment. */
  inputsCommitment?: Uint8Array;
  milestoneTimestamp?: number;
  protocolParameters?: ProtocolParameters;
  /** Network ID of the essence (semantic validation ignores it; block intake checks it). */
  networkId?: bigint;
}

export interface BuiltTransaction {
  tx: TransactionPayload;
  ctx: SemanticValidationContext;
}

/** Builds, signs and wraps a transaction with the validation context of its confirmation. */
export function buildTransaction(spec: TxSpec): BuiltTransaction {
  const essence = {
    type: EssenceType.Regular,
    networkId: spec.networkId ?? 0n,
    inputs: spec.inputs.map((c) => utxoInputOfOutputId(c.outputId)),
    inputsCommitment: spec.inputsCommitment ?? inputsCommitment(spec.inputs.map((c) => c.output)),
    outputs: spec.outputs,
  };
  const message = essenceSigningHash(essence);
  const signedAt = new Map<Wallet, number>();
  const unlocks: Unlock[] = spec.unlockers.map((u, i) => {
    if ("alias" in u) return { type: UnlockType.Alias, reference: u.alias };
    if ("nft" in u) return { type: UnlockType.Nft, reference: u.nft };
    if ("reference" in u) return { type: UnlockType.Reference, reference: u.reference };
    const at = signedAt.get(u);
    if (at !== undefined) return { type: UnlockType.Reference, reference: at };
    signedAt.set(u, i);
    return {
      type: UnlockType.Signature,
      signature: {
        type: SignatureType.Ed25519,
        publicKey: u.keyPair.publicKey,
        signature: ed25519Sign(u.keyPair, message),
      },
    };
  });
  const tx: TransactionPayload = { type: PayloadType.Transaction, essence, unlocks };
  return {
    tx,
    ctx: {
      transactionId: computeTransactionId(tx),
      inputs: spec.inputs,
      milestoneTimestamp: spec.milestoneTimestamp ?? MILESTONE_TIMESTAMP,
      milestoneIndex: MILESTONE_INDEX,
      protocolParameters: spec.protocolParameters ?? DEV_PROTOCOL_PARAMETERS,
    },
  };
}

// ---------------------------------------------------------------- assertions

/** A transaction to validate: one built already, or the spec to build it from. */
export type Checked = BuiltTransaction | TxSpec;

const built = (t: Checked): BuiltTransaction => ("ctx" in t ? t : buildTransaction(t));

/** Fails unless the transaction is semantically valid (shows the conflict details if not). */
export function assertValid(t: Checked): void {
  const { tx, ctx } = built(t);
  const result = validateTransaction(tx, ctx);
  assert.deepEqual(result, { ok: true }, result.ok ? "" : `conflict ${result.conflictReason}: ${result.details}`);
}

/** Fails unless validation reports `reason`; returns the details for further checks. */
export function assertConflict(reason: ConflictReason, t: Checked): string {
  const { tx, ctx } = built(t);
  const result = validateTransaction(tx, ctx);
  if (result.ok) assert.fail(`expected conflict reason ${reason}, the transaction is valid`);
  assert.equal(result.conflictReason, reason, `expected conflict reason ${reason}, got: ${result.details}`);
  return result.details;
}
