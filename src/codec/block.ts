import { CodecErrorCode, codecError } from "./errors.js";
import { toHex } from "./hex.js";
import { expectObject, expectU8, expectU64String, type JsonObject } from "./json.js";
import { deserializeParents, parentsFromJson, serializeParents } from "./milestone.js";
import { deserializePayload, payloadFromJson, payloadToJson, serializePayload } from "./payload.js";
import { decodeWith, type ReadStream } from "./readStream.js";
import type { Block } from "./types.js";
import { encodeWith, type WriteStream } from "./writeStream.js";

/**
 * Block (TIP-24): u8 protocol version, (u8) parents, (u32)-framed payload, u64 nonce. The
 * block ID is the BLAKE2b-256 of these bytes (ids.ts). The protocol version is not checked
 * here (that is syntactic, against the node's parameters): a decoded block always re-encodes
 * to the bytes it came from.
 */

/** Max Block Length (TIP-22/32). */
export const MAX_BLOCK_LENGTH = 32768;

export function serializeBlock(w: WriteStream, b: Block, field = "block"): void {
  w.u8(b.protocolVersion);
  serializeParents(w, b.parents, `${field}.parents`);
  serializePayload(w, b.payload, `${field}.payload`);
  w.u64(b.nonce);
}

export const encodeBlock = (b: Block): Uint8Array => encodeWith(serializeBlock, b, 1024);

export function deserializeBlock(r: ReadStream, field: string): Block {
  const protocolVersion = r.u8(`${field}.protocolVersion`);
  const parents = deserializeParents(r, `${field}.parents`);
  const payload = deserializePayload(r, `${field}.payload`);
  const nonce = r.u64(`${field}.nonce`);
  const block: Block = { protocolVersion, parents, nonce };
  if (payload !== undefined) block.payload = payload;
  return block;
}

/**
 * Decodes a whole block: at most 32768 bytes, every byte consumed. Fails only with CodecError.
 * The input is copied once (into a plain Uint8Array, a Buffer's `slice` would not copy) and the
 * block's byte fields are views of that copy: one allocation instead of one per field (a block
 * with 8 parents and a transaction has about 14), which makes decoding about a third faster and
 * the decoded block a third smaller on V8's heap.
 */
/**
 * The parents of serialized block bytes without decoding the rest (TIP-24: protocol version u8,
 * parents count u8, parents[32]…), as views of `bytes`; a truncated list stops where the bytes end.
 */
export function parentsOfBlockBytes(bytes: Uint8Array): Uint8Array[] {
  const count = bytes[1] ?? 0;
  const parents: Uint8Array[] = [];
  for (let i = 0; i < count && 2 + 32 * (i + 1) <= bytes.length; i++) {
    parents.push(bytes.subarray(2 + 32 * i, 2 + 32 * (i + 1)));
  }
  return parents;
}

export function decodeBlock(bytes: Uint8Array, field = "block"): Block {
  checkBlockLength(bytes.length, field);
  return decodeOwnedBlock(new Uint8Array(bytes), field);
}

/**
 * Decodes bytes the caller hands over to the block: its byte fields are views of `bytes`, which
 * nothing may write to afterwards (bytes just read from the store, or a private copy).
 */
export function decodeOwnedBlock(bytes: Uint8Array, field = "block"): Block {
  checkBlockLength(bytes.length, field);
  return decodeWith(deserializeBlock, bytes, field, true);
}

/** TIP-25 JSON; `payload` is left out when there is none. */
export function blockToJson(b: Block): JsonObject {
  const json: JsonObject = { protocolVersion: b.protocolVersion, parents: b.parents.map(toHex) };
  if (b.payload !== undefined) json.payload = payloadToJson(b.payload);
  json.nonce = b.nonce.toString();
  return json;
}

/**
 * Reads TIP-25 JSON; `payload` may be missing or null. A block whose binary form would exceed
 * 32768 bytes is rejected here too, so both wire forms admit the same blocks.
 */
export function blockFromJson(json: unknown, field = "block"): Block {
  const block = blockDraftFromJson(json, field);
  checkBlockLength(encodeBlock(block).length, field);
  return block;
}

/**
 * `blockFromJson` without its length check, for a caller that encodes the block itself and
 * checks the length of those bytes (a client's block: the intake's completion encodes it once its
 * parents are set, and the syntax rules bound its length, `validateBlockSyntax`). Encoding it
 * here as well cost about a tenth of the main thread's work on a submitted transfer
 * (docs/performance.md, Submitting over HTTP).
 */
export function blockDraftFromJson(json: unknown, field = "block"): Block {
  const o = expectObject(json, field, ["protocolVersion", "parents", "nonce"], ["payload"]);
  const protocolVersion = expectU8(o.protocolVersion, `${field}.protocolVersion`);
  const parents = parentsFromJson(o.parents, `${field}.parents`);
  const block: Block = { protocolVersion, parents, nonce: 0n };
  if (o.payload !== undefined && o.payload !== null) block.payload = payloadFromJson(o.payload, `${field}.payload`);
  block.nonce = expectU64String(o.nonce, `${field}.nonce`);
  return block;
}

function checkBlockLength(length: number, field: string): void {
  if (length > MAX_BLOCK_LENGTH) {
    throw codecError(
      CodecErrorCode.CountOutOfRange,
      field,
      `block is ${length} bytes, the limit is ${MAX_BLOCK_LENGTH}`,
    );
  }
}
