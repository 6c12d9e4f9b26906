import { type MerkleProofNode, merkleLeafHash, merkleNodeHash } from "../crypto/merkle.js";
import { blockFromJson, blockToJson } from "./block.js";
import { CodecErrorCode, codecError } from "./errors.js";
import { bytesEqual, toHex } from "./hex.js";
import { computeBlockId } from "./ids.js";
import { expectHex, expectObject, type JsonObject } from "./json.js";
import { milestoneFromJson, milestoneToJson } from "./milestone.js";
import type { Block, MilestonePayload } from "./types.js";

/**
 * The proof of inclusion of inx-poi (Hornet's plugin, `GET /api/poi/v1/create/{blockId}`), byte
 * for byte: `{milestone, block, proof}`, the milestone payload and the block in TIP-25 JSON and
 * `proof` the audit path from the block ID to the milestone's `inclusionMerkleRoot` (TIP-4: leaf
 * H(0x00 ‖ blockId), node H(0x01 ‖ l ‖ r), split at the largest power of two below n, over every
 * block the milestone referenced in white-flag order, TIP-2). The tree's JSON is iota.go's
 * `merklehasher.Proof`: an inner node `{"l", "r"}`, the hash of a sibling subtree `{"h"}`, the
 * proven leaf itself `{"value": "0x<blockId>"}` (the raw value, not its hash).
 *
 * Nothing here reads storage or checks signatures: the page of the explorer uses it as it is.
 */

/** One node of the audit path as inx-poi writes it. */
export type InclusionProofNode =
  | { l: InclusionProofNode; r: InclusionProofNode }
  | { h: Uint8Array }
  | { value: Uint8Array };

/** A whole proof of inclusion: what `create` answers and `validate` takes. */
export interface InclusionProof {
  milestone: MilestonePayload;
  block: Block;
  proof: InclusionProofNode;
}

/**
 * Deepest leaf a proof may have: a milestone references at most 2^32 blocks (the white-flag
 * index is a u32), whose tree is 32 levels deep. Checked before anything recurses into the tree.
 */
export const MAX_INCLUSION_PROOF_DEPTH = 32;

/**
 * Most nodes a proof may have: an audit path holds one inner node per level, each with a sibling
 * hash, and the proven leaf (inx-poi never writes another shape); this bounds a validation's hashes.
 */
export const MAX_INCLUSION_PROOF_NODES = 2 * MAX_INCLUSION_PROOF_DEPTH + 1;

/**
 * The inx-poi form of an audit path made by `merkleProof` (crypto/merkle.ts) over leaf hashes:
 * its value hash becomes the value it hashes, `value` (the block ID).
 */
export function inclusionProofFromMerkleProof(node: MerkleProofNode, value: Uint8Array): InclusionProofNode {
  if (node.type === 0)
    return { l: inclusionProofFromMerkleProof(node.l, value), r: inclusionProofFromMerkleProof(node.r, value) };
  if (node.type === 1) return { h: node.hash };
  return { value };
}

/** The root the path commits to (iota.go `Proof.Hash`): a value is hashed as a leaf, a hash is taken as it is. */
export function inclusionProofRoot(node: InclusionProofNode): Uint8Array {
  if ("l" in node) return merkleNodeHash(inclusionProofRoot(node.l), inclusionProofRoot(node.r));
  if ("h" in node) return node.h;
  return merkleLeafHash(node.value);
}

/** Whether a value leaf of the path holds `value` (iota.go `Proof.ContainsValue`). */
export function inclusionProofContains(node: InclusionProofNode, value: Uint8Array): boolean {
  if ("l" in node) return inclusionProofContains(node.l, value) || inclusionProofContains(node.r, value);
  return "value" in node && bytesEqual(node.value, value);
}

/** The tree's JSON (iota.go's field names: `l`, `r`, `h`, `value`). */
export function inclusionProofNodeToJson(node: InclusionProofNode): JsonObject {
  if ("l" in node) return { l: inclusionProofNodeToJson(node.l), r: inclusionProofNodeToJson(node.r) };
  if ("h" in node) return { h: toHex(node.h) };
  return { value: toHex(node.value) };
}

/**
 * Checks the tree's size without recursing (a body nested 10,000 deep is refused here, with a
 * reason, and never reaches a recursive reader): at most `MAX_INCLUSION_PROOF_DEPTH` levels and
 * `MAX_INCLUSION_PROOF_NODES` nodes.
 */
function checkTreeSize(json: unknown, field: string): void {
  const stack: { node: unknown; depth: number }[] = [{ node: json, depth: 0 }];
  let nodes = 0;
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    if (depth > MAX_INCLUSION_PROOF_DEPTH) {
      throw codecError(
        CodecErrorCode.CountOutOfRange,
        field,
        `the proof is nested deeper than ${MAX_INCLUSION_PROOF_DEPTH} levels (a milestone references at most 2^32 blocks)`,
      );
    }
    if (++nodes > MAX_INCLUSION_PROOF_NODES) {
      throw codecError(
        CodecErrorCode.CountOutOfRange,
        field,
        `the proof has more than ${MAX_INCLUSION_PROOF_NODES} nodes (an audit path has one hash per level)`,
      );
    }
    if (typeof node === "object" && node !== null && "l" in node) {
      const { l, r } = node as { l?: unknown; r?: unknown };
      stack.push({ node: l, depth: depth + 1 }, { node: r, depth: depth + 1 });
    }
  }
}

/** Reads the tree's JSON strictly: each node exactly one of the three shapes, 32-byte hex values. */
export function inclusionProofNodeFromJson(json: unknown, field = "proof"): InclusionProofNode {
  checkTreeSize(json, field);
  return nodeFromJson(json, field);
}

function nodeFromJson(json: unknown, field: string): InclusionProofNode {
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw codecError(CodecErrorCode.InvalidJson, field, 'expected a proof node: {"l", "r"}, {"h"} or {"value"}');
  }
  if ("l" in json || "r" in json) {
    const o = expectObject(json, field, ["l", "r"]);
    return { l: nodeFromJson(o.l, `${field}.l`), r: nodeFromJson(o.r, `${field}.r`) };
  }
  if ("h" in json) return { h: expectHex(expectObject(json, field, ["h"]).h, `${field}.h`, 32) };
  if ("value" in json) return { value: expectHex(expectObject(json, field, ["value"]).value, `${field}.value`, 32) };
  throw codecError(CodecErrorCode.InvalidJson, field, 'expected a proof node: {"l", "r"}, {"h"} or {"value"}');
}

/** `{milestone, block, proof}` as inx-poi answers it. */
export function inclusionProofToJson(p: InclusionProof): JsonObject {
  return {
    milestone: milestoneToJson(p.milestone),
    block: blockToJson(p.block),
    proof: inclusionProofNodeToJson(p.proof),
  };
}

/**
 * Reads `{milestone, block, proof}` (all three required, nothing else). The tree is read first,
 * so its size is checked before anything else is decoded, and the milestone last, so a caller
 * that takes a milestone without signatures for an unsigned one (not malformed input) knows the
 * rest was read.
 */
export function inclusionProofFromJson(json: unknown, field = "body"): InclusionProof {
  const o = expectObject(json, field, ["milestone", "block", "proof"]);
  const proof = inclusionProofNodeFromJson(o.proof, `${field}.proof`);
  const block = blockFromJson(o.block, `${field}.block`);
  return { milestone: milestoneFromJson(o.milestone, `${field}.milestone`), block, proof };
}

/**
 * What a proof shows without the coordinator's keys (the signatures are the caller's to check):
 * the block's ID is a value of the path, and the path's root is the milestone's inclusion Merkle
 * root. Undefined when both hold; else the reason, in words.
 */
export function inclusionProofFault(p: InclusionProof): string | undefined {
  const blockId = computeBlockId(p.block);
  if (!inclusionProofContains(p.proof, blockId)) return `the proof's path does not lead to block ${toHex(blockId)}`;
  if (!bytesEqual(inclusionProofRoot(p.proof), p.milestone.inclusionMerkleRoot)) {
    return "the proof's root is not the milestone's inclusion Merkle root";
  }
  return undefined;
}
