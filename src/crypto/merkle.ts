import { blake2b256 } from "./blake2b.js";

/**
 * The binary Merkle tree of TIP-4 (milestone inclusion/applied roots), which TIP-45 reuses for
 * output commitment proofs: leaf = H(0x00 ‖ data), node = H(0x01 ‖ left ‖ right), an empty
 * tree hashes to H(""), and a tree of n > 1 leaves splits at k, the largest power of two below n.
 * Functions take leaf *hashes* where a caller stores them (proofs outlive the leaf data).
 */

const LEAF_PREFIX = Uint8Array.of(0x00);
const NODE_PREFIX = Uint8Array.of(0x01);

/** H(0x00 ‖ data): the hash of one leaf. */
export function merkleLeafHash(data: Uint8Array): Uint8Array {
  return blake2b256(LEAF_PREFIX, data);
}

/** H(0x01 ‖ left ‖ right): the hash of an inner node. */
export function merkleNodeHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  return blake2b256(NODE_PREFIX, left, right);
}

/** Largest power of two strictly below n (n ≥ 2), the split point of TIP-4. */
export function largestPowerOfTwoBelow(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** Root over already-hashed leaves `leafHashes[start:end)`. */
export function merkleRootFromLeafHashes(
  leafHashes: readonly Uint8Array[],
  start = 0,
  end = leafHashes.length,
): Uint8Array {
  const n = end - start;
  if (n === 0) return blake2b256();
  if (n === 1) return leafHashes[start]!;
  const k = largestPowerOfTwoBelow(n);
  return merkleNodeHash(
    merkleRootFromLeafHashes(leafHashes, start, start + k),
    merkleRootFromLeafHashes(leafHashes, start + k, end),
  );
}

/** MTH(D) of TIP-4: the root over the raw entries. */
export function merkleRoot(entries: readonly Uint8Array[]): Uint8Array {
  return merkleRootFromLeafHashes(entries.map(merkleLeafHash));
}

/**
 * A TIP-45 proof component: 0 = inner node with both children, 1 = hash of a sibling subtree
 * ("Leaf Hash"), 2 = hash of the proven leaf itself ("Value Hash").
 */
export type MerkleProofNode =
  | { type: 0; l: MerkleProofNode; r: MerkleProofNode }
  | { type: 1; hash: Uint8Array }
  | { type: 2; hash: Uint8Array };

/**
 * The audit path for leaf `index` as a TIP-45 proof tree ("Compute Proof"): along the path the
 * proven side recurses, the other side is collapsed to its subtree hash.
 */
export function merkleProof(
  leafHashes: readonly Uint8Array[],
  index: number,
  start = 0,
  end = leafHashes.length,
): MerkleProofNode {
  const n = end - start;
  if (n <= 0 || index < start || index >= end) throw new RangeError(`leaf ${index} is outside a tree of ${n} leaves`);
  if (n === 1) return { type: 2, hash: leafHashes[start]! };
  const k = largestPowerOfTwoBelow(n);
  if (index < start + k) {
    return {
      type: 0,
      l: merkleProof(leafHashes, index, start, start + k),
      r: { type: 1, hash: merkleRootFromLeafHashes(leafHashes, start + k, end) },
    };
  }
  return {
    type: 0,
    l: { type: 1, hash: merkleRootFromLeafHashes(leafHashes, start, start + k) },
    r: merkleProof(leafHashes, index, start + k, end),
  };
}

/**
 * The proofs of every leaf at once (each as `merkleProof` gives it), with each inner node hashed
 * once: n - 1 hashes for the whole transaction instead of up to n - 1 per proof.
 */
export function merkleProofs(leafHashes: readonly Uint8Array[]): MerkleProofNode[] {
  if (leafHashes.length === 0) return [];
  return proofsOf(leafHashes, 0, leafHashes.length).proofs;
}

function proofsOf(
  leafHashes: readonly Uint8Array[],
  start: number,
  end: number,
): { root: Uint8Array; proofs: MerkleProofNode[] } {
  if (end - start === 1) return { root: leafHashes[start]!, proofs: [{ type: 2, hash: leafHashes[start]! }] };
  const k = largestPowerOfTwoBelow(end - start);
  const left = proofsOf(leafHashes, start, start + k);
  const right = proofsOf(leafHashes, start + k, end);
  const leftHash: MerkleProofNode = { type: 1, hash: left.root };
  const rightHash: MerkleProofNode = { type: 1, hash: right.root };
  return {
    root: merkleNodeHash(left.root, right.root),
    proofs: [
      ...left.proofs.map((l): MerkleProofNode => ({ type: 0, l, r: rightHash })),
      ...right.proofs.map((r): MerkleProofNode => ({ type: 0, l: leftHash, r })),
    ],
  };
}

/** "Hash Component" of TIP-45: the root a proof commits to. */
export function merkleRootFromProof(node: MerkleProofNode): Uint8Array {
  return node.type === 0 ? merkleNodeHash(merkleRootFromProof(node.l), merkleRootFromProof(node.r)) : node.hash;
}

/** The value hash a proof carries (exactly one node of type 2), or undefined when malformed. */
export function merkleProofValueHash(node: MerkleProofNode): Uint8Array | undefined {
  if (node.type === 2) return node.hash;
  if (node.type === 1) return undefined;
  const l = merkleProofValueHash(node.l);
  const r = merkleProofValueHash(node.r);
  if (l !== undefined && r !== undefined) return undefined;
  return l ?? r;
}
