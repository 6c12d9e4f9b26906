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

/**
 * The whole tree over `leafHashes`, every inner node hashed once (n - 1 hashes), kept in one
 * buffer of 32-byte hashes in pre-order (a subtree of m leaves takes 2m - 1 slots: its root, then
 * its left subtree, then its right one). A proof from it (`proof`, the same tree `merkleProof`
 * gives) then costs no hash: the proofs of inclusion of a milestone's many blocks share one tree.
 * `build` hashes in slices with a pause between them, so a large tree does not hold a server's
 * event loop for the whole of its hashing.
 */
export class MerkleTree {
  /** Leaves of the tree. */
  readonly size: number;
  private readonly hashes: Uint8Array;

  private constructor(size: number) {
    this.size = size;
    this.hashes = new Uint8Array(Math.max(0, 2 * size - 1) * 32);
  }

  /** The tree over `leafHashes`, hashed at once. */
  static of(leafHashes: readonly Uint8Array[]): MerkleTree {
    const tree = new MerkleTree(leafHashes.length);
    const steps = tree.fill(leafHashes, Number.POSITIVE_INFINITY);
    while (!steps.next().done);
    return tree;
  }

  /** The tree over `leafHashes`, awaiting `pause()` after every `slice` inner hashes. */
  static async build(leafHashes: readonly Uint8Array[], pause: () => Promise<void>, slice = 4096): Promise<MerkleTree> {
    const tree = new MerkleTree(leafHashes.length);
    for (const steps = tree.fill(leafHashes, slice); !steps.next().done; ) await pause();
    return tree;
  }

  /**
   * Writes every node's hash, children before their parent (an explicit stack of frames
   * start, end, slot, expanded: no recursion), yielding after every `slice` inner hashes.
   */
  private *fill(leafHashes: readonly Uint8Array[], slice: number): Generator<void> {
    if (this.size === 0) return;
    const stack: number[] = [0, this.size, 0, 0];
    let hashed = 0;
    while (stack.length > 0) {
      const expanded = stack.pop()!;
      const at = stack.pop()!;
      const end = stack.pop()!;
      const start = stack.pop()!;
      if (end - start === 1) {
        this.hashes.set(leafHashes[start]!, at * 32);
        continue;
      }
      const k = largestPowerOfTwoBelow(end - start);
      if (expanded === 0) {
        stack.push(start, end, at, 1, start + k, end, at + 2 * k, 0, start, start + k, at + 1, 0);
        continue;
      }
      this.hashes.set(merkleNodeHash(this.viewAt(at + 1), this.viewAt(at + 2 * k)), at * 32);
      if (++hashed % slice === 0) yield;
    }
  }

  private viewAt(at: number): Uint8Array {
    return this.hashes.subarray(at * 32, at * 32 + 32);
  }

  private hashAt(at: number): Uint8Array {
    return this.hashes.slice(at * 32, at * 32 + 32);
  }

  /** The root (TIP-4 MTH); H("") for an empty tree. */
  get root(): Uint8Array {
    return this.size === 0 ? blake2b256() : this.hashAt(0);
  }

  /** The audit path of leaf `index`, as `merkleProof(leafHashes, index)` builds it. */
  proof(index: number): MerkleProofNode {
    if (!Number.isInteger(index) || index < 0 || index >= this.size) {
      throw new RangeError(`leaf ${index} is outside a tree of ${this.size} leaves`);
    }
    // down from the root, the siblings collected on the way, then the path built back up
    const steps: { side: "l" | "r"; sibling: Uint8Array }[] = [];
    let start = 0;
    let end = this.size;
    let at = 0;
    while (end - start > 1) {
      const k = largestPowerOfTwoBelow(end - start);
      if (index < start + k) {
        steps.push({ side: "l", sibling: this.hashAt(at + 2 * k) });
        end = start + k;
        at += 1;
      } else {
        steps.push({ side: "r", sibling: this.hashAt(at + 1) });
        start += k;
        at += 2 * k;
      }
    }
    let node: MerkleProofNode = { type: 2, hash: this.hashAt(at) };
    for (let i = steps.length - 1; i >= 0; i--) {
      const { side, sibling } = steps[i]!;
      const other: MerkleProofNode = { type: 1, hash: sibling };
      node = side === "l" ? { type: 0, l: node, r: other } : { type: 0, l: other, r: node };
    }
    return node;
  }
}
