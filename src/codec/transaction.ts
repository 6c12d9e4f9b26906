import { checkCount, jsonType, listFromJson, unexpectedType } from "./input.js";
import { expectObject, type JsonObject } from "./json.js";
import type { ReadStream } from "./readStream.js";
import {
  deserializeTransactionEssence,
  serializeTransactionEssence,
  transactionEssenceFromJson,
  transactionEssenceToJson,
} from "./transactionEssence.js";
import { PayloadType, type TransactionPayload, type Unlock } from "./types.js";
import { deserializeUnlock, serializeUnlock, unlockFromJson, unlockToJson } from "./unlock.js";
import { encodeWith, type WriteStream } from "./writeStream.js";

/**
 * Transaction payload (TIP-20): u32 type 6, the essence, then (u16) unlocks, exactly one per
 * input. The transaction ID is the BLAKE2b-256 of these bytes (ids.ts).
 */

export function serializeTransaction(w: WriteStream, tx: TransactionPayload, field = "transaction"): void {
  checkCount(tx.unlocks.length, `${field}.unlocks`, 0, 0xffff);
  w.u32(PayloadType.Transaction);
  serializeTransactionEssence(w, tx.essence, `${field}.essence`);
  w.u16(tx.unlocks.length);
  for (let i = 0; i < tx.unlocks.length; i++) serializeUnlock(w, tx.unlocks[i]!, `${field}.unlocks[${i}]`);
}

/** The serialized transaction payload (type included). */
export const encodeTransaction = (tx: TransactionPayload): Uint8Array => encodeWith(serializeTransaction, tx, 1024);

export function deserializeTransaction(r: ReadStream, field: string): TransactionPayload {
  const type = r.u32(`${field}.type`);
  if (type !== PayloadType.Transaction) unexpectedType(field, type, "transaction payload type");
  const essence = deserializeTransactionEssence(r, `${field}.essence`);
  const count = r.u16(`${field}.unlocks.length`);
  checkCount(count, `${field}.unlocks`, essence.inputs.length, essence.inputs.length);
  const unlocks: Unlock[] = [];
  for (let i = 0; i < count; i++) unlocks.push(deserializeUnlock(r, `${field}.unlocks[${i}]`));
  return { type: PayloadType.Transaction, essence, unlocks };
}

export function transactionToJson(tx: TransactionPayload): JsonObject {
  return {
    type: PayloadType.Transaction,
    essence: transactionEssenceToJson(tx.essence),
    unlocks: tx.unlocks.map(unlockToJson),
  };
}

export function transactionFromJson(json: unknown, field: string): TransactionPayload {
  const type = jsonType(json, field);
  if (type !== PayloadType.Transaction) unexpectedType(field, type, "transaction payload type");
  const o = expectObject(json, field, ["type", "essence", "unlocks"]);
  const essence = transactionEssenceFromJson(o.essence, `${field}.essence`);
  const n = essence.inputs.length;
  const unlocks = listFromJson(o.unlocks, `${field}.unlocks`, n, n, unlockFromJson);
  return { type: PayloadType.Transaction, essence, unlocks };
}
