import {
  BASIC_FEATURES,
  deserializeFeatures,
  type FeatureJson,
  featuresFromJson,
  featuresToJson,
  serializeFeatures,
} from "../features.js";
import { expectObject, expectU8, expectU64String } from "../json.js";
import {
  deserializeNativeTokens,
  type NativeTokenJson,
  nativeTokensFromJson,
  nativeTokensToJson,
  serializeNativeTokens,
} from "../nativeTokens.js";
import type { ReadStream } from "../readStream.js";
import { type BasicOutput, OutputType } from "../types.js";
import {
  BASIC_UNLOCK_CONDITIONS,
  deserializeUnlockConditions,
  serializeUnlockConditions,
  type UnlockConditionJson,
  unlockConditionsFromJson,
  unlockConditionsToJson,
} from "../unlockConditions.js";
import type { WriteStream } from "../writeStream.js";
import { expectOutputType } from "./expectOutputType.js";

/**
 * Basic output (TIP-18 "Basic Output"): amount, native tokens, unlock conditions, features.
 * Layout: u8 type (3) | u64 amount | native tokens | unlock conditions | features.
 */

/** TIP-25 JSON form; empty lists are left out, as Stardust nodes answer them. */
export interface BasicOutputJson {
  type: 3;
  amount: string;
  nativeTokens?: NativeTokenJson[];
  unlockConditions: UnlockConditionJson[];
  features?: FeatureJson[];
}

const expectType = (type: number, field: string) => expectOutputType(type, OutputType.Basic, "basic", field);

/** Writes as given; decoding and `validateOutput` hold the rules. */
export function serializeBasicOutput(w: WriteStream, o: BasicOutput): void {
  w.u8(o.type);
  w.u64(o.amount);
  serializeNativeTokens(w, o.nativeTokens);
  serializeUnlockConditions(w, o.unlockConditions);
  serializeFeatures(w, o.features);
}

/** `field` is the output's path; errors name fields below it, e.g. `${field}.amount`. */
export function deserializeBasicOutput(r: ReadStream, field: string): BasicOutput {
  expectType(r.u8(`${field}.type`), field);
  return {
    type: OutputType.Basic,
    amount: r.u64(`${field}.amount`),
    nativeTokens: deserializeNativeTokens(r, `${field}.nativeTokens`),
    unlockConditions: deserializeUnlockConditions(r, `${field}.unlockConditions`, BASIC_UNLOCK_CONDITIONS),
    features: deserializeFeatures(r, `${field}.features`, BASIC_FEATURES),
  };
}

/** Empty lists (and empty state metadata) are left out, as Stardust nodes answer them. */
export function basicOutputToJson(o: BasicOutput): BasicOutputJson {
  return {
    type: o.type,
    amount: o.amount.toString(),
    ...(o.nativeTokens.length > 0 && { nativeTokens: nativeTokensToJson(o.nativeTokens) }),
    unlockConditions: unlockConditionsToJson(o.unlockConditions),
    ...(o.features.length > 0 && { features: featuresToJson(o.features) }),
  };
}

/** Rejects what the binary decoder rejects, under the same code and field path; missing optional lists mean empty. */
export function basicOutputFromJson(json: unknown, field: string): BasicOutput {
  const o = expectObject(json, field, ["type", "amount", "unlockConditions"], ["nativeTokens", "features"]);
  expectType(expectU8(o.type, `${field}.type`), field);
  return {
    type: OutputType.Basic,
    amount: expectU64String(o.amount, `${field}.amount`),
    nativeTokens: nativeTokensFromJson(o.nativeTokens, `${field}.nativeTokens`),
    unlockConditions: unlockConditionsFromJson(
      o.unlockConditions,
      `${field}.unlockConditions`,
      BASIC_UNLOCK_CONDITIONS,
    ),
    features: featuresFromJson(o.features, `${field}.features`, BASIC_FEATURES),
  };
}
