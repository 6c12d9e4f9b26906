import { blake2b256 } from "../crypto/blake2b.js";
import {
  type MerkleProofNode,
  merkleLeafHash,
  merkleProof,
  merkleProofs,
  merkleProofValueHash,
  merkleRootFromProof,
} from "../crypto/merkle.js";
import { CodecErrorCode, codecError } from "./errors.js";
import { bytesEqual, toHex } from "./hex.js";
import { serializeUtxoInput } from "./input.js";
import { expectHex, expectInt, expectObject } from "./json.js";
import { ReadStream } from "./readStream.js";
import { serializeTaggedData } from "./taggedData.js";
import type { RegularTransactionEssence } from "./types.js";
import { WriteStream } from "./writeStream.js";

/**
 * The output ID proof of the `core/v3` full-output read (docs/decisions.md, The v3 output read): TIP-45's proof
 * construction applied to the Stardust transaction that created an output.
 * - `transactionCommitment` = BLAKE2b-256 of the essence from `networkId` to its end with the
 *   outputs left out (networkId ‖ inputs ‖ inputsCommitment ‖ payload, each with its prefix);
 * - `outputCommitmentProof` = the TIP-45 Merkle proof of the output's leaf in the tree over the
 *   transaction's serialized outputs.
 * An output with no creating transaction on record (genesis, snapshot import) gets H("genesis")
 * and a single value-hash node, as IOTA 2.0 does for its genesis outputs.
 */

export interface OutputIdProof {
  slot: number;
  outputIndex: number;
  transactionCommitment: Uint8Array;
  outputCommitmentProof: MerkleProofNode;
}

export const GENESIS_TRANSACTION_COMMITMENT = blake2b256(new TextEncoder().encode("genesis"));

/** BLAKE2b-256 over the essence with its outputs left out (docs/decisions.md, The v3 output read). */
export function transactionCommitment(essence: RegularTransactionEssence): Uint8Array {
  const w = new WriteStream(256);
  w.u64(essence.networkId).u16(essence.inputs.length);
  for (let i = 0; i < essence.inputs.length; i++) serializeUtxoInput(w, essence.inputs[i]!, `essence.inputs[${i}]`);
  w.bytes(essence.inputsCommitment);
  const at = w.length;
  w.u32(0);
  if (essence.payload) {
    serializeTaggedData(w, essence.payload, "essence.payload");
    w.setU32At(at, w.length - at - 4);
  }
  return blake2b256(w.finish());
}

/** The leaf hashes stored at booking time, one per serialized output of the transaction. */
export function outputLeafHashes(outputBytes: readonly Uint8Array[]): Uint8Array[] {
  return outputBytes.map(merkleLeafHash);
}

/** Builds the proof for output `outputIndex` from the stored commitment and leaf hashes. */
export function buildOutputIdProof(
  slot: number,
  outputIndex: number,
  txCommitment: Uint8Array,
  leafHashes: readonly Uint8Array[],
): OutputIdProof {
  return {
    slot,
    outputIndex,
    transactionCommitment: txCommitment,
    outputCommitmentProof: merkleProof(leafHashes, outputIndex),
  };
}

/** The proof of an output that has no creating transaction on record. */
export function genesisOutputIdProof(slot: number, outputIndex: number, outputBytes: Uint8Array): OutputIdProof {
  return {
    slot,
    outputIndex,
    transactionCommitment: GENESIS_TRANSACTION_COMMITMENT,
    outputCommitmentProof: { type: 2, hash: merkleLeafHash(outputBytes) },
  };
}

// ---------------------------------------------------------------- stored form

/**
 * The proof of each output of a transaction as the output's record keeps it (storage/records.ts):
 * transactionCommitment[32] ‖ proof tree, a node being u8 type ‖ (0: left node ‖ right node;
 * 1, 2: hash[32]). Made once at booking, so a read of the output needs neither the
 * transaction's other outputs nor a hash.
 */
export function storedOutputIdProofs(txCommitment: Uint8Array, leafHashes: readonly Uint8Array[]): Uint8Array[] {
  return merkleProofs(leafHashes).map((tree) => {
    const w = new WriteStream(32 + 33 * 8).bytes(txCommitment);
    writeProofNode(w, tree);
    return w.finish();
  });
}

function writeProofNode(w: WriteStream, node: MerkleProofNode): void {
  w.u8(node.type);
  if (node.type === 0) {
    writeProofNode(w, node.l);
    writeProofNode(w, node.r);
  } else {
    w.bytes(node.hash);
  }
}

/**
 * The proof of an output from its stored form (hashes are views of `stored`); an empty stored
 * proof (no creating transaction on record) gives the genesis form.
 */
export function outputIdProofFromStored(
  slot: number,
  outputIndex: number,
  stored: Uint8Array,
  outputBytes: Uint8Array,
): OutputIdProof {
  if (stored.length === 0) return genesisOutputIdProof(slot, outputIndex, outputBytes);
  const r = new ReadStream(stored);
  const transactionCommitment = r.view(32, "proof.transactionCommitment");
  const outputCommitmentProof = readProofNode(r, "proof.outputCommitmentProof", 0);
  r.expectEnd("proof");
  return { slot, outputIndex, transactionCommitment, outputCommitmentProof };
}

function readProofNode(r: ReadStream, field: string, depth: number): MerkleProofNode {
  if (depth > 64) throw codecError(CodecErrorCode.CountOutOfRange, field, "proof is deeper than 64 levels");
  const type = r.u8(`${field}.type`);
  if (type === 0) {
    return { type: 0, l: readProofNode(r, `${field}.l`, depth + 1), r: readProofNode(r, `${field}.r`, depth + 1) };
  }
  if (type !== 1 && type !== 2) throw codecError(CodecErrorCode.UnknownType, `${field}.type`, `node type ${type}`);
  return { type, hash: r.view(32, `${field}.hash`) };
}

/**
 * What a client checks: the proof's value hash is the leaf hash of the output's bytes, and the
 * proof rebuilds to `expectedRoot` when the caller knows it (the Merkle root over the
 * transaction's outputs). Returns the root the proof commits to, or undefined when it does not
 * prove these bytes.
 */
export function verifyOutputIdProof(
  proof: OutputIdProof,
  outputBytes: Uint8Array,
  expectedRoot?: Uint8Array,
): Uint8Array | undefined {
  const value = merkleProofValueHash(proof.outputCommitmentProof);
  if (value === undefined || !bytesEqual(value, merkleLeafHash(outputBytes))) return undefined;
  const root = merkleRootFromProof(proof.outputCommitmentProof);
  if (expectedRoot !== undefined && !bytesEqual(root, expectedRoot)) return undefined;
  return root;
}

// ---------------------------------------------------------------- JSON

/**
 * The JSON text of a proof tree. Written directly rather than through objects and
 * JSON.stringify: its nodes are of two shapes, which made that path several times slower for a
 * tree of a handful of nodes, and every field is an integer or a hex string (nothing to escape).
 */
function merkleProofNodeJson(node: MerkleProofNode): string {
  return node.type === 0
    ? `{"type":0,"l":${merkleProofNodeJson(node.l)},"r":${merkleProofNodeJson(node.r)}}`
    : `{"type":${node.type},"hash":"${toHex(node.hash)}"}`;
}

export function merkleProofNodeFromJson(json: unknown, field: string, depth = 0): MerkleProofNode {
  if (depth > 64) throw codecError(CodecErrorCode.CountOutOfRange, field, "proof is deeper than 64 levels");
  const type = expectInt((json as { type?: unknown })?.type, `${field}.type`, 0, 2);
  if (type === 0) {
    const o = expectObject(json, field, ["type", "l", "r"]);
    return {
      type: 0,
      l: merkleProofNodeFromJson(o.l, `${field}.l`, depth + 1),
      r: merkleProofNodeFromJson(o.r, `${field}.r`, depth + 1),
    };
  }
  const o = expectObject(json, field, ["type", "hash"]);
  return { type: type as 1 | 2, hash: expectHex(o.hash, `${field}.hash`, 32) };
}

/** The JSON text of an output ID proof: `{slot, outputIndex, transactionCommitment, outputCommitmentProof}`. */
export function outputIdProofJson(p: OutputIdProof): string {
  return (
    `{"slot":${p.slot},"outputIndex":${p.outputIndex},` +
    `"transactionCommitment":"${toHex(p.transactionCommitment)}",` +
    `"outputCommitmentProof":${merkleProofNodeJson(p.outputCommitmentProof)}}`
  );
}
