import { CodecErrorCode, codecError } from "./errors.js";
import { compareBytes, toHex } from "./hex.js";
import { checkCount, jsonType, listFromJson, unexpectedType, writeFixed } from "./input.js";
import { expectHex, expectObject, expectU8, expectU32, type JsonObject } from "./json.js";
import {
  deserializeMilestoneOptions,
  milestoneOptionsFromJson,
  milestoneOptionToJson,
  serializeMilestoneOptions,
} from "./milestoneOptions.js";
import type { ReadStream } from "./readStream.js";
import { deserializeSignature, serializeSignature, signatureFromJson, signatureToJson } from "./signature.js";
import { type Ed25519Signature, type MilestoneEssence, type MilestonePayload, PayloadType } from "./types.js";
import { encodeWith, type WriteStream } from "./writeStream.js";

/**
 * Milestone payload (TIP-29): u32 type 7, the essence (index, timestamp, protocol version,
 * previous milestone ID, parents, inclusion and applied Merkle roots, (u16) metadata, options),
 * then (u8) Ed25519 signatures sorted by public key. The milestone ID and what the signatures
 * sign is the BLAKE2b-256 of the essence alone: no payload type, no signatures.
 */

export const BLOCK_ID_LENGTH = 32;
export const MERKLE_ROOT_LENGTH = 32;
export const MIN_PARENTS_COUNT = 1;
export const MAX_PARENTS_COUNT = 8;
export const MAX_MILESTONE_SIGNATURES = 255;

// ---------------------------------------------------------------- parents (shared with the block)

/** Parents: 1..8 block IDs, strictly ascending (sorted and unique) as TIP-24 and TIP-29 require. */
export function checkParents(parents: readonly Uint8Array[], field: string): void {
  checkCount(parents.length, field, MIN_PARENTS_COUNT, MAX_PARENTS_COUNT);
  for (let i = 1; i < parents.length; i++) {
    if (compareBytes(parents[i - 1]!, parents[i]!) >= 0) {
      throw codecError(CodecErrorCode.NotSortedOrUnique, `${field}[${i}]`, "parents must be sorted and unique");
    }
  }
}

export function serializeParents(w: WriteStream, parents: readonly Uint8Array[], field: string): void {
  checkCount(parents.length, field, 0, 0xff);
  w.u8(parents.length);
  for (let i = 0; i < parents.length; i++) writeFixed(w, parents[i]!, BLOCK_ID_LENGTH, `${field}[${i}]`);
}

export function deserializeParents(r: ReadStream, field: string): Uint8Array[] {
  const count = r.u8(`${field}.length`);
  checkCount(count, field, MIN_PARENTS_COUNT, MAX_PARENTS_COUNT);
  const parents: Uint8Array[] = [];
  for (let i = 0; i < count; i++) parents.push(r.bytesN(BLOCK_ID_LENGTH, `${field}[${i}]`));
  checkParents(parents, field);
  return parents;
}

export function parentsFromJson(json: unknown, field: string): Uint8Array[] {
  const parents = listFromJson(json, field, MIN_PARENTS_COUNT, MAX_PARENTS_COUNT, (x, f) =>
    expectHex(x, f, BLOCK_ID_LENGTH),
  );
  checkParents(parents, field);
  return parents;
}

// ---------------------------------------------------------------- binary

/** Writes the signed essence: the milestone without its type and signatures. */
export function serializeMilestoneEssence(w: WriteStream, m: MilestoneEssence, field = "milestone"): void {
  checkCount(m.metadata.length, `${field}.metadata`, 0, 0xffff);
  w.u32(m.index).u32(m.timestamp).u8(m.protocolVersion);
  writeFixed(w, m.previousMilestoneId, BLOCK_ID_LENGTH, `${field}.previousMilestoneId`);
  serializeParents(w, m.parents, `${field}.parents`);
  writeFixed(w, m.inclusionMerkleRoot, MERKLE_ROOT_LENGTH, `${field}.inclusionMerkleRoot`);
  writeFixed(w, m.appliedMerkleRoot, MERKLE_ROOT_LENGTH, `${field}.appliedMerkleRoot`);
  w.u16(m.metadata.length).bytes(m.metadata);
  serializeMilestoneOptions(w, m.options, `${field}.options`);
}

/** The essence bytes: what the milestone ID hashes and what each signature signs the hash of. */
export const milestoneEssenceBytes = (m: MilestoneEssence): Uint8Array => encodeWith(serializeMilestoneEssence, m, 512);

export function serializeMilestone(w: WriteStream, m: MilestonePayload, field = "milestone"): void {
  checkCount(m.signatures.length, `${field}.signatures`, 0, 0xff);
  w.u32(PayloadType.Milestone);
  serializeMilestoneEssence(w, m, field);
  w.u8(m.signatures.length);
  for (let i = 0; i < m.signatures.length; i++) serializeSignature(w, m.signatures[i]!, `${field}.signatures[${i}]`);
}

/** The serialized milestone payload (type included). */
export const encodeMilestone = (m: MilestonePayload): Uint8Array => encodeWith(serializeMilestone, m, 1024);

export function deserializeMilestone(r: ReadStream, field: string): MilestonePayload {
  const type = r.u32(`${field}.type`);
  if (type !== PayloadType.Milestone) unexpectedType(field, type, "milestone payload type");
  return {
    type: PayloadType.Milestone,
    index: r.u32(`${field}.index`),
    timestamp: r.u32(`${field}.timestamp`),
    protocolVersion: r.u8(`${field}.protocolVersion`),
    previousMilestoneId: r.bytesN(BLOCK_ID_LENGTH, `${field}.previousMilestoneId`),
    parents: deserializeParents(r, `${field}.parents`),
    inclusionMerkleRoot: r.bytesN(MERKLE_ROOT_LENGTH, `${field}.inclusionMerkleRoot`),
    appliedMerkleRoot: r.bytesN(MERKLE_ROOT_LENGTH, `${field}.appliedMerkleRoot`),
    metadata: r.bytesN(r.u16(`${field}.metadata.length`), `${field}.metadata`),
    options: deserializeMilestoneOptions(r, `${field}.options`),
    signatures: deserializeSignatures(r, `${field}.signatures`),
  };
}

/** 1 to 255 signatures, in the order `checkSignatureOrder` asks. */
function deserializeSignatures(r: ReadStream, field: string): Ed25519Signature[] {
  const count = r.u8(`${field}.length`);
  checkCount(count, field, 1, MAX_MILESTONE_SIGNATURES);
  const signatures: Ed25519Signature[] = [];
  for (let i = 0; i < count; i++) signatures.push(deserializeSignature(r, `${field}[${i}]`));
  checkSignatureOrder(signatures, field);
  return signatures;
}

/** Signatures ascend strictly by public key: sorted, each key once (TIP-29). */
export function checkSignatureOrder(signatures: readonly Ed25519Signature[], field: string): void {
  for (let i = 1; i < signatures.length; i++) {
    if (compareBytes(signatures[i - 1]!.publicKey, signatures[i]!.publicKey) >= 0) {
      throw codecError(
        CodecErrorCode.NotSortedOrUnique,
        `${field}[${i}].publicKey`,
        "signatures must be sorted by public key, each key once",
      );
    }
  }
}

// ---------------------------------------------------------------- JSON (TIP-25)

/** `metadata` ("0x" when empty) and `options` ([] when none) are always written. */
export function milestoneToJson(m: MilestonePayload): JsonObject {
  return {
    type: PayloadType.Milestone,
    index: m.index,
    timestamp: m.timestamp,
    protocolVersion: m.protocolVersion,
    previousMilestoneId: toHex(m.previousMilestoneId),
    parents: m.parents.map(toHex),
    inclusionMerkleRoot: toHex(m.inclusionMerkleRoot),
    appliedMerkleRoot: toHex(m.appliedMerkleRoot),
    metadata: toHex(m.metadata),
    options: m.options.map(milestoneOptionToJson),
    signatures: m.signatures.map(signatureToJson),
  };
}

/** `metadata` and `options` may be missing (Hornet omits them when empty). */
export function milestoneFromJson(json: unknown, field: string): MilestonePayload {
  const type = jsonType(json, field);
  if (type !== PayloadType.Milestone) unexpectedType(field, type, "milestone payload type");
  const o = expectObject(
    json,
    field,
    [
      "type",
      "index",
      "timestamp",
      "protocolVersion",
      "previousMilestoneId",
      "parents",
      "inclusionMerkleRoot",
      "appliedMerkleRoot",
      "signatures",
    ],
    ["metadata", "options"],
  );
  return {
    type: PayloadType.Milestone,
    index: expectU32(o.index, `${field}.index`),
    timestamp: expectU32(o.timestamp, `${field}.timestamp`),
    protocolVersion: expectU8(o.protocolVersion, `${field}.protocolVersion`),
    previousMilestoneId: expectHex(o.previousMilestoneId, `${field}.previousMilestoneId`, BLOCK_ID_LENGTH),
    parents: parentsFromJson(o.parents, `${field}.parents`),
    inclusionMerkleRoot: expectHex(o.inclusionMerkleRoot, `${field}.inclusionMerkleRoot`, MERKLE_ROOT_LENGTH),
    appliedMerkleRoot: expectHex(o.appliedMerkleRoot, `${field}.appliedMerkleRoot`, MERKLE_ROOT_LENGTH),
    metadata: metadataFromJson(o.metadata, `${field}.metadata`),
    options: o.options === undefined ? [] : milestoneOptionsFromJson(o.options, `${field}.options`),
    signatures: signaturesFromJson(o.signatures, `${field}.signatures`),
  };
}

/** Missing metadata is empty; at most 65535 bytes (its length is a u16). */
function metadataFromJson(json: unknown, field: string): Uint8Array {
  const metadata = json === undefined ? new Uint8Array(0) : expectHex(json, field);
  checkCount(metadata.length, field, 0, 0xffff);
  return metadata;
}

/** Rejects what `deserializeSignatures` rejects, under the same code and field path. */
function signaturesFromJson(json: unknown, field: string): Ed25519Signature[] {
  const signatures = listFromJson(json, field, 1, MAX_MILESTONE_SIGNATURES, signatureFromJson);
  checkSignatureOrder(signatures, field);
  return signatures;
}
