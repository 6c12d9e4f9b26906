import { decodeOwnedBlock } from "../codec/block.js";
import { isCodecError } from "../codec/errors.js";
import { bytesEqual } from "../codec/hex.js";
import { blockIdFromBytes, computeMilestoneId } from "../codec/ids.js";
import { validateBlockSyntax } from "../codec/syntactic.js";
import { type Block, type MilestonePayload, PayloadType, UnlockType } from "../codec/types.js";
import { ed25519Verify } from "../crypto/ed25519.js";
import type { VerifyPool } from "../crypto/verifyPool.js";
import { BatchScorer } from "../pow/index.js";
import { describeWriteFault } from "../storage/index.js";
import { BlockErrorCode } from "./errors.js";
import type { BlockSource } from "./events.js";
import { type Tangle, transactionHashesOf } from "./tangle.js";

/**
 * The one way a block enters this node, whatever its source (Hornet's `Emit` in
 * `pkg/protocol/gossip/msg_proc.go`; Lodestar's `validateGossipBlock`, used by gossip and by
 * `publishBlock`): bytes, or a block the API already decoded, in; one verdict out.
 *
 * 1. No block while the database refuses writes (a full disk: nothing taken in could be kept,
 *    docs/decisions.md, Threats). A client's block while the node is behind the network is
 *    ignored (not synced): the node cannot judge its parents before it caught up. Blocks from
 *    peers are how it catches up.
 * 2. Decode and syntactic rules (TIP-24 and the payload's TIP: protocol version, network ID…).
 * 3. A milestone carries a valid signature of a coordinator key instead of PoW (TIP-29: nonce
 *    0); one whose index is not above the ledger's is ignored (stale). Any other block has the
 *    network's minimum PoW score (TIP-12), scored 128 at a time on the bit-sliced hasher.
 * 4. Taken in (`Tangle.storeBlock`: memory at once, disk behind) unless known (duplicate), its
 *    signature unlocks queued on the verify threads, and announced on the event stream.
 *
 * The HTTP route maps the verdict to a status, gossip to accept / ignore / reject and a score.
 */

/** A block that passed steps 1-3, ready to be taken in. */
export interface CheckedBlock {
  blockId: Uint8Array;
  block: Block;
  /** The block's bytes, a private copy the tangle keeps until a milestone references it. */
  bytes: Uint8Array;
  /** The milestone payload when the block carries one (its signature is verified). */
  milestone?: MilestonePayload;
}

/** Why a block was ignored: nothing wrong with it, nothing to do with it either. */
export enum IgnoreReason {
  /** This node has the block already. */
  Duplicate = "duplicate",
  /** A client's block while this node is behind the network. */
  NotSynced = "notSynced",
  /** A milestone whose index is not above the ledger's. */
  StaleMilestone = "staleMilestone",
  /** The database refuses writes: nothing can be taken in until the node restarts. */
  StorageFault = "storageFault",
}

export type IntakeVerdict =
  | ({ kind: "accepted" } & CheckedBlock)
  | { kind: "ignored"; reason: IgnoreReason; details: string; blockId?: Uint8Array }
  /** `code`: a CodecErrorCode or BlockErrorCode. */
  | { kind: "rejected"; code: string; details: string };

/** What the intake asks of the network: its sync status (absent while the node runs without one). */
export type SyncProbe = () => { isSynced: boolean; confirmedMilestoneIndex: number; latestMilestoneIndex: number };

export interface BlockIntakeOptions {
  /** Public keys whose signatures make a milestone valid (the network's coordinator keys). */
  coordinatorPublicKeys: readonly Uint8Array[];
  /** Valid signatures of distinct listed keys a milestone needs (TIP-29); default 1. */
  coordinatorThreshold?: number;
  /**
   * Threads that pre-verify a transaction's signatures, so confirmation finds them in the
   * signature cache. A bad signature is no reason to refuse a block: it makes the transaction
   * conflicting at confirmation (TIP-20 semantic validation).
   */
  verifyPool?: VerifyPool;
}

/** Signature checks waiting on the verify threads beyond which intake waits for its own. */
const VERIFY_BACKLOG = 4096;

export class BlockIntake {
  private readonly scorer = new BatchScorer();
  private syncProbe: SyncProbe | undefined;
  /** The highest milestone index announced as latest (see the `latestMilestone` event). */
  private latestSeen: number;

  constructor(
    private readonly tangle: Tangle,
    private readonly options: BlockIntakeOptions,
  ) {
    this.latestSeen = tangle.latestMilestone.index;
  }

  /** From now on clients' blocks are ignored while `probe` says the node is not synced. */
  followSync(probe: SyncProbe | undefined): void {
    this.syncProbe = probe;
  }

  /**
   * Step 1 alone: why a block from `source` would be ignored before it is even read (the API
   * asks before it mines a nonce), or undefined.
   */
  refusal(source: BlockSource): IntakeVerdict | undefined {
    const fault = this.tangle.store.writeFault;
    if (fault) return { kind: "ignored", reason: IgnoreReason.StorageFault, details: describeWriteFault(fault) };
    if (source !== "api" || !this.syncProbe) return undefined;
    const sync = this.syncProbe();
    if (sync.isSynced) return undefined;
    return {
      kind: "ignored",
      reason: IgnoreReason.NotSynced,
      details: `the node is not synced: ledger at milestone ${sync.confirmedMilestoneIndex}, network at ${sync.latestMilestoneIndex}`,
    };
  }

  /** Steps 1-4. `checked`, when given, is `bytes` decoded and syntactically valid (the API built the bytes from it). */
  async submit(bytes: Uint8Array, source: BlockSource, checked?: Block): Promise<IntakeVerdict> {
    const verdict = await this.check(bytes, source, checked);
    return verdict.kind === "accepted" ? this.take(verdict, source) : verdict;
  }

  /**
   * Steps 1-3, nothing stored: gossip decides on forwarding from this, and a peer's answer is
   * checked whole before any of it is taken in.
   */
  async check(given: Uint8Array, source: BlockSource, checked?: Block): Promise<IntakeVerdict> {
    const refused = this.refusal(source);
    if (refused) return refused;
    const params = this.tangle.protocolParameters;
    // 2. one private copy of the bytes, which the decoded block's fields view (the caller's
    // buffer may be reused; the tangle keeps both until a milestone references the block)
    const bytes = checked ? given : new Uint8Array(given);
    let block: Block;
    try {
      block = checked ?? decodeOwnedBlock(bytes);
      if (!checked) validateBlockSyntax(block, params, { byteLength: bytes.length });
    } catch (e) {
      if (isCodecError(e)) return { kind: "rejected", code: e.code, details: e.message };
      throw e;
    }
    const blockId = blockIdFromBytes(bytes);
    // 3. the coordinator's signature, or PoW
    if (block.payload?.type === PayloadType.Milestone) {
      const milestone = block.payload;
      if (!this.signedByCoordinator(milestone)) {
        return {
          kind: "rejected",
          code: BlockErrorCode.InvalidMilestoneSignature,
          details: "milestone is not signed by the coordinator",
        };
      }
      const ledgerIndex = this.tangle.latestMilestone.index;
      if (milestone.index <= ledgerIndex) {
        return {
          kind: "ignored",
          reason: IgnoreReason.StaleMilestone,
          details: `milestone ${milestone.index} is not above ${ledgerIndex}`,
          blockId,
        };
      }
      return { kind: "accepted", blockId, block, bytes, milestone };
    }
    if (params.minPowScore > 0) {
      const score = await this.scorer.score(bytes);
      if (score < params.minPowScore) {
        return {
          kind: "rejected",
          code: BlockErrorCode.InsufficientPow,
          details: `PoW score ${score.toFixed(2)} is below the minimum ${params.minPowScore}`,
        };
      }
    }
    return { kind: "accepted", blockId, block, bytes };
  }

  /** Step 4 for a block `check` accepted: a duplicate is ignored, a new block stored and announced. */
  async take(checked: CheckedBlock, source: BlockSource): Promise<IntakeVerdict> {
    const { blockId, block, bytes, milestone } = checked;
    // the signatures are checked on other threads while the block is stored and solidified
    const hashes = transactionHashesOf(block, bytes);
    const pool = this.options.verifyPool;
    const checks: Promise<boolean>[] = [];
    if (pool && hashes && block.payload?.type === PayloadType.Transaction) {
      const message = hashes.signingHash;
      for (const u of block.payload.unlocks) {
        if (u.type === UnlockType.Signature) {
          const { publicKey, signature } = u.signature;
          checks.push(pool.verify({ publicKey, message, signature }).catch(() => false));
        }
      }
    }
    const isNew = await this.tangle.storeBlock(blockId, block, bytes, milestone !== undefined, hashes, source);
    if (!isNew) return { kind: "ignored", reason: IgnoreReason.Duplicate, details: "the block is known", blockId };
    this.announceMilestone(checked, source);
    // The verdict does not depend on the checks (a bad signature is decided at confirmation, and
    // the coordinator waits for the checks requested before it plans). Intake waits for them
    // only when the threads fall behind, so a flood cannot queue checks without bound.
    if (pool && pool.backlog > VERIFY_BACKLOG) await Promise.all(checks);
    return { kind: "accepted", ...checked };
  }

  /**
   * Tells the event stream of a block the coordinator issued, once it is on disk: `blockTaken`,
   * and `latestMilestone` for its milestone (blocks from clients and peers are announced by
   * `take`, as they are taken in).
   */
  announceIssued(issued: CheckedBlock): void {
    const { blockId, block, bytes } = issued;
    this.tangle.events.emit("blockTaken", { blockId, block, bytes, source: "coordinator" });
    this.announceMilestone(issued, "coordinator");
  }

  /** `latestMilestone` for a milestone above any seen. */
  private announceMilestone(taken: CheckedBlock, source: BlockSource): void {
    const events = this.tangle.events;
    const m = taken.milestone;
    if (m && m.index > this.latestSeen) {
      this.latestSeen = m.index;
      events.emit("latestMilestone", {
        index: m.index,
        milestoneId: computeMilestoneId(m),
        blockId: taken.blockId,
        timestamp: m.timestamp,
        source,
      });
    }
  }

  /**
   * TIP-29: at least the threshold of signatures, every one by a listed coordinator key and valid
   * over the milestone ID (the codec already refused signatures out of order or with a key twice).
   */
  private signedByCoordinator(milestone: MilestonePayload): boolean {
    const id = computeMilestoneId(milestone);
    const keys = this.options.coordinatorPublicKeys;
    const threshold = this.options.coordinatorThreshold ?? 1;
    return (
      milestone.signatures.length >= threshold &&
      milestone.signatures.length <= keys.length &&
      milestone.signatures.every(
        (s) => keys.some((k) => bytesEqual(k, s.publicKey)) && ed25519Verify(s.publicKey, id, s.signature),
      )
    );
  }
}
