import { CodecErrorCode, codecError } from "./errors.js";
import { toHex } from "./hex.js";
import { expectArray, expectHex, expectInt, expectObject, expectU16, type JsonObject } from "./json.js";
import type { ReadStream } from "./readStream.js";
import { type Input, InputType, type TreasuryInput, type UtxoInput } from "./types.js";
import type { WriteStream } from "./writeStream.js";

/**
 * Inputs (TIP-20 UTXO input, TIP-34 treasury input). A regular transaction essence admits only
 * UTXO inputs, a treasury transaction only a treasury input, so each position has its own
 * reader; `deserializeInput` accepts both for callers that need the generic form.
 *
 * The small helpers below (`writeFixed`, `unexpectedType`, `jsonType`, `checkCount`) are shared
 * by the block and payload codecs, which all import this module first.
 */

/** Transaction ID (32) of the creating transaction. */
export const TRANSACTION_ID_LENGTH = 32;
/** Milestone ID (32) that created the referenced treasury output. */
export const MILESTONE_ID_LENGTH = 32;

/** Writes `bytes` after checking its length, so a malformed in-memory object cannot shift the stream. */
export function writeFixed(w: WriteStream, bytes: Uint8Array, length: number, field: string): void {
  if (bytes.length !== length) {
    throw codecError(CodecErrorCode.ValueOutOfRange, field, `must be ${length} bytes, got ${bytes.length}`);
  }
  w.bytes(bytes);
}

/** Fails with UnknownType: `type` is not one of the kinds allowed at `field`. */
export function unexpectedType(field: string, type: number, what: string): never {
  throw codecError(CodecErrorCode.UnknownType, `${field}.type`, `type ${type} is not a valid ${what}`);
}

// ---------------------------------------------------------------- binary

export function serializeUtxoInput(w: WriteStream, input: UtxoInput, field = "utxoInput"): void {
  w.u8(InputType.Utxo);
  writeFixed(w, input.transactionId, TRANSACTION_ID_LENGTH, `${field}.transactionId`);
  w.u16(input.transactionOutputIndex);
}

export function serializeTreasuryInput(w: WriteStream, input: TreasuryInput, field = "treasuryInput"): void {
  w.u8(InputType.Treasury);
  writeFixed(w, input.milestoneId, MILESTONE_ID_LENGTH, `${field}.milestoneId`);
}

export function serializeInput(w: WriteStream, input: Input, field = "input"): void {
  if (input.type === InputType.Utxo) serializeUtxoInput(w, input, field);
  else if (input.type === InputType.Treasury) serializeTreasuryInput(w, input, field);
  else unexpectedType(field, (input as { type: number }).type, "input type");
}

/** Reads a UTXO input; any other input type is rejected (regular essences hold UTXO inputs only). */
export function deserializeUtxoInput(r: ReadStream, field: string): UtxoInput {
  const type = r.u8(`${field}.type`);
  if (type !== InputType.Utxo) unexpectedType(field, type, "UTXO input type");
  return {
    type: InputType.Utxo,
    transactionId: r.bytesN(TRANSACTION_ID_LENGTH, `${field}.transactionId`),
    transactionOutputIndex: r.u16(`${field}.transactionOutputIndex`),
  };
}

/** Reads a treasury input (the only input of a TIP-34 treasury transaction). */
export function deserializeTreasuryInput(r: ReadStream, field: string): TreasuryInput {
  const type = r.u8(`${field}.type`);
  if (type !== InputType.Treasury) unexpectedType(field, type, "treasury input type");
  return { type: InputType.Treasury, milestoneId: r.bytesN(MILESTONE_ID_LENGTH, `${field}.milestoneId`) };
}

export function deserializeInput(r: ReadStream, field: string): Input {
  const type = r.peekU8(`${field}.type`);
  if (type === InputType.Utxo) return deserializeUtxoInput(r, field);
  if (type === InputType.Treasury) return deserializeTreasuryInput(r, field);
  return unexpectedType(field, type, "input type");
}

// ---------------------------------------------------------------- JSON (TIP-25)

export function utxoInputToJson(input: UtxoInput): JsonObject {
  return {
    type: InputType.Utxo,
    transactionId: toHex(input.transactionId),
    transactionOutputIndex: input.transactionOutputIndex,
  };
}

export function treasuryInputToJson(input: TreasuryInput): JsonObject {
  return { type: InputType.Treasury, milestoneId: toHex(input.milestoneId) };
}

export function inputToJson(input: Input): JsonObject {
  return input.type === InputType.Utxo ? utxoInputToJson(input) : treasuryInputToJson(input);
}

/** The `type` of a JSON object, read before the rest so an unknown type fails as UnknownType. */
export function jsonType(json: unknown, field: string): number {
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw codecError(CodecErrorCode.InvalidJson, field, "expected an object");
  }
  const type = (json as JsonObject).type;
  if (type === undefined) throw codecError(CodecErrorCode.InvalidJson, `${field}.type`, "is required");
  return expectInt(type, `${field}.type`, 0, 0xffffffff);
}

export function utxoInputFromJson(json: unknown, field: string): UtxoInput {
  const type = jsonType(json, field);
  if (type !== InputType.Utxo) unexpectedType(field, type, "UTXO input type");
  const o = expectObject(json, field, ["type", "transactionId", "transactionOutputIndex"]);
  return {
    type: InputType.Utxo,
    transactionId: expectHex(o.transactionId, `${field}.transactionId`, TRANSACTION_ID_LENGTH),
    transactionOutputIndex: expectU16(o.transactionOutputIndex, `${field}.transactionOutputIndex`),
  };
}

export function treasuryInputFromJson(json: unknown, field: string): TreasuryInput {
  const type = jsonType(json, field);
  if (type !== InputType.Treasury) unexpectedType(field, type, "treasury input type");
  const o = expectObject(json, field, ["type", "milestoneId"]);
  return {
    type: InputType.Treasury,
    milestoneId: expectHex(o.milestoneId, `${field}.milestoneId`, MILESTONE_ID_LENGTH),
  };
}

export function inputFromJson(json: unknown, field: string): Input {
  const type = jsonType(json, field);
  if (type === InputType.Utxo) return utxoInputFromJson(json, field);
  if (type === InputType.Treasury) return treasuryInputFromJson(json, field);
  return unexpectedType(field, type, "input type");
}

/** Fails with CountOutOfRange unless `min <= n <= max`. */
export function checkCount(n: number, field: string, min: number, max: number): void {
  if (n < min || n > max)
    throw codecError(CodecErrorCode.CountOutOfRange, field, `must be in [${min}, ${max}], got ${n}`);
}

/** A JSON array of `min` to `max` elements, each read by `read` under its path `${field}[i]`. */
export function listFromJson<T>(
  json: unknown,
  field: string,
  min: number,
  max: number,
  read: (item: unknown, field: string) => T,
): T[] {
  const items = expectArray(json, field);
  checkCount(items.length, field, min, max);
  return items.map((item, i) => read(item, `${field}[${i}]`));
}
