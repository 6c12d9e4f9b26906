import { serializeAddressBytes } from "../address.js";
import { CodecErrorCode, codecError } from "../errors.js";
import {
  deserializeFeatures,
  type FeatureJson,
  FOUNDRY_FEATURES,
  FOUNDRY_IMMUTABLE_FEATURES,
  featuresFromJson,
  featuresToJson,
  serializeFeatures,
} from "../features.js";
import { expectObject, expectU8, expectU32, expectU64String } from "../json.js";
import {
  deserializeNativeTokens,
  NATIVE_TOKEN_ID_LENGTH,
  type NativeTokenJson,
  nativeTokensFromJson,
  nativeTokensToJson,
  serializeNativeTokens,
} from "../nativeTokens.js";
import type { ReadStream } from "../readStream.js";
import {
  deserializeTokenScheme,
  serializeTokenScheme,
  type TokenSchemeJson,
  tokenSchemeFromJson,
  tokenSchemeToJson,
} from "../tokenScheme.js";
import { type AliasAddress, type FoundryOutput, OutputType, UnlockConditionType } from "../types.js";
import {
  deserializeUnlockConditions,
  FOUNDRY_UNLOCK_CONDITIONS,
  serializeUnlockConditions,
  type UnlockConditionJson,
  unlockConditionsFromJson,
  unlockConditionsToJson,
} from "../unlockConditions.js";
import type { WriteStream } from "../writeStream.js";
import { expectOutputType } from "./expectOutputType.js";

/**
 * Foundry output (TIP-18 "Foundry Output"). Layout: u8 type (5) | u64 amount | native tokens |
 * u32 serial number | token scheme | unlock conditions | features | immutable features.
 */

/** TIP-25 JSON form; empty lists are left out. */
export interface FoundryOutputJson {
  type: 5;
  amount: string;
  nativeTokens?: NativeTokenJson[];
  serialNumber: number;
  tokenScheme: TokenSchemeJson;
  unlockConditions: UnlockConditionJson[];
  features?: FeatureJson[];
  immutableFeatures?: FeatureJson[];
}

const expectType = (type: number, field: string) => expectOutputType(type, OutputType.Foundry, "foundry", field);

/** Writes as given; decoding and `validateOutput` hold the rules. */
export function serializeFoundryOutput(w: WriteStream, o: FoundryOutput): void {
  w.u8(o.type);
  w.u64(o.amount);
  serializeNativeTokens(w, o.nativeTokens);
  w.u32(o.serialNumber);
  serializeTokenScheme(w, o.tokenScheme);
  serializeUnlockConditions(w, o.unlockConditions);
  serializeFeatures(w, o.features);
  serializeFeatures(w, o.immutableFeatures);
}

/** `field` is the output's path; errors name fields below it, e.g. `${field}.amount`. */
export function deserializeFoundryOutput(r: ReadStream, field: string): FoundryOutput {
  expectType(r.u8(`${field}.type`), field);
  return {
    type: OutputType.Foundry,
    amount: r.u64(`${field}.amount`),
    nativeTokens: deserializeNativeTokens(r, `${field}.nativeTokens`),
    serialNumber: r.u32(`${field}.serialNumber`),
    tokenScheme: deserializeTokenScheme(r, `${field}.tokenScheme`),
    unlockConditions: deserializeUnlockConditions(r, `${field}.unlockConditions`, FOUNDRY_UNLOCK_CONDITIONS),
    features: deserializeFeatures(r, `${field}.features`, FOUNDRY_FEATURES),
    immutableFeatures: deserializeFeatures(r, `${field}.immutableFeatures`, FOUNDRY_IMMUTABLE_FEATURES),
  };
}

/** Empty lists (and empty state metadata) are left out, as Stardust nodes answer them. */
export function foundryOutputToJson(o: FoundryOutput): FoundryOutputJson {
  return {
    type: o.type,
    amount: o.amount.toString(),
    ...(o.nativeTokens.length > 0 && { nativeTokens: nativeTokensToJson(o.nativeTokens) }),
    serialNumber: o.serialNumber,
    tokenScheme: tokenSchemeToJson(o.tokenScheme),
    unlockConditions: unlockConditionsToJson(o.unlockConditions),
    ...(o.features.length > 0 && { features: featuresToJson(o.features) }),
    ...(o.immutableFeatures.length > 0 && { immutableFeatures: featuresToJson(o.immutableFeatures) }),
  };
}

/** Rejects what the binary decoder rejects, under the same code and field path; missing optional lists mean empty. */
export function foundryOutputFromJson(json: unknown, field: string): FoundryOutput {
  const o = expectObject(
    json,
    field,
    ["type", "amount", "serialNumber", "tokenScheme", "unlockConditions"],
    ["nativeTokens", "features", "immutableFeatures"],
  );
  expectType(expectU8(o.type, `${field}.type`), field);
  return {
    type: OutputType.Foundry,
    amount: expectU64String(o.amount, `${field}.amount`),
    nativeTokens: nativeTokensFromJson(o.nativeTokens, `${field}.nativeTokens`),
    serialNumber: expectU32(o.serialNumber, `${field}.serialNumber`),
    tokenScheme: tokenSchemeFromJson(o.tokenScheme, `${field}.tokenScheme`),
    unlockConditions: unlockConditionsFromJson(
      o.unlockConditions,
      `${field}.unlockConditions`,
      FOUNDRY_UNLOCK_CONDITIONS,
    ),
    features: featuresFromJson(o.features, `${field}.features`, FOUNDRY_FEATURES),
    immutableFeatures: featuresFromJson(o.immutableFeatures, `${field}.immutableFeatures`, FOUNDRY_IMMUTABLE_FEATURES),
  };
}

/** The controlling alias address of a foundry (its Immutable Alias Address unlock condition). */
export function foundryAliasAddress(o: FoundryOutput): AliasAddress {
  const uc = o.unlockConditions.find((u) => u.type === UnlockConditionType.ImmutableAliasAddress);
  if (uc === undefined || uc.type !== UnlockConditionType.ImmutableAliasAddress) {
    throw codecError(CodecErrorCode.SyntacticRule, "foundryOutput.unlockConditions", "no immutable alias address");
  }
  return uc.address;
}

/**
 * The foundry ID, which is also the token ID of the native tokens it controls (TIP-18):
 * serialized alias address (33) || serial number (u32 LE) || token scheme type (u8).
 */
export function foundryId(o: FoundryOutput): Uint8Array {
  const out = new Uint8Array(NATIVE_TOKEN_ID_LENGTH);
  out.set(serializeAddressBytes(foundryAliasAddress(o)), 0);
  new DataView(out.buffer).setUint32(33, o.serialNumber, true);
  out[37] = o.tokenScheme.type;
  return out;
}
