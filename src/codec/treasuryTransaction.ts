import {
  deserializeTreasuryInput,
  jsonType,
  serializeTreasuryInput,
  treasuryInputFromJson,
  treasuryInputToJson,
  unexpectedType,
} from "./input.js";
import { expectObject, type JsonObject } from "./json.js";
import { deserializeOutput, outputFromJson, outputToJson, serializeOutput } from "./outputs/output.js";
import type { ReadStream } from "./readStream.js";
import { OutputType, PayloadType, type TreasuryOutput, type TreasuryTransactionPayload } from "./types.js";
import type { WriteStream } from "./writeStream.js";

/**
 * Treasury transaction (TIP-34): u32 type 4, a treasury input naming the milestone that created
 * the current treasury output, and the new treasury output. It only occurs inside a receipt
 * milestone option, never directly in a block.
 */

export function serializeTreasuryTransaction(
  w: WriteStream,
  p: TreasuryTransactionPayload,
  field = "treasuryTransaction",
): void {
  if (p.output.type !== OutputType.Treasury) unexpectedType(`${field}.output`, p.output.type, "treasury output type");
  w.u32(PayloadType.TreasuryTransaction);
  serializeTreasuryInput(w, p.input, `${field}.input`);
  serializeOutput(w, p.output);
}

export function deserializeTreasuryTransaction(r: ReadStream, field: string): TreasuryTransactionPayload {
  const type = r.u32(`${field}.type`);
  if (type !== PayloadType.TreasuryTransaction) unexpectedType(field, type, "treasury transaction payload type");
  const input = deserializeTreasuryInput(r, `${field}.input`);
  const outputType = r.peekU8(`${field}.output.type`);
  if (outputType !== OutputType.Treasury) unexpectedType(`${field}.output`, outputType, "treasury output type");
  const output = deserializeOutput(r, `${field}.output`) as TreasuryOutput;
  return { type: PayloadType.TreasuryTransaction, input, output };
}

export function treasuryTransactionToJson(p: TreasuryTransactionPayload): JsonObject {
  return { type: PayloadType.TreasuryTransaction, input: treasuryInputToJson(p.input), output: outputToJson(p.output) };
}

export function treasuryTransactionFromJson(json: unknown, field: string): TreasuryTransactionPayload {
  const type = jsonType(json, field);
  if (type !== PayloadType.TreasuryTransaction) unexpectedType(field, type, "treasury transaction payload type");
  const o = expectObject(json, field, ["type", "input", "output"]);
  const input = treasuryInputFromJson(o.input, `${field}.input`);
  const outputType = jsonType(o.output, `${field}.output`);
  if (outputType !== OutputType.Treasury) unexpectedType(`${field}.output`, outputType, "treasury output type");
  const output = outputFromJson(o.output, `${field}.output`) as TreasuryOutput;
  return { type: PayloadType.TreasuryTransaction, input, output };
}
