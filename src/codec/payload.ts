import { jsonType, unexpectedType } from "./input.js";
import type { JsonObject } from "./json.js";
import { deserializeMilestone, milestoneFromJson, milestoneToJson, serializeMilestone } from "./milestone.js";
import { decodeWith, ReadStream } from "./readStream.js";
import { deserializeTaggedData, serializeTaggedData, taggedDataFromJson, taggedDataToJson } from "./taggedData.js";
import { deserializeTransaction, serializeTransaction, transactionFromJson, transactionToJson } from "./transaction.js";
import {
  deserializeTreasuryTransaction,
  serializeTreasuryTransaction,
  treasuryTransactionFromJson,
  treasuryTransactionToJson,
} from "./treasuryTransaction.js";
import { type Payload, PayloadType } from "./types.js";
import { encodeWith, type WriteStream } from "./writeStream.js";

/**
 * Payload dispatch on the u32 payload type (TIP-24 registry), and the u32 length frame a
 * payload sits in inside a block. Which kinds a position admits is the caller's `allowed` list:
 * a block carries tagged data, transactions and milestones (TIP-24), never a treasury
 * transaction, which only occurs inside a receipt (TIP-34).
 */

/** Payload kinds a block may carry (TIP-24). */
export const BLOCK_PAYLOAD_TYPES: readonly number[] = [
  PayloadType.TaggedData,
  PayloadType.Transaction,
  PayloadType.Milestone,
];
/** Every payload kind this codec knows. */
export const ALL_PAYLOAD_TYPES: readonly number[] = [PayloadType.TreasuryTransaction, ...BLOCK_PAYLOAD_TYPES];

/** Writes the payload itself (type first), without a length frame. */
export function serializePayloadBody(w: WriteStream, p: Payload, field = "payload"): void {
  switch (p.type) {
    case PayloadType.TaggedData:
      serializeTaggedData(w, p, field);
      return;
    case PayloadType.Transaction:
      serializeTransaction(w, p, field);
      return;
    case PayloadType.Milestone:
      serializeMilestone(w, p, field);
      return;
    case PayloadType.TreasuryTransaction:
      serializeTreasuryTransaction(w, p, field);
      return;
    default:
      unexpectedType(field, (p as { type: number }).type, "payload type");
  }
}

/** Writes the u32 length frame and the payload; `undefined` is a zero length. */
export function serializePayload(w: WriteStream, p: Payload | undefined, field = "payload"): void {
  const at = w.length;
  w.u32(0);
  if (p === undefined) return;
  serializePayloadBody(w, p, field);
  w.setU32At(at, w.length - at - 4);
}

/** The payload bytes without frame (what a transaction ID hashes for a transaction). */
export const encodePayload = (p: Payload): Uint8Array => encodeWith(serializePayloadBody, p, 1024);

/** Reads a payload body whose type is in `allowed`, up to the end of `r`'s current object. */
export function deserializePayloadBody(
  r: ReadStream,
  field: string,
  allowed: readonly number[] = BLOCK_PAYLOAD_TYPES,
): Payload {
  const type = r.peekU32(`${field}.type`);
  if (!allowed.includes(type)) unexpectedType(field, type, "payload type here");
  switch (type) {
    case PayloadType.TaggedData:
      return deserializeTaggedData(r, field);
    case PayloadType.Transaction:
      return deserializeTransaction(r, field);
    case PayloadType.Milestone:
      return deserializeMilestone(r, field);
    default:
      return deserializeTreasuryTransaction(r, field);
  }
}

/**
 * Reads a u32 length frame and the payload in it; zero length is no payload. The payload must
 * fill its frame exactly: reading past it fails as Truncated, bytes left in it as TrailingBytes.
 */
export function deserializePayload(
  r: ReadStream,
  field: string,
  allowed: readonly number[] = BLOCK_PAYLOAD_TYPES,
): Payload | undefined {
  const length = r.u32(`${field}.length`);
  if (length === 0) return undefined;
  const inner = new ReadStream(r.bytesN(length, field));
  const payload = deserializePayloadBody(inner, field, allowed);
  inner.expectEnd(field);
  return payload;
}

/** Decodes complete payload bytes (no frame); trailing bytes fail. */
export function decodePayload(bytes: Uint8Array, field = "payload", allowed = ALL_PAYLOAD_TYPES): Payload {
  return decodeWith((r, f) => deserializePayloadBody(r, f, allowed), bytes, field);
}

export function payloadToJson(p: Payload): JsonObject {
  switch (p.type) {
    case PayloadType.TaggedData:
      return taggedDataToJson(p);
    case PayloadType.Transaction:
      return transactionToJson(p);
    case PayloadType.Milestone:
      return milestoneToJson(p);
    default:
      return treasuryTransactionToJson(p);
  }
}

export function payloadFromJson(
  json: unknown,
  field: string,
  allowed: readonly number[] = BLOCK_PAYLOAD_TYPES,
): Payload {
  const type = jsonType(json, field);
  if (!allowed.includes(type)) unexpectedType(field, type, "payload type here");
  switch (type) {
    case PayloadType.TaggedData:
      return taggedDataFromJson(json, field);
    case PayloadType.Transaction:
      return transactionFromJson(json, field);
    case PayloadType.Milestone:
      return milestoneFromJson(json, field);
    default:
      return treasuryTransactionFromJson(json, field);
  }
}
