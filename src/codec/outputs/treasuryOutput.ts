import { expectObject, expectU8, expectU64String } from "../json.js";
import type { ReadStream } from "../readStream.js";
import { OutputType, type TreasuryOutput } from "../types.js";
import type { WriteStream } from "../writeStream.js";
import { expectOutputType } from "./expectOutputType.js";

/**
 * Treasury output (TIP-21/TIP-34): the balance of the migration treasury, spent and re-created
 * only by receipt milestones. Layout: u8 type (2) | u64 amount.
 */

export interface TreasuryOutputJson {
  type: 2;
  amount: string;
}

const expectType = (type: number, field: string) => expectOutputType(type, OutputType.Treasury, "treasury", field);

/** Writes as given; decoding and `validateOutput` hold the rules. */
export function serializeTreasuryOutput(w: WriteStream, o: TreasuryOutput): void {
  w.u8(o.type);
  w.u64(o.amount);
}

/** `field` is the output's path; errors name fields below it, e.g. `${field}.amount`. */
export function deserializeTreasuryOutput(r: ReadStream, field: string): TreasuryOutput {
  expectType(r.u8(`${field}.type`), field);
  return { type: OutputType.Treasury, amount: r.u64(`${field}.amount`) };
}

/** The amount as a decimal string. */
export function treasuryOutputToJson(o: TreasuryOutput): TreasuryOutputJson {
  return { type: o.type, amount: o.amount.toString() };
}

/** Rejects unknown keys and a type other than 2. */
export function treasuryOutputFromJson(json: unknown, field: string): TreasuryOutput {
  const o = expectObject(json, field, ["type", "amount"]);
  expectType(expectU8(o.type, `${field}.type`), field);
  return { type: OutputType.Treasury, amount: expectU64String(o.amount, `${field}.amount`) };
}
