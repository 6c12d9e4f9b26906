import { CodecErrorCode, codecError } from "./errors.js";
import { compareBytes, toHex } from "./hex.js";
import { checkCount, jsonType, unexpectedType, writeFixed } from "./input.js";
import { expectArray, expectHex, expectObject, expectU8, expectU32, type JsonObject } from "./json.js";
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
  const list = expectArray(json, field);
  checkCount(list.length, field, MIN_PARENTS_COUNT, MAX_PARENTS_COUNT);
  const parents = list.map((x, i) => expectHex(x, `${field}[${i}]`, BLOCK_ID_LENGTH));
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
  const index = r.u32(`${field}.index`);
  const timestamp = r.u32(`${field}.timestamp`);
  const protocolVersion = r.u8(`${field}.protocolVersion`);
  const previousMilestoneId = r.bytesN(BLOCK_ID_LENGTH, `${field}.previousMilestoneId`);
  const parents = deserializeParents(r, `${field}.parents`);
  const inclusionMerkleRoot = r.bytesN(MERKLE_ROOT_LENGTH, `${field}.inclusionMerkleRoot`);
  const appliedMerkleRoot = r.bytesN(MERKLE_ROOT_LENGTH, `${field}.appliedMerkleRoot`);
  const metadata = r.bytesN(r.u16(`${field}.metadata.length`), `${field}.metadata`);
  const options = deserializeMilestoneOptions(r, `${field}.options`);
  const count = r.u8(`${field}.signatures.length`);
  checkCount(count, `${field}.signatures`, 1, MAX_MILESTONE_SIGNATURES);
  const signatures: Ed25519Signature[] = [];
  for (let i = 0; i < count; i++) signatures.push(deserializeSignature(r, `${field}.signatures[${i}]`));
  checkSignatureOrder(signatures, `${field}.signatures`);
  return {
    type: PayloadType.Milestone,
    index,
    timestamp,
    protocolVersion,
    previousMilestoneId,
    parents,
    inclusionMerkleRoot,
    appliedMerkleRoot,
    metadata,
    options,
    signatures,
  };
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
  const index = expectU32(o.index, `${field}.index`);
  const timestamp = expectU32(o.timestamp, `${field}.timestamp`);
  const protocolVersion = expectU8(o.protocolVersion, `${field}.protocolVersion`);
  const previousMilestoneId = expectHex(o.previousMilestoneId, `${field}.previousMilestoneId`, BLOCK_ID_LENGTH);
  const parents = parentsFromJson(o.parents, `${field}.parents`);
  const inclusionMerkleRoot = expectHex(o.inclusionMerkleRoot, `${field}.inclusionMerkleRoot`, MERKLE_ROOT_LENGTH);
  const appliedMerkleRoot = expectHex(o.appliedMerkleRoot, `${field}.appliedMerkleRoot`, MERKLE_ROOT_LENGTH);
  const metadata = o.metadata === undefined ? new Uint8Array(0) : expectHex(o.metadata, `${field}.metadata`);
  checkCount(metadata.length, `${field}.metadata`, 0, 0xffff);
  const options = o.options === undefined ? [] : milestoneOptionsFromJson(o.options, `${field}.options`);
  const signaturesJson = expectArray(o.signatures, `${field}.signatures`);
  checkCount(signaturesJson.length, `${field}.signatures`, 1, MAX_MILESTONE_SIGNATURES);
  const signatures = signaturesJson.map((x, i) => signatureFromJson(x, `${field}.signatures[${i}]`));
  checkSignatureOrder(signatures, `${field}.signatures`);
  return {
    type: PayloadType.Milestone,
    index,
    timestamp,
    protocolVersion,
    previousMilestoneId,
    parents,
    inclusionMerkleRoot,
    appliedMerkleRoot,
    metadata,
    options,
    signatures,
  };
}
