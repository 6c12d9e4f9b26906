import { MAX_METADATA_LENGTH, MAX_TAG_LENGTH } from "../../src/codec/features.js";
import { compareBytes } from "../../src/codec/hex.js";
import { MAX_NATIVE_TOKEN_COUNT, NATIVE_TOKEN_ID_LENGTH } from "../../src/codec/nativeTokens.js";
import type { OutputValidationParams } from "../../src/codec/outputs/validateOutput.js";
import { minStorageDeposit, minStorageDepositForReturn } from "../../src/codec/storageDeposit.js";
import {
  type Address,
  AddressType,
  type AliasAddress,
  type AliasOutput,
  type BasicOutput,
  type Feature,
  FeatureType,
  type FoundryOutput,
  type NativeToken,
  type NftOutput,
  type Output,
  OutputType,
  type TreasuryOutput,
  type UnlockCondition,
  UnlockConditionType,
} from "../../src/codec/types.js";
import type { Rng } from "./random.js";

/**
 * Generators of random VALID outputs of every kind, for property tests of the output codec and
 * of the block and transaction codecs that embed outputs. Every output returned passes
 * `validateOutput(output, options.params)`; every unlock condition and feature combination the
 * kind allows occurs, with random lengths (bounds included), native tokens and address kinds.
 */

/** Dev network parameters (docs/decisions.md, The dev network). */
export const DEV_OUTPUT_PARAMS: OutputValidationParams = {
  tokenSupply: 2779530283277761n,
  rentStructure: { vByteCost: 100, vByteFactorData: 1, vByteFactorKey: 10 },
};

export interface RandomOutputOptions {
  /** Parameters the outputs must be valid under (default: dev network). */
  params?: OutputValidationParams;
  /** Upper bound for `amount` (default: the token supply), e.g. to keep a transaction's sum in range. */
  maxAmount?: bigint;
  /** Upper bound for the native token count (default 64). */
  maxNativeTokens?: number;
}

type Resolved = Required<RandomOutputOptions>;

function resolve(options: RandomOutputOptions = {}): Resolved {
  const params = options.params ?? DEV_OUTPUT_PARAMS;
  return {
    params,
    maxAmount: options.maxAmount ?? params.tokenSupply,
    maxNativeTokens: options.maxNativeTokens ?? MAX_NATIVE_TOKEN_COUNT,
  };
}

const MAX_U32 = 0xffffffff;
const MAX_U256 = (1n << 256n) - 1n;

// ---------------------------------------------------------------- parts

/** A random address; `kind` limits the kinds drawn from (default: all three). */
export function randomAddress(rng: Rng, kinds: readonly Address["type"][] = [0, 8, 16]): Address {
  const hash = rng.bytes(32);
  switch (rng.pick(kinds)) {
    case AddressType.Ed25519:
      return { type: AddressType.Ed25519, pubKeyHash: hash };
    case AddressType.Alias:
      return { type: AddressType.Alias, aliasId: hash };
    case AddressType.Nft:
      return { type: AddressType.Nft, nftId: hash };
  }
}

export function randomAliasAddress(rng: Rng): AliasAddress {
  return { type: AddressType.Alias, aliasId: rng.bytes(32) };
}

/** A non-zero u32 unix time. */
const randomUnixTime = (rng: Rng): number => (rng.bool(0.1) ? rng.pick([1, MAX_U32]) : rng.int(1, MAX_U32));

/** A token ID: usually shaped like a foundry ID (alias address, serial, scheme 0), else random. */
function randomTokenId(rng: Rng): Uint8Array {
  const id = rng.bytes(NATIVE_TOKEN_ID_LENGTH);
  if (rng.bool(0.7)) {
    id[0] = AddressType.Alias;
    id[37] = 0;
  }
  return id;
}

/** 0..max native tokens, sorted by token ID and unique, with non-zero amounts of random width. */
export function randomNativeTokens(rng: Rng, max: number = MAX_NATIVE_TOKEN_COUNT): NativeToken[] {
  const r = rng.float();
  const want = r < 0.6 ? 0 : r < 0.9 ? rng.int(1, 4) : r < 0.98 ? rng.int(1, max) : max;
  const count = Math.min(want, max);
  const ids: Uint8Array[] = [];
  while (ids.length < count) ids.push(randomTokenId(rng));
  ids.sort(compareBytes);
  const unique = ids.filter((id, i) => i === 0 || compareBytes(ids[i - 1]!, id) !== 0);
  return unique.map((id) => ({ id, amount: rng.bool(0.05) ? MAX_U256 : rng.bigRange(1n, MAX_U256) }));
}

function randomMetadata(rng: Rng): Feature {
  return { type: FeatureType.Metadata, data: rng.bytes(rng.length(1, MAX_METADATA_LENGTH)) };
}

/** Features of the given allowed types, each present with probability 0.4, ascending by type. */
function randomFeatures(rng: Rng, allowed: readonly Feature["type"][]): Feature[] {
  return rng.subset(allowed, 0.4).map((type): Feature => {
    switch (type) {
      case FeatureType.Sender:
        return { type, address: randomAddress(rng) };
      case FeatureType.Issuer:
        return { type, address: randomAddress(rng) };
      case FeatureType.Metadata:
        return randomMetadata(rng);
      default:
        return { type: FeatureType.Tag, tag: rng.bytes(rng.length(1, MAX_TAG_LENGTH)) };
    }
  });
}

/**
 * Address unlock condition (owner drawn by `owner`) plus any of Storage Deposit Return,
 * Timelock, Expiration, as basic and NFT outputs allow. The return amount is set later.
 */
function randomOwnerConditions(rng: Rng, owner: () => Address): UnlockCondition[] {
  const ucs: UnlockCondition[] = [{ type: UnlockConditionType.Address, address: owner() }];
  if (rng.bool(0.35)) {
    ucs.push({ type: UnlockConditionType.StorageDepositReturn, returnAddress: randomAddress(rng), amount: 0n });
  }
  if (rng.bool(0.35)) ucs.push({ type: UnlockConditionType.Timelock, unixTime: randomUnixTime(rng) });
  if (rng.bool(0.35)) {
    ucs.push({
      type: UnlockConditionType.Expiration,
      returnAddress: randomAddress(rng),
      unixTime: randomUnixTime(rng),
    });
  }
  return ucs;
}

/**
 * Sets a valid amount: at least the storage deposit (TIP-19) and any return amount, which in
 * turn is at least the deposit of a return output (TIP-18). The amount's size is fixed, so the
 * deposit computed with a zero amount holds for the final one.
 */
function fund<T extends Exclude<Output, TreasuryOutput>>(rng: Rng, output: T, opts: Resolved): T {
  const rent = opts.params.rentStructure;
  let floor = minStorageDeposit(output, rent);
  for (const uc of output.unlockConditions) {
    if (uc.type === UnlockConditionType.StorageDepositReturn) {
      const minReturn = minStorageDepositForReturn(uc.returnAddress, rent);
      const cap = minReturn > floor * 4n ? minReturn : floor * 4n;
      uc.amount = rng.bool(0.2) ? minReturn : rng.bigRange(minReturn, cap);
      if (uc.amount > floor) floor = uc.amount;
    }
  }
  if (floor > opts.maxAmount) throw new Error(`random output needs ${floor}, more than maxAmount ${opts.maxAmount}`);
  const r = rng.float();
  output.amount = r < 0.2 ? floor : r < 0.25 ? opts.maxAmount : rng.bigRange(floor, opts.maxAmount);
  return output;
}

// ---------------------------------------------------------------- outputs

export function randomBasicOutput(rng: Rng, options?: RandomOutputOptions): BasicOutput {
  const opts = resolve(options);
  const output: BasicOutput = {
    type: OutputType.Basic,
    amount: 0n,
    nativeTokens: randomNativeTokens(rng, opts.maxNativeTokens),
    unlockConditions: randomOwnerConditions(rng, () => randomAddress(rng)),
    features: randomFeatures(rng, [FeatureType.Sender, FeatureType.Metadata, FeatureType.Tag]),
  };
  return fund(rng, output, opts);
}

export function randomAliasOutput(rng: Rng, options?: RandomOutputOptions): AliasOutput {
  const opts = resolve(options);
  const fresh = rng.bool(0.2);
  const aliasId = fresh ? new Uint8Array(32) : rng.bytes(32);
  const controller = (): Address => {
    // An alias may not control itself; a random 32-byte ID collides only in theory.
    const a = randomAddress(rng);
    return a.type === AddressType.Alias && compareBytes(a.aliasId, aliasId) === 0 ? randomAliasAddress(rng) : a;
  };
  const output: AliasOutput = {
    type: OutputType.Alias,
    amount: 0n,
    nativeTokens: randomNativeTokens(rng, opts.maxNativeTokens),
    aliasId,
    stateIndex: fresh ? 0 : rng.bool(0.1) ? MAX_U32 : rng.int(0, 1000),
    stateMetadata: rng.bool(0.4) ? new Uint8Array(0) : rng.bytes(rng.length(0, MAX_METADATA_LENGTH)),
    foundryCounter: fresh ? 0 : rng.bool(0.1) ? MAX_U32 : rng.int(0, 1000),
    unlockConditions: [
      { type: UnlockConditionType.StateControllerAddress, address: controller() },
      { type: UnlockConditionType.GovernorAddress, address: controller() },
    ],
    features: randomFeatures(rng, [FeatureType.Sender, FeatureType.Metadata]),
    immutableFeatures: randomFeatures(rng, [FeatureType.Issuer, FeatureType.Metadata]),
  };
  return fund(rng, output, opts);
}

export function randomFoundryOutput(rng: Rng, options?: RandomOutputOptions): FoundryOutput {
  const opts = resolve(options);
  // Simple token scheme: 0 < maximumSupply, melted ≤ minted, minted − melted ≤ maximumSupply.
  const maximumSupply = rng.bool(0.05) ? MAX_U256 : rng.bigRange(1n, MAX_U256);
  const circulating = rng.bool(0.2) ? 0n : rng.bool(0.1) ? maximumSupply : rng.bigRange(0n, maximumSupply);
  const meltedTokens = rng.bool(0.4) ? 0n : rng.bigRange(0n, MAX_U256 - circulating);
  const output: FoundryOutput = {
    type: OutputType.Foundry,
    amount: 0n,
    nativeTokens: randomNativeTokens(rng, opts.maxNativeTokens),
    serialNumber: rng.bool(0.1) ? rng.pick([0, MAX_U32]) : rng.int(1, 1000),
    tokenScheme: { type: 0, mintedTokens: circulating + meltedTokens, meltedTokens, maximumSupply },
    unlockConditions: [{ type: UnlockConditionType.ImmutableAliasAddress, address: randomAliasAddress(rng) }],
    features: randomFeatures(rng, [FeatureType.Metadata]),
    immutableFeatures: randomFeatures(rng, [FeatureType.Metadata]),
  };
  return fund(rng, output, opts);
}

export function randomNftOutput(rng: Rng, options?: RandomOutputOptions): NftOutput {
  const opts = resolve(options);
  const nftId = rng.bool(0.2) ? new Uint8Array(32) : rng.bytes(32);
  const owner = (): Address => {
    // An NFT may not own itself; a random 32-byte ID collides only in theory.
    const a = randomAddress(rng);
    return a.type === AddressType.Nft && compareBytes(a.nftId, nftId) === 0 ? randomAliasAddress(rng) : a;
  };
  const output: NftOutput = {
    type: OutputType.Nft,
    amount: 0n,
    nativeTokens: randomNativeTokens(rng, opts.maxNativeTokens),
    nftId,
    unlockConditions: randomOwnerConditions(rng, owner),
    features: randomFeatures(rng, [FeatureType.Sender, FeatureType.Metadata, FeatureType.Tag]),
    immutableFeatures: randomFeatures(rng, [FeatureType.Issuer, FeatureType.Metadata]),
  };
  return fund(rng, output, opts);
}

export function randomTreasuryOutput(rng: Rng, options?: RandomOutputOptions): TreasuryOutput {
  const opts = resolve(options);
  const r = rng.float();
  return {
    type: OutputType.Treasury,
    amount: r < 0.1 ? 0n : r < 0.2 ? opts.maxAmount : rng.bigRange(0n, opts.maxAmount),
  };
}

const GENERATORS = {
  [OutputType.Treasury]: randomTreasuryOutput,
  [OutputType.Basic]: randomBasicOutput,
  [OutputType.Alias]: randomAliasOutput,
  [OutputType.Foundry]: randomFoundryOutput,
  [OutputType.Nft]: randomNftOutput,
} as const;

/**
 * A random output of one of `kinds` (default: the four a transaction may create, no treasury).
 */
export function randomOutput(rng: Rng, options?: RandomOutputOptions & { kinds?: readonly Output["type"][] }): Output {
  const kinds = options?.kinds ?? [OutputType.Basic, OutputType.Alias, OutputType.Foundry, OutputType.Nft];
  return GENERATORS[rng.pick(kinds)](rng, options);
}
