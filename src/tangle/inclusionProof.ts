import { decodeBlock } from "../codec/block.js";
import { CodecErrorCode, isCodecError } from "../codec/errors.js";
import { bytesEqual, toHex } from "../codec/hex.js";
import { computeMilestoneId } from "../codec/ids.js";
import {
  type InclusionProof,
  inclusionProofFault,
  inclusionProofFromJson,
  inclusionProofFromMerkleProof,
} from "../codec/inclusionProof.js";
import { type MilestoneKeys, milestoneSignatureFault } from "../codec/syntactic.js";
import { type MilestonePayload, PayloadType } from "../codec/types.js";
import { MerkleTree, merkleLeafHash } from "../crypto/merkle.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { TangleErrorCode } from "./errors.js";
import type { TangleView } from "./tangleView.js";

/**
 * Proofs of inclusion as Hornet's inx-poi plugin makes and checks them (codec/inclusionProof.ts
 * has the format): `create` proves that a block was referenced by a milestone, with the
 * milestone and the audit path from the block ID to its `inclusionMerkleRoot`; `validate`
 * checks such a proof, made here or by inx-poi, against this network's coordinator keys alone.
 *
 * The path is taken over the blocks the milestone referenced in white-flag order (TIP-2, TIP-4;
 * conflicting blocks and blocks without payload included), which the node keeps per milestone
 * in the MilestoneBlock bucket. That bucket is written in the milestone's own batch by a ledger
 * index the node always attaches (indexer/explorerIndex.ts, not an optional component) and
 * pruned with the milestone's blocks (tangle/prune.ts): a block that can be read can be proven
 * (docs/decisions.md, Proofs of inclusion).
 */

/** What `create` reads: the tangle's block reads (in memory or stored) and the repositories. */
export type InclusionProofSource = Pick<TangleView, "db" | "getBlockBytes" | "getMetadata">;

/**
 * Most blocks of a milestone a proof is made over: its tree takes 64 bytes a block (16 MiB at
 * this bound) and its first proof about a second of hashing, in slices (far above the cones
 * this node's coordinator issues: a few thousand blocks a milestone under load, bench core).
 */
export const MAX_PROVABLE_CONE = 1 << 18;

/** Inner hashes between two pauses of a tree's hashing (a few milliseconds of the event loop). */
const HASH_SLICE = 2048;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Cone entries read per range read. */
const CONE_PAGE = 10_000;

/** One milestone's tree, kept for the proofs of its other blocks. */
interface ConeTree {
  milestone: MilestonePayload;
  tree: MerkleTree;
}

export interface InclusionProofOptions {
  /** Milestone trees kept (most recently used). */
  cachedTrees: number;
  /** Blocks of the kept trees at most, together (64 bytes each): the oldest go first. */
  cachedBlocks: number;
  /**
   * Trees built at the same time at most: a tree being built is never dropped (its requests wait
   * on it), so these bound what building holds beyond the cache (each up to MAX_PROVABLE_CONE
   * blocks); a proof needing another tree meanwhile is ProofBusy (503).
   */
  maxBuilding: number;
}

export const defaultInclusionProofOptions: InclusionProofOptions = {
  cachedTrees: 16,
  cachedBlocks: 1 << 20,
  maxBuilding: 2,
};

/**
 * Makes proofs of inclusion. Proofs of blocks of the same milestone share its Merkle tree: it is
 * hashed once (n - 1 hashes) and kept, so a proof costs reads and no hash. Trees are keyed by
 * milestone ID, so a dev revert that issues another milestone under the same index gets its own.
 */
export class InclusionProofs {
  private readonly trees = new Map<string, Promise<ConeTree>>();
  /** Blocks of each kept tree once built, by milestone ID. */
  private readonly sizes = new Map<string, number>();
  /** Trees being built. */
  private building = 0;
  private readonly options: InclusionProofOptions;

  constructor(
    private readonly source: () => InclusionProofSource,
    options: Partial<InclusionProofOptions> = {},
  ) {
    this.options = { ...defaultInclusionProofOptions, ...options };
  }

  /**
   * The proof of inclusion of `blockId` (inx-poi `createProof`):
   * 1. the block's metadata: unknown (never seen, or pruned) is ProofBlockUnknown, not referenced
   *    yet is ProofBlockNotReferenced;
   * 2. the referencing milestone and its tree (ProofConeUnavailable when either is gone);
   * 3. the path from the block's white-flag position, checked to hold the block and to hash to
   *    the milestone's inclusion Merkle root (inx-poi answers 500 "valid proof cannot be
   *    created" otherwise: ProofInconsistent).
   */
  async create(blockId: Uint8Array): Promise<InclusionProof> {
    const source = this.source();
    const id = toHex(blockId);
    // 1. the block
    const [meta, bytes] = await Promise.all([source.getMetadata(blockId), source.getBlockBytes(blockId)]);
    if (!meta || !bytes) {
      throw new LedgerNodeError(
        TangleErrorCode.ProofBlockUnknown,
        `block ${id} is not known to this node (never seen, or pruned)`,
      );
    }
    const index = meta.referencedByMilestoneIndex;
    if (index === 0) {
      throw new LedgerNodeError(
        TangleErrorCode.ProofBlockNotReferenced,
        `block ${id} is not referenced by a milestone`,
      );
    }
    // 2. the milestone and its tree
    const { milestone, tree } = await this.coneTree(source, index);
    // 3. the path
    const position = meta.whiteFlagIndex;
    const path = position < tree.size ? tree.proof(position) : undefined;
    const leaf = path && leafOf(path);
    if (!path || !leaf || !bytesEqual(leaf, merkleLeafHash(blockId))) {
      throw new LedgerNodeError(
        TangleErrorCode.ProofInconsistent,
        `block ${id} is not at its white-flag position ${position} of milestone ${index}'s ${tree.size} blocks`,
      );
    }
    return { milestone, block: decodeBlock(bytes), proof: inclusionProofFromMerkleProof(path, blockId) };
  }

  /** The tree of milestone `index`, from the cache or built (once, however many ask at the same time). */
  private async coneTree(source: InclusionProofSource, index: number): Promise<ConeTree> {
    const record = await source.db.milestones.get(index);
    if (!record) throw coneUnavailable(`milestone ${index} is not on record (pruned)`);
    const key = toHex(record.milestoneId);
    let entry = this.trees.get(key);
    if (entry) {
      // most recently used last
      this.trees.delete(key);
      this.trees.set(key, entry);
    } else {
      if (this.building >= this.options.maxBuilding) {
        throw new LedgerNodeError(
          TangleErrorCode.ProofBusy,
          `the node is building the trees of ${this.building} other milestones: ask again shortly`,
        );
      }
      this.building++;
      const built = buildConeTree(source, index, record.blockId);
      entry = built;
      this.trees.set(key, built);
      built.then(
        (t) => {
          this.building--;
          this.sizes.set(key, t.tree.size);
          this.evict();
        },
        () => {
          this.building--;
          this.trees.delete(key);
        },
      );
      this.evict();
    }
    return entry;
  }

  /**
   * Drops the least recently used built trees beyond the bounds, keeping the last one built; a
   * tree being built stays (at most `maxBuilding` of them), so it is never built twice at once.
   */
  private evict(): void {
    let blocks = 0;
    for (const n of this.sizes.values()) blocks += n;
    for (const key of this.trees.keys()) {
      const over =
        this.trees.size > this.options.cachedTrees || (blocks > this.options.cachedBlocks && this.sizes.size > 1);
      if (!over) break;
      const size = this.sizes.get(key);
      if (size === undefined) continue;
      this.trees.delete(key);
      this.sizes.delete(key);
      blocks -= size;
    }
  }
}

/** The milestone payload of `milestoneBlockId` and the tree over its cone, checked against its inclusion Merkle root. */
async function buildConeTree(
  source: InclusionProofSource,
  index: number,
  milestoneBlockId: Uint8Array,
): Promise<ConeTree> {
  const bytes = await source.getBlockBytes(milestoneBlockId);
  const payload = bytes && decodeBlock(bytes).payload;
  if (payload?.type !== PayloadType.Milestone)
    throw coneUnavailable(`the block of milestone ${index} is not on record`);
  const leafHashes: Uint8Array[] = [];
  for (;;) {
    const page = await source.db.milestoneBlocks.list(index, {
      from: leafHashes.length,
      reverse: false,
      limit: CONE_PAGE,
    });
    for (const entry of page) {
      if (entry.whiteFlagIndex !== leafHashes.length) {
        throw new LedgerNodeError(
          TangleErrorCode.ProofInconsistent,
          `milestone ${index}'s white-flag order lacks position ${leafHashes.length}`,
        );
      }
      leafHashes.push(merkleLeafHash(entry.blockId));
    }
    if (leafHashes.length > MAX_PROVABLE_CONE) {
      throw coneUnavailable(
        `milestone ${index} referenced more than ${MAX_PROVABLE_CONE} blocks, beyond what this node proves`,
      );
    }
    if (page.length < CONE_PAGE) break;
  }
  if (leafHashes.length === 0) {
    throw coneUnavailable(`the white-flag order of milestone ${index} is not on record (confirmed before it was kept)`);
  }
  const tree = await MerkleTree.build(leafHashes, nextTurn, HASH_SLICE);
  if (!bytesEqual(tree.root, payload.inclusionMerkleRoot)) {
    throw new LedgerNodeError(
      TangleErrorCode.ProofInconsistent,
      `the stored blocks of milestone ${index} do not hash to its inclusion Merkle root`,
    );
  }
  return { milestone: payload, tree };
}

function coneUnavailable(reason: string): LedgerNodeError<TangleErrorCode> {
  return new LedgerNodeError(TangleErrorCode.ProofConeUnavailable, reason);
}

/** The value hash at the bottom of a path. */
function leafOf(node: ReturnType<MerkleTree["proof"]>): Uint8Array | undefined {
  let n = node;
  while (n.type === 0) n = n.l.type === 1 ? n.r : n.l;
  return n.type === 2 ? n.hash : undefined;
}

/** What a proof is checked against: the network's coordinator keys and its protocol version. */
export interface InclusionProofNetwork {
  keys: MilestoneKeys;
  protocolVersion: number;
}

/** A validation's verdict, and when invalid, why. */
export interface InclusionProofVerdict {
  valid: boolean;
  reason?: string;
}

/**
 * inx-poi's `validateProof`: `{valid: true}` when the block's ID is a value of the path, the
 * milestone is signed by this network's coordinator (milestoneSignatureFault: the threshold of
 * signatures by its keys, each valid; this node's networks have one key set for every index,
 * where Hornet's key manager has ranges) and the path's root is the milestone's inclusion Merkle
 * root. A milestone of another protocol version is invalid too (another network's). Input that
 * is not a proof at all throws a CodecError (400): a wrong shape, an unknown field, malformed hex,
 * a tree deeper or larger than an audit path. A milestone with no signature at all is
 * well-formed here (inx-poi reads it and finds it unsigned): invalid, not malformed.
 */
export function validateInclusionProof(json: unknown, network: InclusionProofNetwork): InclusionProofVerdict {
  return verdictOf(json, network, (m) => milestoneSignatureFault(m, network.keys));
}

/** `validateInclusionProof` with the signature rule given (plain, or remembered). */
function verdictOf(
  json: unknown,
  network: InclusionProofNetwork,
  signatureFault: (m: MilestonePayload) => { field: string; reason: string } | undefined,
): InclusionProofVerdict {
  let proof: InclusionProof;
  try {
    proof = inclusionProofFromJson(json);
  } catch (e) {
    if (isCodecError(e) && e.code === CodecErrorCode.CountOutOfRange && e.data.field === "body.milestone.signatures") {
      return { valid: false, reason: "the milestone carries no signature" };
    }
    throw e;
  }
  const shown = inclusionProofFault(proof);
  if (shown) return { valid: false, reason: shown };
  const m = proof.milestone;
  if (m.protocolVersion !== network.protocolVersion) {
    return { valid: false, reason: `the milestone is of protocol version ${m.protocolVersion}, not this network's` };
  }
  const fault = signatureFault(m);
  if (fault) return { valid: false, reason: `milestone ${m.index} ${fault.field}: ${fault.reason}` };
  return { valid: true };
}

/**
 * `validateInclusionProof` for one network, remembering the last `remembered` milestones whose
 * signatures passed (by milestone ID and signatures, the bytes the check read): proofs of
 * blocks of the same milestone, the common case, then cost no Ed25519 verification, which is
 * most of a validation's time (bench poi). Only successes are kept, so the memory makes a
 * check faster, never different.
 */
export class InclusionProofValidator {
  private readonly signed = new Set<string>();

  constructor(
    private readonly network: () => InclusionProofNetwork,
    private readonly remembered = 256,
  ) {}

  validate(json: unknown): InclusionProofVerdict {
    const network = this.network();
    return verdictOf(json, network, (m) => {
      const key = `${toHex(computeMilestoneId(m))}${m.signatures.map((s) => toHex(s.publicKey) + toHex(s.signature)).join("")}`;
      if (this.signed.has(key)) return undefined;
      const fault = milestoneSignatureFault(m, network.keys);
      if (!fault) {
        this.signed.add(key);
        if (this.signed.size > this.remembered) this.signed.delete(this.signed.values().next().value!);
      }
      return fault;
    });
  }
}
