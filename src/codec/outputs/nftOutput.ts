import { ADDRESS_HASH_LENGTH } from "../address.js";
import {
  deserializeFeatures,
  type FeatureJson,
  featuresFromJson,
  featuresToJson,
  NFT_FEATURES,
  NFT_IMMUTABLE_FEATURES,
  serializeFeatures,
} from "../features.js";
import { toHex } from "../hex.js";
import { expectHex, expectObject, expectU8, expectU64String } from "../json.js";
import {
  deserializeNativeTokens,
  type NativeTokenJson,
  nativeTokensFromJson,
  nativeTokensToJson,
  serializeNativeTokens,
} from "../nativeTokens.js";
import type { ReadStream } from "../readStream.js";
import { type NftOutput, OutputType } from "../types.js";
import {
  deserializeUnlockConditions,
  NFT_UNLOCK_CONDITIONS,
  serializeUnlockConditions,
  type UnlockConditionJson,
  unlockConditionsFromJson,
  unlockConditionsToJson,
} from "../unlockConditions.js";
import type { WriteStream } from "../writeStream.js";
import { expectOutputType } from "./expectOutputType.js";

/**
 * NFT output (TIP-18 "NFT Output"). Layout: u8 type (6) | u64 amount | native tokens |
 * 32-byte NFT ID | unlock conditions | features | immutable features.
 */

/** TIP-25 JSON form; empty lists are left out. */
export interface NftOutputJson {
  type: 6;
  amount: string;
  nativeTokens?: NativeTokenJson[];
  nftId: string;
  unlockConditions: UnlockConditionJson[];
  features?: FeatureJson[];
  immutableFeatures?: FeatureJson[];
}

const expectType = (type: number, field: string) => expectOutputType(type, OutputType.Nft, "NFT", field);

/** Writes as given; decoding and `validateOutput` hold the rules. */
export function serializeNftOutput(w: WriteStream, o: NftOutput): void {
  w.u8(o.type);
  w.u64(o.amount);
  serializeNativeTokens(w, o.nativeTokens);
  w.bytes(o.nftId);
  serializeUnlockConditions(w, o.unlockConditions);
  serializeFeatures(w, o.features);
  serializeFeatures(w, o.immutableFeatures);
}

/** `field` is the output's path; errors name fields below it, e.g. `${field}.amount`. */
export function deserializeNftOutput(r: ReadStream, field: string): NftOutput {
  expectType(r.u8(`${field}.type`), field);
  return {
    type: OutputType.Nft,
    amount: r.u64(`${field}.amount`),
    nativeTokens: deserializeNativeTokens(r, `${field}.nativeTokens`),
    nftId: r.bytesN(ADDRESS_HASH_LENGTH, `${field}.nftId`),
    unlockConditions: deserializeUnlockConditions(r, `${field}.unlockConditions`, NFT_UNLOCK_CONDITIONS),
    features: deserializeFeatures(r, `${field}.features`, NFT_FEATURES),
    immutableFeatures: deserializeFeatures(r, `${field}.immutableFeatures`, NFT_IMMUTABLE_FEATURES),
  };
}

/** Empty lists (and empty state metadata) are left out, as Stardust nodes answer them. */
export function nftOutputToJson(o: NftOutput): NftOutputJson {
  return {
    type: o.type,
    amount: o.amount.toString(),
    ...(o.nativeTokens.length > 0 && { nativeTokens: nativeTokensToJson(o.nativeTokens) }),
    nftId: toHex(o.nftId),
    unlockConditions: unlockConditionsToJson(o.unlockConditions),
    ...(o.features.length > 0 && { features: featuresToJson(o.features) }),
    ...(o.immutableFeatures.length > 0 && { immutableFeatures: featuresToJson(o.immutableFeatures) }),
  };
}

/** Rejects what the binary decoder rejects, under the same code and field path; missing optional lists mean empty. */
export function nftOutputFromJson(json: unknown, field: string): NftOutput {
  const o = expectObject(
    json,
    field,
    ["type", "amount", "nftId", "unlockConditions"],
    ["nativeTokens", "features", "immutableFeatures"],
  );
  expectType(expectU8(o.type, `${field}.type`), field);
  return {
    type: OutputType.Nft,
    amount: expectU64String(o.amount, `${field}.amount`),
    nativeTokens: nativeTokensFromJson(o.nativeTokens, `${field}.nativeTokens`),
    nftId: expectHex(o.nftId, `${field}.nftId`, ADDRESS_HASH_LENGTH),
    unlockConditions: unlockConditionsFromJson(o.unlockConditions, `${field}.unlockConditions`, NFT_UNLOCK_CONDITIONS),
    features: featuresFromJson(o.features, `${field}.features`, NFT_FEATURES),
    immutableFeatures: featuresFromJson(o.immutableFeatures, `${field}.immutableFeatures`, NFT_IMMUTABLE_FEATURES),
  };
}
