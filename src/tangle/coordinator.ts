import { bytesEqual, compareBytes, toHex } from "../codec/hex.js";
import { computeMilestoneId } from "../codec/ids.js";
import {
  type Block,
  type MilestoneEssence,
  type MilestonePayload,
  PayloadType,
  SignatureType,
} from "../codec/types.js";
import { type Ed25519KeyPair, ed25519Sign } from "../crypto/ed25519.js";
import type { VerifyPool } from "../crypto/verifyPool.js";
import type { SemanticValidator } from "../ledger/whiteFlag.js";
import { describeWriteFault, StorageErrorCode } from "../storage/index.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { ownMiner } from "./blockCompletion.js";
import { applyConfirmation, type PlannedConfirmation, planConfirmation } from "./confirmMilestone.js";
import { DevErrorCode, TangleErrorCode } from "./errors.js";
import type { BlockSource } from "./events.js";
import { acceptedBlock, type BlockIntake, type CheckedBlock } from "./intake.js";
import { MAX_TIMESTAMP } from "./nodeClock.js";
import type { MilestoneInfo, Tangle } from "./tangle.js";

/**
 * The dev network's built-in coordinator: every interval (or as soon as a block waits, or when
 * asked: `MilestoneMode`) it selects tips, confirms their cone with white-flag, and issues a
 * milestone (TIP-29) signed with its key in a block with nonce 0.
 * Index and timestamp strictly increase and each milestone names the previous one's ID.
 * Issuing is serialized: a tick never overlaps the previous one. Its blocks (checkpoints and
 * milestones) take the one way in, the intake's completion and take (intake.ts), which announces
 * them once they are on disk.
 */

export interface CoordinatorDeps {
  tangle: Tangle;
  /** Completes, checks and takes in the coordinator's blocks like every other block. */
  intake: Pick<BlockIntake, "complete" | "take">;
  /** White-flag's semantic validation (the node's). */
  validate: SemanticValidator;
  /** The intake's signature pool: a milestone waits for its checks so none is done twice. */
  verifyPool?: VerifyPool;
  /** Where a milestone that failed is reported (the node logs it). */
  onError?: (e: unknown) => void;
}

/** When milestones are issued (docs/decisions.md, A node for builders). */
export type MilestoneMode = "interval" | "auto" | "manual";
export const MILESTONE_MODES: readonly MilestoneMode[] = ["interval", "auto", "manual"];

export interface CoordinatorOptions {
  intervalMs: number;
  /**
   * `interval` (the default): one every `intervalMs`; `auto`: one as soon as a client's or a
   * peer's block waits (`blockTaken`), batched within AUTO_BATCH_MS; `manual`: only `issueNow`.
   */
  mode?: MilestoneMode;
  /** The keys milestones are signed with (at least the network's threshold of them). */
  keyPairs: Ed25519KeyPair[];
  /** Threads mining checkpoints (default 1); 0 means no checkpoints on a network with PoW. */
  powWorkers?: number;
  /** The clock of milestone timestamps (tangle/nodeClock.ts); default the wall clock. */
  clock?: { nowSeconds(): number };
  /** `auto`: the lead over the clock beyond which milestones wait for it (default AUTO_MAX_LEAD_SECONDS; 0: none). */
  maxLeadSeconds?: number;
}

const MAX_PARENTS = 8;
/** Attempts to write a signed milestone's batch before the coordinator stops. */
const MAX_APPLY_ATTEMPTS = 3;
/** Checkpoints per milestone at most: 7 tips each, so up to ~350 tips merged per milestone. */
const MAX_CHECKPOINTS = 50;
/** `auto`: blocks that arrive within this many ms of the first one share its milestone. */
export const AUTO_BATCH_MS = 2;
/**
 * `auto`: how far (s) the latest milestone may run ahead of the clock by default. Timestamps
 * strictly increase by whole seconds, so a burst of milestones moves them ahead of the wall
 * clock; beyond this lead milestones wait for the clock, one a second, so the native SDKs' check
 * that a node's time is within five minutes of theirs (iota-sdk's `get_time_checked`) keeps passing.
 */
export const AUTO_MAX_LEAD_SECONDS = 240;
/**
 * `auto`: clients' blocks that may wait for a milestone before a client's answer waits for the
 * next one to start (`pace`). The node then holds about C + twice this many unconfirmed blocks of
 * C clients, and a flood is confirmed that many blocks' confirmation time after it is sent
 * (Little's law). Less trades throughput for latency: bench devnode, 4,000 transfers from 64
 * clients, p50 38-40 ms and 2,900-2,960/s at 56; 64 ms and 3,040/s at 96; 1,033 ms unpaced.
 */
export const AUTO_MAX_WAITING = 56;
/** Clients' answers held for the next milestone at most; more are answered at once. */
const MAX_PACED = 10_000;
/** Milestones waiting to be issued at most (`issueNow`'s requests and the coordinator's own). */
export const MAX_QUEUED_MILESTONES = 1000;

function uniqueSorted(ids: Uint8Array[]): Uint8Array[] {
  const byHex = new Map(ids.map((id) => [toHex(id), id]));
  return [...byHex.values()].sort(compareBytes);
}

const wallClock = { nowSeconds: () => Math.floor(Date.now() / 1000) };

export class Coordinator {
  private timer: NodeJS.Timeout | undefined;
  /** Every milestone is issued after the one before it: this is the last one's promise. */
  private chain: Promise<unknown> = Promise.resolve();
  /** Milestones waiting in `chain` or being issued. */
  private queued = 0;
  private stopped = true;
  /** `auto`: a block arrived since the last milestone began; the loop issuing them runs. */
  private autoWanted = false;
  private autoRunning = false;
  /** Ends the `auto` loop's wait for the clock (on stop). */
  private wake: (() => void) | undefined;
  /**
   * `auto`: seconds ahead of the clock that auto milestones count their lead from: how far the
   * latest milestone was ahead at start, or the last one issued on request (`issueNow`), and
   * never more than the lead there is (an idle node's clock catches up, and the allowance with
   * it). A lead made by milestones a developer asked for, or found on the database, is not
   * auto's to wait off: after `POST /api/dev/v1/milestones` had run 400 s ahead, waiting for the
   * clock to come within the limit held every block unconfirmed for 160 s.
   */
  private leadGiven = 0;
  /** `auto`: clients' blocks taken since the tips of the milestone being issued were read. */
  private waiting = 0;
  /** `auto`: clients' answers held until the next milestone (`pace`). */
  private paced: (() => void)[] = [];
  /** The milestone signed and stored but not applied yet, and how often applying it failed. */
  private signed:
    | { plan: PlannedConfirmation; milestoneId: Uint8Array; blockId: Uint8Array; failures: number }
    | undefined;

  /** The keys in the order their signatures go into a milestone: by public key (TIP-29). */
  private readonly signers: Ed25519KeyPair[];

  private readonly tangle: Tangle;
  private readonly clock: { nowSeconds(): number };

  constructor(
    private readonly deps: CoordinatorDeps,
    readonly options: CoordinatorOptions,
  ) {
    this.tangle = deps.tangle;
    this.clock = options.clock ?? wallClock;
    if (options.keyPairs.length === 0) {
      throw new LedgerNodeError(TangleErrorCode.NotCoordinator, "a coordinator needs at least one key");
    }
    this.signers = [...options.keyPairs].sort((a, b) => compareBytes(a.publicKey, b.publicKey));
  }

  get mode(): MilestoneMode {
    return this.options.mode ?? "interval";
  }

  /** Starts issuing: in `interval` mode the first milestone an interval from now. */
  start(): void {
    this.stopped = false;
    this.leadGiven = this.leadFound();
    if (this.mode === "interval") this.timer = setTimeout(() => void this.tick(), this.options.intervalMs);
  }

  /** How far the latest milestone is ahead of the clock at start (`leadGiven`). */
  private leadFound(): number {
    return Math.max(0, this.tangle.latestMilestone.timestamp - this.clock.nowSeconds());
  }

  /**
   * Starts issuing with a milestone now: resolves once that milestone is confirmed (its batch
   * written) or has failed (reported to `onError`), the next one due an interval after it in
   * `interval` mode. The node awaits it before its API listens, so a fresh or long-stopped node
   * is healthy from its first answer (docs/decisions.md, Milestones). In `auto` and `manual`
   * mode only a ledger without any milestone gets one: otherwise they come when asked.
   */
  startNow(): Promise<void> {
    this.stopped = false;
    this.leadGiven = this.leadFound();
    if (this.mode !== "interval" && this.tangle.latestMilestone.index > 0) return Promise.resolve();
    return this.tick();
  }

  /**
   * Issues one milestone and, in `interval` mode, schedules the next. Ticks are an interval apart
   * from start to start, as a coordinator's clock: a milestone that took longer than the interval
   * (a wide cone under load) is followed at once. Resolves when the milestone is confirmed or has
   * failed.
   */
  private tick(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    const started = performance.now();
    const issued = this.issueOwn();
    void issued.finally(() => {
      const wait = Math.max(0, this.options.intervalMs - (performance.now() - started));
      if (!this.stopped && this.mode === "interval") this.timer = setTimeout(() => void this.tick(), wait);
    });
    return issued;
  }

  /**
   * A milestone of the coordinator's own accord (a tick, `auto`), failures reported. A database
   * that refuses writes could keep nothing of a milestone: none is issued, and the fault is
   * reported once where it happened, not at every tick (docs/decisions.md, Threats).
   */
  private issueOwn(): Promise<void> {
    if (this.tangle.store.writeFault) return Promise.resolve();
    return this.enqueue().then(
      () => {},
      (e) => this.deps.onError?.(e),
    );
  }

  /** `blockTaken`: in `auto` mode a block from a client or a peer asks for a milestone. */
  blockTaken(e: { source: BlockSource }): void {
    if (this.mode !== "auto" || e.source === "coordinator" || this.stopped) return;
    if (e.source === "api") this.waiting++;
    this.autoWanted = true;
    if (this.autoRunning) return;
    this.autoRunning = true;
    this.timer = setTimeout(() => void this.autoLoop(), AUTO_BATCH_MS);
  }

  /**
   * `auto`: what a client's block taken in waits for before it is answered: nothing while at most
   * AUTO_MAX_WAITING clients' blocks wait for a milestone; beyond, the next milestone to read its
   * tips (or the end of the one being issued). Intake thus keeps the pace of confirmation instead
   * of running ahead of it, and a flood's latency stays bounded (AUTO_MAX_WAITING's figures).
   */
  pace(): Promise<void> | undefined {
    if (this.mode !== "auto" || this.stopped || this.waiting <= AUTO_MAX_WAITING) return undefined;
    if (this.paced.length >= MAX_PACED) return undefined;
    return new Promise((resolve) => this.paced.push(resolve));
  }

  /** Answers every client held by `pace`. */
  private releasePaced(): void {
    const held = this.paced;
    this.paced = [];
    for (const resolve of held) resolve();
  }

  /** Issues milestones while blocks keep arriving: those that arrive during one share the next. */
  private async autoLoop(): Promise<void> {
    while (this.autoWanted && !this.stopped) {
      const ahead = this.tangle.latestMilestone.timestamp - this.clock.nowSeconds();
      this.leadGiven = Math.min(this.leadGiven, Math.max(0, ahead));
      const lead = ahead + 1 - this.leadGiven;
      const maxLead = this.options.maxLeadSeconds ?? AUTO_MAX_LEAD_SECONDS;
      if (maxLead > 0 && lead > maxLead) {
        await new Promise<void>((resolve) => {
          this.wake = resolve;
          this.timer = setTimeout(resolve, (lead - maxLead) * 1000);
        });
        continue;
      }
      this.autoWanted = false;
      await this.issueOwn();
    }
    this.autoRunning = false;
  }

  /**
   * Issues `count` milestones now, after any in flight, whatever the mode (`POST
   * /api/dev/v1/milestones`); resolves with them once all are confirmed, or with the first
   * failure. At most MAX_QUEUED_MILESTONES wait at once.
   */
  async issueNow(count: number): Promise<MilestoneInfo[]> {
    if (this.stopped) throw new LedgerNodeError(TangleErrorCode.NotCoordinator, "the coordinator is not running");
    const fault = this.tangle.store.writeFault;
    if (fault) throw new LedgerNodeError(StorageErrorCode.WriteFailed, describeWriteFault(fault));
    if (this.queued + count > MAX_QUEUED_MILESTONES) {
      throw new LedgerNodeError(
        DevErrorCode.MilestoneQueueFull,
        `${this.queued} milestones are waiting to be issued; at most ${MAX_QUEUED_MILESTONES} wait at once`,
      );
    }
    return Promise.all(
      Array.from({ length: count }, () =>
        this.enqueue().then((milestone) => {
          this.leadGiven = Math.max(this.leadGiven, milestone.timestamp - this.clock.nowSeconds());
          return milestone;
        }),
      ),
    );
  }

  /**
   * Runs `fn` between two milestones: none is issued while it runs (a dev save takes its view of
   * the database there, node/devStates.ts).
   */
  between<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.chain.then(fn);
    this.chain = run.catch(() => {});
    return run;
  }

  /** One milestone after every one before it; refused once the coordinator stopped. */
  private enqueue(): Promise<MilestoneInfo> {
    this.queued++;
    const run = this.chain
      .then(() => {
        if (this.stopped) {
          throw new LedgerNodeError(TangleErrorCode.NotCoordinator, "the coordinator stopped before this milestone");
        }
        return this.issueMilestone();
      })
      .finally(() => {
        this.queued--;
        this.releasePaced();
      });
    this.chain = run.catch(() => {});
    return run;
  }

  /** Stops issuing and waits for the milestones in flight: the one being issued is written, queued ones are refused. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.autoWanted = false;
    this.wake?.();
    this.releasePaced();
    await this.chain;
  }

  /**
   * Parents of the next milestone: the latest milestone block (chaining the milestones in the
   * DAG) and every tip, oldest first. A milestone has at most 8 parents, so when there are more
   * tips the coordinator first issues checkpoints, as Hornet's coordinator does: plain blocks
   * (with PoW) that each reference the previous checkpoint and up to 7 tips, so the milestone
   * references them all through the last checkpoint. Without this, a wide tangle (many clients
   * submitting at once) would leave tips behind until they fall below max depth.
   */
  private async parents(latest: MilestoneInfo): Promise<{ parents: Uint8Array[]; checks: number | undefined }> {
    // every client's block taken so far is a tip or below one: this milestone references it and
    // waits for their signature checks, no later ones; the clients held for it are answered now,
    // their next blocks arriving while it is issued
    const checks = this.deps.verifyPool?.mark();
    this.waiting = 0;
    this.releasePaced();
    const tips = this.tangle.milestoneTips(Number.MAX_SAFE_INTEGER).filter((t) => !bytesEqual(t, latest.blockId));
    let carry: Uint8Array[] = [latest.blockId];
    let next = 0;
    const canMine = this.tangle.protocolParameters.minPowScore === 0 || (this.options.powWorkers ?? 1) > 0;
    const checkpoints: CheckedBlock[] = [];
    for (let n = 0; canMine && n < MAX_CHECKPOINTS && tips.length - next > MAX_PARENTS - carry.length; n++) {
      const group = tips.slice(next, next + MAX_PARENTS - carry.length);
      next += group.length;
      const checkpoint = await this.checkpoint([...carry, ...group]);
      checkpoints.push(checkpoint);
      carry = [checkpoint.blockId];
    }
    // The chain is built first (each names the previous one's ID), then taken in at once: the
    // writes share one intake batch instead of one batch round trip each, which under load
    // would hold the milestone back for as long as intake keeps the batches busy. Each is on
    // disk before it is announced, and before the milestone that names them.
    for (const verdict of await Promise.all(checkpoints.map((c) => this.deps.intake.take(c, "coordinator")))) {
      acceptedBlock(verdict);
    }
    const group = tips.slice(next, next + MAX_PARENTS - carry.length);
    return { parents: uniqueSorted([...carry, ...group]), checks };
  }

  /** A checkpoint: a block without payload referencing `parents`, mined to the minimum score. */
  private async checkpoint(parents: Uint8Array[]): Promise<CheckedBlock> {
    const params = this.tangle.protocolParameters;
    const block: Block = { protocolVersion: params.protocolVersion, parents: uniqueSorted(parents), nonce: 0n };
    const verdict = await this.deps.intake.complete(block, "coordinator", ownMiner(this.options.powWorkers ?? 1));
    return acceptedBlock(verdict);
  }

  /**
   * Issues and confirms the next milestone; exported for tests that step the network by hand.
   * Once signed and stored, milestone N is the milestone of index N: when its batch fails to
   * write, the next call applies that same milestone again instead of signing another N, and
   * after `MAX_APPLY_ATTEMPTS` failures the coordinator stops, saying why (a restart applies N
   * from its stored block, LedgerNode.open).
   */
  async issueMilestone(): Promise<MilestoneInfo> {
    const signed = this.signed ?? { ...(await this.storeNextMilestone()), failures: 0 };
    this.signed = signed;
    const { plan, milestoneId, blockId } = signed;
    try {
      const info = await applyConfirmation(this.tangle, plan, milestoneId, blockId);
      this.signed = undefined;
      return info;
    } catch (e) {
      signed.failures++;
      if (signed.failures < MAX_APPLY_ATTEMPTS) throw e;
      this.stopped = true;
      throw new LedgerNodeError(
        TangleErrorCode.MilestoneNotApplied,
        `milestone ${plan.index} is signed and stored, but its batch failed ${MAX_APPLY_ATTEMPTS} times (${(e as Error).message}); the coordinator stopped: fix the cause (disk space, I/O) and restart the node, which applies milestone ${plan.index} first`,
        undefined,
        { cause: e },
      );
    }
  }

  /**
   * Steps 1-3 of issuing: plan the cone, sign the milestone, store its block. Until the batch of
   * `applyConfirmation` is written the milestone is pending; a node restarted in between applies
   * it at start (LedgerNode.open). Separate so tests can stop exactly there.
   */
  async storeNextMilestone(): Promise<{ plan: PlannedConfirmation; milestoneId: Uint8Array; blockId: Uint8Array }> {
    const latest = this.tangle.latestMilestone;
    const params = this.tangle.protocolParameters;
    const index = latest.index + 1;
    // the clock moves forward only (time travel), and a milestone's timestamp is above the last
    // one's; it is a u32 (TIP-29): the clock stops at its largest value (time travel to it, then a
    // second passes), and past it the encoding would wrap to a time long gone, so no milestone is
    // issued rather than one whose bytes say another time than the node
    const timestamp = Math.max(Math.min(this.clock.nowSeconds(), MAX_TIMESTAMP), latest.timestamp + 1);
    if (timestamp > MAX_TIMESTAMP) {
      throw new LedgerNodeError(
        DevErrorCode.TimeNotAhead,
        `the next milestone's timestamp would be ${timestamp}, beyond the largest a milestone holds (${MAX_TIMESTAMP}): no milestone can follow milestone ${latest.index}`,
      );
    }
    const { parents, checks } = await this.parents(latest);
    await this.deps.verifyPool?.drained(checks);

    // 1. white-flag over the cone the milestone will reference
    const plan = await planConfirmation(this.tangle, parents, index, timestamp, this.deps.validate);

    // 2. the milestone essence, its ID and the signature over that ID (TIP-29)
    const essence: MilestoneEssence = {
      index,
      timestamp,
      protocolVersion: params.protocolVersion,
      previousMilestoneId: latest.milestoneId,
      parents,
      inclusionMerkleRoot: plan.result.inclusionMerkleRoot,
      appliedMerkleRoot: plan.result.appliedMerkleRoot,
      metadata: new Uint8Array(),
      options: [],
    };
    const milestoneId = computeMilestoneId(essence);
    const payload: MilestonePayload = {
      type: PayloadType.Milestone,
      ...essence,
      // one signature per key, sorted by public key (TIP-29)
      signatures: this.signers.map((keyPair) => ({
        type: SignatureType.Ed25519,
        publicKey: keyPair.publicKey,
        signature: ed25519Sign(keyPair, milestoneId),
      })),
    };

    // 3. the block carrying it (milestones need no PoW: nonce 0), taken in, then the one batch.
    // The intake announces it once it is on disk, so a node restarted before its batch applies
    // this milestone rather than issuing another one of the same index.
    const block: Block = { protocolVersion: params.protocolVersion, parents, payload, nonce: 0n };
    const checked = acceptedBlock(await this.deps.intake.complete(block, "coordinator"));
    const { blockId } = acceptedBlock(await this.deps.intake.take(checked, "coordinator"));
    return { plan, milestoneId, blockId };
  }
}
