import { ADDRESS_HASH_LENGTH } from "../address.js";
import { CodecErrorCode, codecError } from "../errors.js";
import { ALIAS_FEATURES, ALIAS_IMMUTABLE_FEATURES, MAX_METADATA_LENGTH } from "../features.js";
import { toHex } from "../hex.js";
import { expectHex, expectU32 } from "../json.js";
import type { ReadStream } from "../readStream.js";
import { type AliasOutput, OutputType } from "../types.js";
import { ALIAS_UNLOCK_CONDITIONS } from "../unlockConditions.js";
import type { WriteStream } from "../writeStream.js";
import { type ChainOutputJson, type ChainOutputTail, type OutputHead, OutputKind } from "./outputFields.js";

/**
 * Alias output (TIP-18 "Alias Output"). Layout: u8 type (4) | u64 amount | native tokens |
 * 32-byte alias ID | u32 state index | (u16)state metadata | u32 foundry counter |
 * unlock conditions | features | immutable features: the alias's own fields between the
 * shared head and tail (`outputFields.ts`).
 */

/** TIP-25 JSON form; empty lists and empty state metadata are left out. */
export interface AliasOutputJson extends ChainOutputJson<4> {
  aliasId: string;
  stateIndex: number;
  stateMetadata?: string;
  foundryCounter: number;
}

const ALIAS = OutputKind.chain(OutputType.Alias, "alias", {
  unlockConditions: ALIAS_UNLOCK_CONDITIONS,
  features: ALIAS_FEATURES,
  immutableFeatures: ALIAS_IMMUTABLE_FEATURES,
});

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

/** The output of its fields as read, from bytes or JSON. */
function aliasOutput(
  head: OutputHead,
  aliasId: Uint8Array,
  stateIndex: number,
  stateMetadata: Uint8Array,
  foundryCounter: number,
  tail: ChainOutputTail,
): AliasOutput {
  return {
    type: OutputType.Alias,
    amount: head.amount,
    nativeTokens: head.nativeTokens,
    aliasId,
    stateIndex,
    stateMetadata,
    foundryCounter,
    unlockConditions: tail.unlockConditions,
    features: tail.features,
    immutableFeatures: tail.immutableFeatures,
  };
}

/** Writes as given; decoding and `validateOutput` hold the rules. */
export function serializeAliasOutput(w: WriteStream, o: AliasOutput): void {
  ALIAS.serializeHead(w, o);
  w.bytes(o.aliasId);
  w.u32(o.stateIndex);
  w.u16(o.stateMetadata.length);
  w.bytes(o.stateMetadata);
  w.u32(o.foundryCounter);
  ALIAS.serializeTail(w, o);
}

/** `field` is the output's path; errors name fields below it, e.g. `${field}.amount`. */
export function deserializeAliasOutput(r: ReadStream, field: string): AliasOutput {
  const head = ALIAS.deserializeHead(r, field);
  const aliasId = r.bytesN(ADDRESS_HASH_LENGTH, `${field}.aliasId`);
  const stateIndex = r.u32(`${field}.stateIndex`);
  const metadataLength = r.u16(`${field}.stateMetadata.length`);
  checkStateMetadataLength(metadataLength, `${field}.stateMetadata`);
  const stateMetadata = r.bytesN(metadataLength, `${field}.stateMetadata`);
  const foundryCounter = r.u32(`${field}.foundryCounter`);
  return aliasOutput(head, aliasId, stateIndex, stateMetadata, foundryCounter, ALIAS.deserializeTail(r, field));
}

/** Empty lists and empty state metadata are left out, as Stardust nodes answer them. */
export function aliasOutputToJson(o: AliasOutput): AliasOutputJson {
  return ALIAS.toJson(o, {
    aliasId: toHex(o.aliasId),
    stateIndex: o.stateIndex,
    ...(o.stateMetadata.length > 0 && { stateMetadata: toHex(o.stateMetadata) }),
    foundryCounter: o.foundryCounter,
  });
}

/** Rejects what the binary decoder rejects, under the same code and field path; missing optional lists mean empty. */
export function aliasOutputFromJson(json: unknown, field: string): AliasOutput {
  const o = ALIAS.expectJson(json, field, ["aliasId", "stateIndex", "foundryCounter"], ["stateMetadata"]);
  const head = ALIAS.headFromJson(o, field);
  const aliasId = expectHex(o.aliasId, `${field}.aliasId`, ADDRESS_HASH_LENGTH);
  const stateIndex = expectU32(o.stateIndex, `${field}.stateIndex`);
  const stateMetadata =
    o.stateMetadata === undefined ? new Uint8Array(0) : expectHex(o.stateMetadata, `${field}.stateMetadata`);
  checkStateMetadataLength(stateMetadata.length, `${field}.stateMetadata`);
  const foundryCounter = expectU32(o.foundryCounter, `${field}.foundryCounter`);
  return aliasOutput(head, aliasId, stateIndex, stateMetadata, foundryCounter, ALIAS.tailFromJson(o, field));
}
