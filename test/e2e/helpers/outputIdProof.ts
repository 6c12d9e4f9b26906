import { iota, iotaCrypto, iotaUtil, type Json, outputBytes } from "../../helpers/iota.js";

/**
 * A client's check of the `core/v3` output ID proof (docs/decisions.md, The v3 output read), rebuilt from the JSON
 * alone with iota.js's serializers and BLAKE2b, without the node's codec:
 * - leaf = H(0x00 ‖ output bytes), inner node = H(0x01 ‖ l ‖ r) (TIP-4), the tree over the
 *   transaction's serialized outputs split at the largest power of two below n;
 * - `transactionCommitment` = H(essence bytes from `networkId` to the end, outputs left out).
 */

const H = (...parts: Uint8Array[]): Uint8Array => {
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  return iotaCrypto.Blake2b.sum256(all);
};
const hex = (b: Uint8Array): string => iotaUtil.Converter.bytesToHex(b, true);
const bytes = (h: string): Uint8Array => iotaUtil.Converter.hexToBytes(h);

export const leafHash = (data: Uint8Array): Uint8Array => H(Uint8Array.of(0), data);
const nodeHash = (l: Uint8Array, r: Uint8Array): Uint8Array => H(Uint8Array.of(1), l, r);

/** TIP-4 Merkle root over already-hashed leaves. */
export function merkleRoot(leaves: Uint8Array[]): Uint8Array {
  if (leaves.length === 0) return H();
  if (leaves.length === 1) return leaves[0]!;
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return nodeHash(merkleRoot(leaves.slice(0, k)), merkleRoot(leaves.slice(k)));
}

/** The root a proof tree commits to, and the value hashes (type 2) it carries. */
function walk(node: Json, values: Uint8Array[], depth = 0): Uint8Array {
  if (depth > 16) throw new Error("proof deeper than any tree of 128 outputs");
  switch (node.type) {
    case 0:
      return nodeHash(walk(node.l, values, depth + 1), walk(node.r, values, depth + 1));
    case 1:
      return bytes(node.hash);
    case 2:
      values.push(bytes(node.hash));
      return bytes(node.hash);
    default:
      throw new Error(`unknown proof node type ${node.type}`);
  }
}

/** The audit path's position: 0 = left, 1 = right, from the root down to the value hash. */
function pathTo(node: Json): number[] | undefined {
  if (node.type === 2) return [];
  if (node.type !== 0) return undefined;
  const l = pathTo(node.l);
  if (l) return [0, ...l];
  const r = pathTo(node.r);
  return r ? [1, ...r] : undefined;
}

/** The leaf index a TIP-4 tree of `n` leaves puts at the end of `path` (-1: no single leaf). */
function indexOfPath(path: number[], n: number): number {
  let start = 0;
  let size = n;
  for (const side of path) {
    let k = 1;
    while (k * 2 < size) k *= 2;
    if (side === 0) size = k;
    else {
      start += k;
      size -= k;
    }
  }
  return size === 1 ? start : -1;
}

/** H(networkId ‖ inputs ‖ inputsCommitment ‖ payload) of an essence, as 0x-hex. */
export function transactionCommitment(essence: Json): string {
  const w = new iotaUtil.WriteStream();
  iota.serializeTransactionEssence(w, essence);
  const all = w.finalBytes();
  const inputs = new iotaUtil.WriteStream();
  iota.serializeInputs(inputs, essence.inputs);
  const outputs = new iotaUtil.WriteStream();
  iota.serializeOutputs(outputs, essence.outputs);
  const outputsAt = 1 + 8 + inputs.finalBytes().length + 32; // type u8, networkId u64, inputs, inputsCommitment
  return hex(H(all.subarray(1, outputsAt), all.subarray(outputsAt + outputs.finalBytes().length)));
}

/**
 * Checks a proof from the v3 read against the creating transaction's essence: one value hash,
 * equal to the leaf of output `outputIndex` as iota.js serializes it, at that leaf's position,
 * and a root equal to the Merkle root over all the transaction's outputs. Returns a reason
 * when it does not verify.
 */
export function checkOutputIdProof(proof: Json, essence: Json, outputIndex: number): string | undefined {
  const outputs = essence.outputs as Json[];
  const leaves = outputs.map((o) => leafHash(outputBytes(o)));
  const values: Uint8Array[] = [];
  const root = walk(proof.outputCommitmentProof, values);
  if (values.length !== 1) return `the proof carries ${values.length} value hashes`;
  if (hex(values[0]!) !== hex(leaves[outputIndex]!)) return "the value hash is not the leaf of the output's bytes";
  const path = pathTo(proof.outputCommitmentProof)!;
  const at = indexOfPath(path, outputs.length);
  if (at !== outputIndex) return `the value hash sits at leaf ${at}, not ${outputIndex}`;
  if (hex(root) !== hex(merkleRoot(leaves))) return "the proof's root is not the root over the transaction's outputs";
  if (proof.transactionCommitment !== transactionCommitment(essence)) return "transactionCommitment differs";
  return undefined;
}
