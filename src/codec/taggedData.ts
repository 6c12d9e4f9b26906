import { CodecErrorCode, codecError } from "./errors.js";
import { toHex } from "./hex.js";
import { checkCount, jsonType, unexpectedType } from "./input.js";
import { expectHex, expectObject, type JsonObject } from "./json.js";
import type { ReadStream } from "./readStream.js";
import { PayloadType, type TaggedDataPayload } from "./types.js";
import type { WriteStream } from "./writeStream.js";

/**
 * Tagged data payload (TIP-23): u32 type 5, a (u8)-prefixed tag, a (u32)-prefixed data blob.
 * The 64-byte tag limit is a syntactic rule (syntactic.ts); the codec accepts any tag its
 * length prefix can express, so a decoded object always re-encodes to the same bytes.
 */

/** Max Tag Length (TIP-22/32). */
export const MAX_TAG_LENGTH = 64;

export function serializeTaggedData(w: WriteStream, p: TaggedDataPayload, field = "taggedData"): void {
  checkCount(p.tag.length, `${field}.tag`, 0, 0xff);
  w.u32(PayloadType.TaggedData).u8(p.tag.length).bytes(p.tag).u32(p.data.length).bytes(p.data);
}

export function deserializeTaggedData(r: ReadStream, field: string): TaggedDataPayload {
  const type = r.u32(`${field}.type`);
  if (type !== PayloadType.TaggedData) unexpectedType(field, type, "tagged data payload type");
  const tag = r.bytesN(r.u8(`${field}.tag.length`), `${field}.tag`);
  const data = r.bytesN(r.u32(`${field}.data.length`), `${field}.data`);
  return { type: PayloadType.TaggedData, tag, data };
}

/** Empty tag and data are written as "0x". */
export function taggedDataToJson(p: TaggedDataPayload): JsonObject {
  return { type: PayloadType.TaggedData, tag: toHex(p.tag), data: toHex(p.data) };
}

/**
 * `tag` and `data` may be missing or "" for empty (Hornet omits empty fields, iota.js writes "").
 */
export function taggedDataFromJson(json: unknown, field: string): TaggedDataPayload {
  const type = jsonType(json, field);
  if (type !== PayloadType.TaggedData) unexpectedType(field, type, "tagged data payload type");
  const o = expectObject(json, field, ["type"], ["tag", "data"]);
  const tag = optionalHex(o.tag, `${field}.tag`);
  if (tag.length > 0xff) throw codecError(CodecErrorCode.CountOutOfRange, `${field}.tag`, "longer than 255 bytes");
  return { type: PayloadType.TaggedData, tag, data: optionalHex(o.data, `${field}.data`) };
}

function optionalHex(v: unknown, field: string): Uint8Array {
  return v === undefined || v === "" ? new Uint8Array(0) : expectHex(v, field);
}
