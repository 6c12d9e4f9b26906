import { serializeAddressBytes } from "../address.js";
import { CodecErrorCode, codecError } from "../errors.js";
import { FOUNDRY_FEATURES, FOUNDRY_IMMUTABLE_FEATURES } from "../features.js";
import { expectU32 } from "../json.js";
import { NATIVE_TOKEN_ID_LENGTH } from "../nativeTokens.js";
import type { ReadStream } from "../readStream.js";
import {
  deserializeTokenScheme,
  serializeTokenScheme,
  type TokenSchemeJson,
  tokenSchemeFromJson,
  tokenSchemeToJson,
} from "../tokenScheme.js";
import { type AliasAddress, type FoundryOutput, OutputType, type TokenScheme, UnlockConditionType } from "../types.js";
import { FOUNDRY_UNLOCK_CONDITIONS } from "../unlockConditions.js";
import type { WriteStream } from "../writeStream.js";
import { type ChainOutputJson, type ChainOutputTail, type OutputHead, OutputKind } from "./outputFields.js";

/**
 * Foundry output (TIP-18 "Foundry Output"). Layout: u8 type (5) | u64 amount | native tokens |
 * u32 serial number | token scheme | unlock conditions | features | immutable features: the
 * serial number and token scheme between the shared head and tail (`outputFields.ts`).
 */

/** TIP-25 JSON form; empty lists are left out. */
export interface FoundryOutputJson extends ChainOutputJson<5> {
  serialNumber: number;
  tokenScheme: TokenSchemeJson;
}

const FOUNDRY = OutputKind.chain(OutputType.Foundry, "foundry", {
  unlockConditions: FOUNDRY_UNLOCK_CONDITIONS,
  features: FOUNDRY_FEATURES,
  immutableFeatures: FOUNDRY_IMMUTABLE_FEATURES,
});

/** The output of its fields as read, from bytes or JSON. */
function foundryOutput(
  head: OutputHead,
  serialNumber: number,
  tokenScheme: TokenScheme,
  tail: ChainOutputTail,
): FoundryOutput {
  return {
    type: OutputType.Foundry,
    amount: head.amount,
    nativeTokens: head.nativeTokens,
    serialNumber,
    tokenScheme,
    unlockConditions: tail.unlockConditions,
    features: tail.features,
    immutableFeatures: tail.immutableFeatures,
  };
}

/** Writes as given; decoding and `validateOutput` hold the rules. */
export function serializeFoundryOutput(w: WriteStream, o: FoundryOutput): void {
  FOUNDRY.serializeHead(w, o);
  w.u32(o.serialNumber);
  serializeTokenScheme(w, o.tokenScheme);
  FOUNDRY.serializeTail(w, o);
}

/** `field` is the output's path; errors name fields below it, e.g. `${field}.amount`. */
export function deserializeFoundryOutput(r: ReadStream, field: string): FoundryOutput {
  return foundryOutput(
    FOUNDRY.deserializeHead(r, field),
    r.u32(`${field}.serialNumber`),
    deserializeTokenScheme(r, `${field}.tokenScheme`),
    FOUNDRY.deserializeTail(r, field),
  );
}

/** Empty lists are left out, as Stardust nodes answer them. */
export function foundryOutputToJson(o: FoundryOutput): FoundryOutputJson {
  return FOUNDRY.toJson(o, { serialNumber: o.serialNumber, tokenScheme: tokenSchemeToJson(o.tokenScheme) });
}

/** Rejects what the binary decoder rejects, under the same code and field path; missing optional lists mean empty. */
export function foundryOutputFromJson(json: unknown, field: string): FoundryOutput {
  const o = FOUNDRY.expectJson(json, field, ["serialNumber", "tokenScheme"]);
  return foundryOutput(
    FOUNDRY.headFromJson(o, field),
    expectU32(o.serialNumber, `${field}.serialNumber`),
    tokenSchemeFromJson(o.tokenScheme, `${field}.tokenScheme`),
    FOUNDRY.tailFromJson(o, field),
  );
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
