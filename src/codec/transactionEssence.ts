import { CodecErrorCode, codecError } from "./errors.js";
import { toHex } from "./hex.js";
import {
  checkCount,
  deserializeUtxoInput,
  jsonType,
  listFromJson,
  serializeUtxoInput,
  unexpectedType,
  utxoInputFromJson,
  utxoInputToJson,
  writeFixed,
} from "./input.js";
import { expectHex, expectObject, expectU64String, type JsonObject } from "./json.js";
import { deserializeOutput, outputFromJson, outputToJson, serializeOutput } from "./outputs/output.js";
import { ReadStream } from "./readStream.js";
import { deserializeTaggedData, serializeTaggedData, taggedDataFromJson, taggedDataToJson } from "./taggedData.js";
import {
  EssenceType,
  type Output,
  OutputType,
  PayloadType,
  type RegularTransactionEssence,
  type TaggedDataPayload,
  type UtxoInput,
} from "./types.js";
import { encodeWith, type WriteStream } from "./writeStream.js";

/**
 * The regular transaction essence (TIP-20), the part every signature of a transaction signs:
 * u8 type 1, u64 network ID, (u16) UTXO inputs, 32-byte inputs commitment, (u16) outputs,
 * (u32)-framed optional tagged data payload. Decoding enforces the structure both wire forms
 * share: counts in 1..128, UTXO inputs only and each at most once, no treasury outputs, only a
 * tagged data payload, the payload filling its frame exactly.
 */

export const MAX_INPUTS_COUNT = 128;
export const MAX_OUTPUTS_COUNT = 128;
export const INPUTS_COMMITMENT_LENGTH = 32;

// ---------------------------------------------------------------- binary

export function serializeTransactionEssence(w: WriteStream, e: RegularTransactionEssence, field = "essence"): void {
  if (e.type !== EssenceType.Regular) unexpectedType(field, e.type, "transaction essence type");
  checkCount(e.inputs.length, `${field}.inputs`, 0, 0xffff);
  checkCount(e.outputs.length, `${field}.outputs`, 0, 0xffff);
  w.u8(EssenceType.Regular).u64(e.networkId);
  w.u16(e.inputs.length);
  for (let i = 0; i < e.inputs.length; i++) serializeUtxoInput(w, e.inputs[i]!, `${field}.inputs[${i}]`);
  writeFixed(w, e.inputsCommitment, INPUTS_COMMITMENT_LENGTH, `${field}.inputsCommitment`);
  w.u16(e.outputs.length);
  for (const o of e.outputs) serializeOutput(w, o);
  const at = w.length;
  w.u32(0);
  if (e.payload !== undefined) {
    if (e.payload.type !== PayloadType.TaggedData)
      unexpectedType(`${field}.payload`, e.payload.type, "essence payload type");
    serializeTaggedData(w, e.payload, `${field}.payload`);
    w.setU32At(at, w.length - at - 4);
  }
}

/** The serialized essence, whose BLAKE2b-256 is what the signature unlocks sign. */
export const encodeTransactionEssence = (e: RegularTransactionEssence): Uint8Array =>
  encodeWith(serializeTransactionEssence, e, 512);

export function deserializeTransactionEssence(r: ReadStream, field: string): RegularTransactionEssence {
  const type = r.u8(`${field}.type`);
  if (type !== EssenceType.Regular) unexpectedType(field, type, "transaction essence type");
  const essence: RegularTransactionEssence = {
    type: EssenceType.Regular,
    networkId: r.u64(`${field}.networkId`),
    inputs: deserializeInputs(r, `${field}.inputs`),
    inputsCommitment: r.bytesN(INPUTS_COMMITMENT_LENGTH, `${field}.inputsCommitment`),
    outputs: deserializeOutputs(r, `${field}.outputs`),
  };
  const payload = deserializeEssencePayload(r, `${field}.payload`);
  if (payload !== undefined) essence.payload = payload;
  return essence;
}

/** 1..128 UTXO inputs, no output ID twice. */
function deserializeInputs(r: ReadStream, field: string): UtxoInput[] {
  const count = r.u16(`${field}.length`);
  checkCount(count, field, 1, MAX_INPUTS_COUNT);
  const inputs: UtxoInput[] = [];
  for (let i = 0; i < count; i++) inputs.push(deserializeUtxoInput(r, `${field}[${i}]`));
  checkUniqueInputs(inputs, field);
  return inputs;
}

/** 1..128 outputs, none a treasury output. */
function deserializeOutputs(r: ReadStream, field: string): Output[] {
  const count = r.u16(`${field}.length`);
  checkCount(count, field, 1, MAX_OUTPUTS_COUNT);
  const outputs: Output[] = [];
  for (let i = 0; i < count; i++) {
    const f = `${field}[${i}]`;
    expectNoTreasury(r.peekU8(`${f}.type`), f);
    outputs.push(deserializeOutput(r, f));
  }
  return outputs;
}

/** The treasury output belongs to milestones only (TIP-20). */
function expectNoTreasury(outputType: number, field: string): void {
  if (outputType === OutputType.Treasury) unexpectedType(field, outputType, "output type in a transaction");
}

/** An optional tagged data payload in a u32 frame it must fill exactly. */
function deserializeEssencePayload(r: ReadStream, field: string): TaggedDataPayload | undefined {
  const length = r.u32(`${field}.length`);
  if (length === 0) return undefined;
  const inner = new ReadStream(r.bytesN(length, field));
  const type = inner.peekU32(`${field}.type`);
  if (type !== PayloadType.TaggedData) unexpectedType(field, type, "essence payload type");
  const payload = deserializeTaggedData(inner, field);
  inner.expectEnd(field);
  return payload;
}

/** Each (transaction ID, output index) pair at most once (TIP-20). */
export function checkUniqueInputs(inputs: readonly UtxoInput[], field: string): void {
  if (inputs.length < 2) return;
  const seen = new Set<string>();
  for (let i = 0; i < inputs.length; i++) {
    const input = inputs[i]!;
    const key = `${toHex(input.transactionId)}${input.transactionOutputIndex}`;
    if (seen.has(key)) {
      throw codecError(CodecErrorCode.NotSortedOrUnique, `${field}[${i}]`, "input references the same output twice");
    }
    seen.add(key);
  }
}

// ---------------------------------------------------------------- JSON (TIP-25)

export function transactionEssenceToJson(e: RegularTransactionEssence): JsonObject {
  const json: JsonObject = {
    type: e.type,
    networkId: e.networkId.toString(),
    inputs: e.inputs.map(utxoInputToJson),
    inputsCommitment: toHex(e.inputsCommitment),
    outputs: e.outputs.map(outputToJson),
  };
  if (e.payload !== undefined) json.payload = taggedDataToJson(e.payload);
  return json;
}

/** `payload` may be missing or null for none. */
export function transactionEssenceFromJson(json: unknown, field: string): RegularTransactionEssence {
  const type = jsonType(json, field);
  if (type !== EssenceType.Regular) unexpectedType(field, type, "transaction essence type");
  const o = expectObject(json, field, ["type", "networkId", "inputs", "inputsCommitment", "outputs"], ["payload"]);
  const essence: RegularTransactionEssence = {
    type: EssenceType.Regular,
    networkId: expectU64String(o.networkId, `${field}.networkId`),
    inputs: inputsFromJson(o.inputs, `${field}.inputs`),
    inputsCommitment: expectHex(o.inputsCommitment, `${field}.inputsCommitment`, INPUTS_COMMITMENT_LENGTH),
    outputs: outputsFromJson(o.outputs, `${field}.outputs`),
  };
  if (o.payload !== undefined && o.payload !== null) {
    const f = `${field}.payload`;
    const payloadType = jsonType(o.payload, f);
    if (payloadType !== PayloadType.TaggedData) unexpectedType(f, payloadType, "essence payload type");
    essence.payload = taggedDataFromJson(o.payload, f);
  }
  return essence;
}

/** Rejects what `deserializeInputs` rejects, under the same code and field path. */
function inputsFromJson(json: unknown, field: string): UtxoInput[] {
  const inputs = listFromJson(json, field, 1, MAX_INPUTS_COUNT, utxoInputFromJson);
  checkUniqueInputs(inputs, field);
  return inputs;
}

/** Rejects what `deserializeOutputs` rejects, under the same code and field path. */
function outputsFromJson(json: unknown, field: string): Output[] {
  return listFromJson(json, field, 1, MAX_OUTPUTS_COUNT, (x, f) => {
    expectNoTreasury(jsonType(x, f), f);
    return outputFromJson(x, f);
  });
}
