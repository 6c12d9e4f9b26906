import { decodeOwnedBlock } from "../codec/block.js";
import { isCodecError } from "../codec/errors.js";
import { blockIdFromBytes, computeMilestoneId } from "../codec/ids.js";
import { milestoneSignatureFault, validateBlockSyntax } from "../codec/syntactic.js";
import { type Block, type MilestonePayload, PayloadType, UnlockType } from "../codec/types.js";
import type { VerifyPool } from "../crypto/verifyPool.js";
import { BatchScorer, withNonce } from "../pow/index.js";
import { describeWriteFault, StorageErrorCode } from "../storage/index.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { type BlockDraft, completeBlock, type Miner } from "./blockCompletion.js";
import { BlockErrorCode, isBlockError } from "./errors.js";
import type { BlockSource } from "./events.js";
import { type Tangle, transactionHashesOf } from "./tangle.js";

/**
 * The one way a block enters this node, whatever its source (Hornet's `Emit` in
 * `pkg/protocol/gossip/msg_proc.go`; Lodestar's `validateGossipBlock`, used by gossip and by
 * `publishBlock`): bytes from a peer, or a block the API, the faucet or the coordinator drafted;
 * one verdict out. The step numbers are ARCHITECTURE.md's (The life of a block).
 *
 * 1. No block while the database refuses writes (a full disk: nothing taken in could be kept,
 *    docs/decisions.md, Threats). A client's block while the node is behind the network is
 *    ignored (not synced): the node cannot judge its parents before it caught up. Blocks from
 *    peers are how it catches up.
 * 2. Bytes: decode and syntactic rules (TIP-24 and the payload's TIP: protocol version, network
 *    ID…). A draft: completion (blockCompletion.ts: parents filled, syntax, a client's parents
 *    known and above max depth).
 * 3. A block the node has is a duplicate: held in memory, decided before anything else; on disk
 *    or a solid entry point, before any signature is checked (its PoW is scored in the same turn
 *    as the disk read). A milestone carries a valid signature of a coordinator key instead of PoW
 *    (TIP-29: nonce 0); one whose index is not above the ledger's is ignored (stale). Any other
 *    block has the network's minimum PoW score (TIP-12), scored once, 128 at a time on the
 *    bit-sliced hasher; a draft with nonce 0 and a miner is mined to it instead of refused.
 * 4. Taken in (`Tangle.storeBlock`: memory at once, disk behind), its signature unlocks queued
 *    on the verify threads, and announced on the event stream; the coordinator's blocks are
 *    announced once on disk.
 *
 * The HTTP route maps the verdict to a status (`verdictError`, one mapping for every caller),
 * gossip to accept / ignore / reject and a score.
 */

/** A block that passed steps 1-3, ready to be taken in. */
export interface CheckedBlock {
  blockId: Uint8Array;
  block: Block;
  /** The block's bytes, a private copy the tangle keeps until a milestone references it. */
  bytes: Uint8Array;
  /** The milestone payload when the block carries one (its signature is verified). */
  milestone?: MilestonePayload;
  /**
   * The intake found the block new before it judged it (in memory, and on disk unless the disk
   * need not be asked: `Tangle.heldIfStored`, the coordinator's drafts): taking it in looks
   * again in memory only (a concurrent submission), not on disk.
   */
  lookedUp?: boolean;
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
  /** The node is putting its state back (a dev revert or reset, node/devStates.ts). */
  Suspended = "suspended",
}

export type IntakeVerdict =
  | ({ kind: "accepted" } & CheckedBlock)
  | { kind: "ignored"; reason: IgnoreReason; details: string; blockId?: Uint8Array }
  /** `code`: a CodecErrorCode or BlockErrorCode. */
  | { kind: "rejected"; code: string; details: string };

/** What the intake asks of the network: its sync status (absent while the node runs without one). */
export type SyncProbe = () => { isSynced: boolean; confirmedMilestoneIndex: number; latestMilestoneIndex: number };

export interface BlockIntakeDeps {
  tangle: Tangle;
  /**
   * Threads that pre-verify a transaction's signatures, so confirmation finds them in the
   * signature cache. A bad signature is no reason to refuse a block: it makes the transaction
   * conflicting at confirmation (TIP-20 semantic validation).
   */
  verifyPool?: VerifyPool;
}

export interface BlockIntakeOptions {
  /** Public keys whose signatures make a milestone valid (the network's coordinator keys). */
  coordinatorPublicKeys: readonly Uint8Array[];
  /** Valid signatures of distinct listed keys a milestone needs (TIP-29); default 1. */
  coordinatorThreshold?: number;
  /**
   * Signature checks waiting on the verify threads beyond which a block's answer waits for its
   * own (default DEFAULT_VERIFY_BACKLOG). Auto milestones (`--milestones auto`) use a short one:
   * a block there is confirmed once its checks are done, so a longer queue is only latency.
   */
  verifyBacklog?: number;
}

/** Signature checks waiting on the verify threads beyond which intake waits for its own. */
export const DEFAULT_VERIFY_BACKLOG = 4096;

export class BlockIntake {
  private readonly scorer = new BatchScorer();
  private syncProbe: SyncProbe | undefined;
  /** What a client's block taken in waits for before it is answered (`pacedBy`). */
  private pace: (() => Promise<void> | undefined) | undefined;
  /** Why every block is ignored from now on (`suspend`), when it is. */
  private suspended: string | undefined;
  private submitting = 0;
  /** The highest milestone index announced as latest (see the `latestMilestone` event). */
  private latestSeen: number;

  private readonly tangle: Tangle;

  constructor(
    private readonly deps: BlockIntakeDeps,
    private readonly options: BlockIntakeOptions,
  ) {
    this.tangle = deps.tangle;
    this.latestSeen = deps.tangle.latestMilestone.index;
  }

  /** From now on clients' blocks are ignored while `probe` says the node is not synced. */
  followSync(probe: SyncProbe | undefined): void {
    this.syncProbe = probe;
  }

  /**
   * Blocks being submitted (`submit`, `submitDraft`: the API's, the faucet's, tools'), from the
   * call to the verdict: a dev revert is refused while any is (node/devStates.ts).
   */
  get inFlight(): number {
    return this.submitting;
  }

  /**
   * From now on a client's block, once taken in, waits for what `pace` answers before its verdict
   * (the auto coordinator's `pace`: the next milestone when many blocks wait for one).
   */
  pacedBy(pace: (() => Promise<void> | undefined) | undefined): void {
    this.pace = pace;
  }

  /**
   * From now on every block is ignored, `reason` given: the node is putting its state back and
   * this intake will be replaced (a dev revert or reset, node/node.ts `replaceState`).
   */
  suspend(reason: string): void {
    this.suspended = reason;
  }

  /**
   * Step 1 alone: why a block from `source` would be ignored before it is even read (the API
   * asks before it mines a nonce), or undefined.
   */
  refusal(source: BlockSource): IntakeVerdict | undefined {
    if (this.suspended !== undefined)
      return { kind: "ignored", reason: IgnoreReason.Suspended, details: this.suspended };
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

  /** Steps 1-4 for bytes (peers' blocks, tools'). */
  async submit(bytes: Uint8Array, source: BlockSource): Promise<IntakeVerdict> {
    this.submitting++;
    try {
      const verdict = await this.check(bytes, source);
      return verdict.kind === "accepted" ? await this.take(verdict, source) : verdict;
    } finally {
      this.submitting--;
    }
  }

  /** Steps 1-4 for a draft (the API's, the faucet's): completed, mined when `mine` is given and needed, taken in. */
  async submitDraft(draft: BlockDraft, source: BlockSource, mine?: Miner): Promise<IntakeVerdict> {
    this.submitting++;
    try {
      const verdict = await this.complete(draft, source, mine);
      return verdict.kind === "accepted" ? await this.take(verdict, source) : verdict;
    } finally {
      this.submitting--;
    }
  }

  /**
   * Steps 1-3 for bytes, nothing stored: gossip decides on forwarding from this, and a peer's
   * answer is checked whole before any of it is taken in.
   */
  async check(given: Uint8Array, source: BlockSource): Promise<IntakeVerdict> {
    const refused = this.refusal(source);
    if (refused) return refused;
    const blockId = blockIdFromBytes(given);
    if (this.tangle.holds(blockId)) return duplicate(blockId);
    // 2. one private copy of the bytes, which the decoded block's fields view (the caller's
    // buffer may be reused; the tangle keeps both until a milestone references the block)
    const bytes = new Uint8Array(given);
    let block: Block;
    try {
      block = decodeOwnedBlock(bytes);
      validateBlockSyntax(block, this.tangle.protocolParameters, { byteLength: bytes.length });
    } catch (e) {
      return rejection(e);
    }
    return this.judge(blockId, block, bytes);
  }

  /**
   * Steps 1-3 for a draft, nothing stored: the coordinator completes its checkpoints one after
   * the other (each names the previous) and takes them in at once.
   */
  async complete(draft: BlockDraft, source: BlockSource, mine?: Miner): Promise<IntakeVerdict> {
    const refused = this.refusal(source);
    if (refused) return refused;
    let completed: { block: Block; bytes: Uint8Array };
    try {
      completed = await completeBlock(this.tangle, draft, source);
    } catch (e) {
      return rejection(e);
    }
    const { block, bytes } = completed;
    const blockId = blockIdFromBytes(bytes);
    if (this.tangle.holds(blockId)) return duplicate(blockId);
    // the coordinator's drafts name the latest milestone, directly or through the checkpoints
    // made for the next one: new by construction, so the disk is not asked (a read behind
    // intake's cost each checkpoint milliseconds under load; bench devnode)
    return this.judge(blockId, block, bytes, mine, source !== "coordinator");
  }

  /**
   * Step 3: a block held in memory was found a duplicate already (every block of the last
   * milestones is); here the disk is asked, synchronously, unless the block would be held were
   * it stored (a parent held, solid and not below max depth: `Tangle.heldIfStored`) or `lookUp`
   * is false (the coordinator's drafts). Then the coordinator's signature, checked only once the
   * block is known to be new, or PoW, scored once in a 128-lane batch; a block with nonce 0
   * whose score falls short is mined when a miner is given (the nonce of a block that has one is
   * never replaced: it was mined over these bytes).
   */
  private async judge(
    blockId: Uint8Array,
    block: Block,
    bytes: Uint8Array,
    mine?: Miner,
    lookUp = true,
  ): Promise<IntakeVerdict> {
    if (lookUp && !this.tangle.heldIfStored(block) && this.tangle.isStored(blockId)) return duplicate(blockId);
    // a solid entry point was referenced before this node's history starts (a snapshot, pruning):
    // taken in again it would be unreferenced here, and the next milestone's white-flag, which
    // stops at entry points, would walk it and differ from the network's (Hornet's walks ask
    // whether a block is an entry point before they look it up)
    if (this.tangle.isSolidEntryPoint(blockId)) return entryPoint(blockId);
    const minScore = this.tangle.protocolParameters.minPowScore;
    const isMilestone = block.payload?.type === PayloadType.Milestone;
    const scored = !isMilestone && minScore > 0 ? this.scorer.score(bytes) : undefined;
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
      return { kind: "accepted", blockId, block, bytes, milestone, lookedUp: true };
    }
    if (scored) {
      const score = await scored;
      if (score < minScore) {
        if (!mine || block.nonce !== 0n) {
          return {
            kind: "rejected",
            code: BlockErrorCode.InsufficientPow,
            details: `PoW score ${score.toFixed(2)} is below the minimum ${minScore}`,
          };
        }
        // a new ID, never looked up: taking it in looks on disk too
        const nonce = await mine(bytes, minScore);
        const mined = withNonce(bytes, nonce);
        return { kind: "accepted", blockId: blockIdFromBytes(mined), block: { ...block, nonce }, bytes: mined };
      }
    }
    return { kind: "accepted", blockId, block, bytes, lookedUp: true };
  }

  /**
   * Step 4 for a block `check` or `complete` accepted: a duplicate is ignored, a new block stored
   * and announced; the coordinator's once it is on disk, so a restarted node never issues a
   * second milestone of an index its peers heard of.
   */
  async take(checked: CheckedBlock, source: BlockSource): Promise<IntakeVerdict> {
    const { blockId, block, bytes, milestone, lookedUp } = checked;
    // the signatures are checked on other threads while the block is stored and solidified
    const hashes = transactionHashesOf(block, bytes);
    const pool = this.deps.verifyPool;
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
    const ownBlock = source === "coordinator";
    const isNew = await this.tangle.storeBlock(blockId, block, bytes, milestone !== undefined, hashes, {
      source: ownBlock ? undefined : source,
      lookedUp,
    });
    if (!isNew) return duplicate(blockId);
    if (ownBlock) {
      await this.tangle.intakeWritten();
      this.tangle.events.emit("blockTaken", { blockId, block, bytes, source });
    }
    this.announceMilestone(checked, source);
    // a client's block is acknowledged once its intake batch is written (group commit: the blocks
    // of one turn share the write), so a process killed after the answer has not lost it
    if (source === "api") {
      const fault = await this.tangle.intakeWritten().then(
        () => undefined,
        (e: unknown) =>
          this.tangle.store.writeFault ?? { reason: (e as Error).message ?? String(e), since: Date.now() },
      );
      if (fault) return { kind: "ignored", reason: IgnoreReason.StorageFault, details: describeWriteFault(fault) };
    }
    if (source === "api" && this.pace) {
      const held = this.pace();
      if (held) await held;
    }
    // The verdict does not depend on the checks (a bad signature is decided at confirmation, and
    // the coordinator waits for the checks requested before it plans). Intake waits for them
    // only when the threads fall behind, so a flood cannot queue checks without bound.
    if (pool && pool.backlog > (this.options.verifyBacklog ?? DEFAULT_VERIFY_BACKLOG)) await Promise.all(checks);
    return { kind: "accepted", ...checked };
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

  /** TIP-29, the one rule (codec/syntacticMilestone.ts): the threshold of signatures by coordinator keys, each valid. */
  private signedByCoordinator(milestone: MilestonePayload): boolean {
    const keys = { publicKeys: this.options.coordinatorPublicKeys, threshold: this.options.coordinatorThreshold ?? 1 };
    return milestoneSignatureFault(milestone, keys) === undefined;
  }
}

const duplicate = (blockId: Uint8Array): IntakeVerdict => ({
  kind: "ignored",
  reason: IgnoreReason.Duplicate,
  details: "the block is known",
  blockId,
});

const entryPoint = (blockId: Uint8Array): IntakeVerdict => ({
  kind: "ignored",
  reason: IgnoreReason.Duplicate,
  details: "the block is a solid entry point: referenced before this node's history starts",
  blockId,
});

/** A codec error (decoding, syntax) or a block error (completion) as a rejected verdict; anything else is the node's failure. */
function rejection(e: unknown): IntakeVerdict {
  if (isCodecError(e) || isBlockError(e)) return { kind: "rejected", code: e.code, details: e.message };
  throw e;
}

/**
 * The error a verdict other than accepted or duplicate stands for, one mapping for every caller
 * (src/api/errors.ts maps its code to a status: rejected and stale → 400, not synced and a
 * storage fault → 503).
 */
export function verdictError(verdict: Exclude<IntakeVerdict, { kind: "accepted" }>): LedgerNodeError {
  if (verdict.kind === "rejected") return new LedgerNodeError(verdict.code, verdict.details);
  if (verdict.reason === IgnoreReason.NotSynced) return new LedgerNodeError(BlockErrorCode.NotSynced, verdict.details);
  if (verdict.reason === IgnoreReason.Suspended)
    return new LedgerNodeError(BlockErrorCode.StateReverting, verdict.details);
  if (verdict.reason === IgnoreReason.StorageFault)
    return new LedgerNodeError(StorageErrorCode.WriteFailed, verdict.details);
  if (verdict.reason === IgnoreReason.Duplicate) return new LedgerNodeError(BlockErrorCode.Duplicate, verdict.details);
  return new LedgerNodeError(BlockErrorCode.StaleMilestone, verdict.details);
}

/** The block of an accepted verdict (the node's own blocks, which must be new); any other verdict throws its error. */
export function acceptedBlock(verdict: IntakeVerdict): CheckedBlock {
  if (verdict.kind === "accepted") return verdict;
  throw verdictError(verdict);
}

/** The ID of an accepted block and whether it is new; any other verdict but a duplicate throws its error. */
export function takenBlock(verdict: IntakeVerdict): { blockId: Uint8Array; isNew: boolean } {
  if (verdict.kind === "accepted") return { blockId: verdict.blockId, isNew: true };
  if (verdict.kind === "ignored" && verdict.reason === IgnoreReason.Duplicate)
    return { blockId: verdict.blockId!, isNew: false };
  throw verdictError(verdict);
}
