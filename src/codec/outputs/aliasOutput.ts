import { ADDRESS_HASH_LENGTH } from "../address.js";
import { CodecErrorCode, codecError } from "../errors.js";
import {
  ALIAS_FEATURES,
  ALIAS_IMMUTABLE_FEATURES,
  deserializeFeatures,
  type FeatureJson,
  featuresFromJson,
  featuresToJson,
  MAX_METADATA_LENGTH,
  serializeFeatures,
} from "../features.js";
import { toHex } from "../hex.js";
import { expectHex, expectObject, expectU8, expectU32, expectU64String } from "../json.js";
import {
  deserializeNativeTokens,
  type NativeTokenJson,
  nativeTokensFromJson,
  nativeTokensToJson,
  serializeNativeTokens,
} from "../nativeTokens.js";
import type { ReadStream } from "../readStream.js";
import { type AliasOutput, OutputType } from "../types.js";
import {
  ALIAS_UNLOCK_CONDITIONS,
  deserializeUnlockConditions,
  serializeUnlockConditions,
  type UnlockConditionJson,
  unlockConditionsFromJson,
  unlockConditionsToJson,
} from "../unlockConditions.js";
import type { WriteStream } from "../writeStream.js";
import { expectOutputType } from "./expectOutputType.js";

/**
 * Alias output (TIP-18 "Alias Output"). Layout: u8 type (4) | u64 amount | native tokens |
 * 32-byte alias ID | u32 state index | (u16)state metadata | u32 foundry counter |
 * unlock conditions | features | immutable features.
 */

/** TIP-25 JSON form; empty lists and empty state metadata are left out. */
export interface AliasOutputJson {
  type: 4;
  amount: string;
  nativeTokens?: NativeTokenJson[];
  aliasId: string;
  stateIndex: number;
  stateMetadata?: string;
  foundryCounter: number;
  unlockConditions: UnlockConditionJson[];
  features?: FeatureJson[];
  immutableFeatures?: FeatureJson[];
}

const expectType = (type: number, field: string) => expectOutputType(type, OutputType.Alias, "alias", field);

/** TIP-18: `length(State Metadata)` ≤ `Max Metadata Length`. */
function checkStateMetadataLength(length: number, field: string): void {
  if (length > MAX_METADATA_LENGTH) {
    throw codecError(
      CodecErrorCode.CountOutOfRange,
      field,
      `state metadata is at most ${MAX_METADATA_LENGTH} bytes, got ${length}`,
    );
  }
}

/** Writes as given; decoding and `validateOutput` hold the rules. */
export function serializeAliasOutput(w: WriteStream, o: AliasOutput): void {
  w.u8(o.type);
  w.u64(o.amount);
  serializeNativeTokens(w, o.nativeTokens);
  w.bytes(o.aliasId);
  w.u32(o.stateIndex);
  w.u16(o.stateMetadata.length);
  w.bytes(o.stateMetadata);
  w.u32(o.foundryCounter);
  serializeUnlockConditions(w, o.unlockConditions);
  serializeFeatures(w, o.features);
  serializeFeatures(w, o.immutableFeatures);
}

/** `field` is the output's path; errors name fields below it, e.g. `${field}.amount`. */
export function deserializeAliasOutput(r: ReadStream, field: string): AliasOutput {
  expectType(r.u8(`${field}.type`), field);
  const amount = r.u64(`${field}.amount`);
  const nativeTokens = deserializeNativeTokens(r, `${field}.nativeTokens`);
  const aliasId = r.bytesN(ADDRESS_HASH_LENGTH, `${field}.aliasId`);
  const stateIndex = r.u32(`${field}.stateIndex`);
  const metadataLength = r.u16(`${field}.stateMetadata.length`);
  checkStateMetadataLength(metadataLength, `${field}.stateMetadata`);
  const stateMetadata = r.bytesN(metadataLength, `${field}.stateMetadata`);
  const foundryCounter = r.u32(`${field}.foundryCounter`);
  return {
    type: OutputType.Alias,
    amount,
    nativeTokens,
    aliasId,
    stateIndex,
    stateMetadata,
    foundryCounter,
    unlockConditions: deserializeUnlockConditions(r, `${field}.unlockConditions`, ALIAS_UNLOCK_CONDITIONS),
    features: deserializeFeatures(r, `${field}.features`, ALIAS_FEATURES),
    immutableFeatures: deserializeFeatures(r, `${field}.immutableFeatures`, ALIAS_IMMUTABLE_FEATURES),
  };
}

/** Empty lists (and empty state metadata) are left out, as Stardust nodes answer them. */
export function aliasOutputToJson(o: AliasOutput): AliasOutputJson {
  return {
    type: o.type,
    amount: o.amount.toString(),
    ...(o.nativeTokens.length > 0 && { nativeTokens: nativeTokensToJson(o.nativeTokens) }),
    aliasId: toHex(o.aliasId),
    stateIndex: o.stateIndex,
    ...(o.stateMetadata.length > 0 && { stateMetadata: toHex(o.stateMetadata) }),
    foundryCounter: o.foundryCounter,
    unlockConditions: unlockConditionsToJson(o.unlockConditions),
    ...(o.features.length > 0 && { features: featuresToJson(o.features) }),
    ...(o.immutableFeatures.length > 0 && { immutableFeatures: featuresToJson(o.immutableFeatures) }),
  };
}

/** Rejects what the binary decoder rejects, under the same code and field path; missing optional lists mean empty. */
export function aliasOutputFromJson(json: unknown, field: string): AliasOutput {
  const o = expectObject(
    json,
    field,
    ["type", "amount", "aliasId", "stateIndex", "foundryCounter", "unlockConditions"],
    ["nativeTokens", "stateMetadata", "features", "immutableFeatures"],
  );
  expectType(expectU8(o.type, `${field}.type`), field);
  const amount = expectU64String(o.amount, `${field}.amount`);
  const nativeTokens = nativeTokensFromJson(o.nativeTokens, `${field}.nativeTokens`);
  const aliasId = expectHex(o.aliasId, `${field}.aliasId`, ADDRESS_HASH_LENGTH);
  const stateIndex = expectU32(o.stateIndex, `${field}.stateIndex`);
  const stateMetadata =
    o.stateMetadata === undefined ? new Uint8Array(0) : expectHex(o.stateMetadata, `${field}.stateMetadata`);
  checkStateMetadataLength(stateMetadata.length, `${field}.stateMetadata`);
  const foundryCounter = expectU32(o.foundryCounter, `${field}.foundryCounter`);
  return {
    type: OutputType.Alias,
    amount,
    nativeTokens,
    aliasId,
    stateIndex,
    stateMetadata,
    foundryCounter,
    unlockConditions: unlockConditionsFromJson(
      o.unlockConditions,
      `${field}.unlockConditions`,
      ALIAS_UNLOCK_CONDITIONS,
    ),
    features: featuresFromJson(o.features, `${field}.features`, ALIAS_FEATURES),
    immutableFeatures: featuresFromJson(o.immutableFeatures, `${field}.immutableFeatures`, ALIAS_IMMUTABLE_FEATURES),
  };
}
