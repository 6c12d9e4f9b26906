import { BASIC_FEATURES } from "../features.js";
import type { ReadStream } from "../readStream.js";
import { type BasicOutput, OutputType } from "../types.js";
import { BASIC_UNLOCK_CONDITIONS } from "../unlockConditions.js";
import type { WriteStream } from "../writeStream.js";
import { type HeadedOutputJson, OutputKind } from "./outputFields.js";

/**
 * Basic output (TIP-18 "Basic Output"): amount, native tokens, unlock conditions, features.
 * Layout: u8 type (3) | u64 amount | native tokens | unlock conditions | features: the shared
 * head and tail (`outputFields.ts`) with nothing between them.
 */

/** TIP-25 JSON form; empty lists are left out, as Stardust nodes answer them. */
export type BasicOutputJson = HeadedOutputJson<3>;

const BASIC = OutputKind.basic(BASIC_UNLOCK_CONDITIONS, BASIC_FEATURES);

/** Writes as given; decoding and `validateOutput` hold the rules. */
export function serializeBasicOutput(w: WriteStream, o: BasicOutput): void {
  BASIC.serializeHead(w, o);
  BASIC.serializeTail(w, o);
}

/** `field` is the output's path; errors name fields below it, e.g. `${field}.amount`. */
export function deserializeBasicOutput(r: ReadStream, field: string): BasicOutput {
  const { amount, nativeTokens } = BASIC.deserializeHead(r, field);
  const { unlockConditions, features } = BASIC.deserializeTail(r, field);
  return { type: OutputType.Basic, amount, nativeTokens, unlockConditions, features };
}

/** Empty lists are left out, as Stardust nodes answer them. */
export function basicOutputToJson(o: BasicOutput): BasicOutputJson {
  return BASIC.toJson(o, {});
}

/** Rejects what the binary decoder rejects, under the same code and field path; missing optional lists mean empty. */
export function basicOutputFromJson(json: unknown, field: string): BasicOutput {
  const o = BASIC.expectJson(json, field, []);
  const { amount, nativeTokens } = BASIC.headFromJson(o, field);
  const { unlockConditions, features } = BASIC.tailFromJson(o, field);
  return { type: OutputType.Basic, amount, nativeTokens, unlockConditions, features };
}
