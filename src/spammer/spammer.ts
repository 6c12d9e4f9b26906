import { setTimeout as sleep } from "node:timers/promises";
import { type Block, type Payload, PayloadType, type ProtocolParameters } from "../codec/types.js";
import { isPowError, minerPool, PowErrorCode, powDigest } from "../pow/index.js";
import type { Miner } from "../tangle/blockCompletion.js";
import { type BlockIntake, IgnoreReason } from "../tangle/intake.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { CpuMonitor } from "./cpuMonitor.js";
import { SpammerErrorCode } from "./errors.js";
import {
  CORES,
  defaultSpammerSettings,
  MAX_SPAMMER_WORKERS,
  mergeSettings,
  SPAMMER_MESSAGE,
  SPAMMER_TAG,
  type SpammerSettings,
} from "./options.js";
import { RateMeter } from "./rateMeter.js";
import { RatePacer } from "./ratePacer.js";
import { parentsWith, type Transfer, ValueSpam, type ValueSpamDeps } from "./valueSpam.js";

/**
 * The spammer inside the node, as inx-spammer runs one beside Hornet (`pkg/spammer`): started,
 * stopped and read over `/api/spammer/v1` (api/routes/spammer.ts), it issues blocks at
 * `bpsRateLimit` from `spammerWorkers` concurrent submitters, each block a tagged-data payload,
 * or with `valueSpamEnabled` a signed basic transfer among its own addresses (valueSpam.ts).
 *
 * - Its blocks take the node's one intake as a client's do (`submitDraft`, source `api`: tip
 *   selection, syntax, known parents above max depth, PoW, signatures checked on the verify
 *   pool), the faucet's way in; a client's quotas hold for it. It yields whenever the intake
 *   would refuse a client's block (not synced, a storage fault, a dev revert) or a block comes
 *   back ignored, waiting `YIELD_MS` before it tries again: it never queues behind a busy node.
 * - PoW, when the network asks for any, on a pool of its own threads (`minerPool("spammer")`):
 *   the clients' queue and the coordinator's threads never wait behind it.
 * - Pace: ratePacer.ts, never above the rate in any 1-s window.
 * - CPU: issuing pauses while the process uses more than `cpuMaxUsage` of the cores
 *   (cpuMonitor.ts), as inx-spammer's `WaitForLowerCPUUsage`.
 * - `stop` aborts the waits and any mining and returns once every submitter has left (within one
 *   submission's time: milliseconds without PoW).
 */

/** How long a submitter waits when the node refuses blocks or comes back busy. */
export const YIELD_MS = 200;
/** How long a submitter waits before it reads the CPU figure again. */
export const CPU_WAIT_MS = 50;
/**
 * A submitter waits for its next permit this long at most, then asks again: a slow rate's wait
 * (1e-9 blocks/s: 31 years) overflows a timer, which Node fires after 1 ms with a warning each time.
 */
export const PACE_WAIT_MS = 1000;
/** A failure is handed to `onError` once per this many ms at most. */
export const REPORT_EVERY_MS = 10_000;
/** `pausedWhile` waits this long at most for the blocks in flight. */
export const PAUSE_WAIT_MS = 5_000;
/** The status's rate: blocks per second over this many complete seconds. */
export const RATE_SECONDS = 5;

/** What the spammer reads of the node (getters: a dev revert builds the components anew). */
export interface SpammerDeps extends ValueSpamDeps {
  readonly tangle: ValueSpamDeps["tangle"] & {
    readonly protocolParameters: ProtocolParameters;
  };
  readonly intake: Pick<BlockIntake, "refusal" | "submitDraft">;
  /** Failures worth a log line (a refused block, a failed funding); never thrown at the node. */
  onError(e: unknown): void;
  /** The CPU figure (tests hand in their own). */
  cpu?: Pick<CpuMonitor, "start" | "stop" | "usage">;
}

export interface SpammerOptions {
  /** The Ed25519 seed of the key value spam is paid from; absent: tagged data only. */
  fundedSeed?: Uint8Array | undefined;
  /** The settings of the first start. */
  settings?: SpammerSettings;
}

/** What `status` answers: inx-spammer's fields (`spammerStatus`), then this node's figures. */
export interface SpammerStatus extends SpammerSettings {
  running: boolean;
  /** The most submitters `start` accepts. */
  spammerWorkersMax: number;
  /** Blocks taken in per second over the last RATE_SECONDS complete seconds since the last start (falls to 0 once stopped). */
  blocksPerSecond: number;
  /** Blocks taken in since the last start. */
  sentBlocks: number;
  /** Blocks refused or failed since the last start. */
  errors: number;
  /** The process's CPU use over the last second, 0..1 of the cores. */
  cpuUsage: number;
}

/** One run between a start and a stop. */
interface Run {
  settings: SpammerSettings;
  controller: AbortController;
  pacer: RatePacer;
  workers: Promise<void>[];
  startedAt: number;
  funding: boolean;
}

type Outcome = "sent" | "busy" | "failed";

export class Spammer {
  private settings: SpammerSettings;
  private run: Run | undefined;
  private readonly meter = new RateMeter();
  private readonly cpu: Pick<CpuMonitor, "start" | "stop" | "usage">;
  private readonly value: ValueSpam | undefined;
  private sent = 0;
  private failed = 0;
  /** Blocks taken in since the node started (the Prometheus counter). */
  private total = 0;
  private counter = 0;
  /** Blocks being submitted. */
  private inFlight = 0;
  /** `pausedWhile` calls under way: nothing is issued. */
  private paused = 0;
  private reportedAt = 0;
  /** When the last run started (ms since the epoch): the rate counts the seconds since. */
  private startedAt = 0;
  /** The last run's pacer: its permits count against the next run's window (ratePacer.ts `carryOver`). */
  private lastPacer: RatePacer | undefined;
  /** Start and stop one after the other. */
  private changing: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly deps: SpammerDeps,
    options: SpammerOptions = {},
  ) {
    this.settings = { ...(options.settings ?? defaultSpammerSettings) };
    this.cpu = deps.cpu ?? new CpuMonitor();
    this.value = options.fundedSeed ? new ValueSpam(deps, options.fundedSeed) : undefined;
  }

  /** Blocks taken in since the node started. */
  get totalSent(): number {
    return this.total;
  }

  get running(): boolean {
    return this.run !== undefined;
  }

  /**
   * Starts with `given` over the last settings (checked first: a bad value is refused and nothing
   * changes); a running spammer is stopped first, as inx-spammer's `Start` does.
   */
  start(given: unknown): Promise<SpammerStatus> {
    const settings = mergeSettings(this.settings, given);
    if (settings.valueSpamEnabled && !this.value) {
      throw new LedgerNodeError(
        SpammerErrorCode.NoFundedKey,
        "valueSpamEnabled: this node has no funded key for the spammer (--spammer-key-file, or a dev account on the dev network)",
      );
    }
    return this.serially(async () => {
      await this.halt();
      this.settings = settings;
      this.sent = 0;
      this.failed = 0;
      this.meter.reset();
      this.cpu.start();
      const now = performance.now();
      const pacer = new RatePacer(settings.bpsRateLimit, now);
      if (this.lastPacer) pacer.carryOver(this.lastPacer, now);
      this.lastPacer = pacer;
      const run: Run = {
        settings,
        controller: new AbortController(),
        pacer,
        workers: [],
        startedAt: Date.now(),
        funding: false,
      };
      this.run = run;
      this.startedAt = run.startedAt;
      if (settings.valueSpamEnabled) this.value?.forget();
      for (let i = 0; i < settings.spammerWorkers; i++) run.workers.push(this.work(run));
      return this.status();
    });
  }

  /** Stops issuing; resolves once no submitter is left. */
  stop(): Promise<SpammerStatus> {
    return this.serially(async () => {
      await this.halt();
      return this.status();
    });
  }

  private serially<T>(f: () => Promise<T>): Promise<T> {
    const next = this.changing.then(f, f);
    this.changing = next.catch(() => {});
    return next;
  }

  private async halt(): Promise<void> {
    const run = this.run;
    if (!run) return;
    this.run = undefined;
    run.controller.abort();
    await Promise.all(run.workers);
    this.cpu.stop();
  }

  status(): SpammerStatus {
    // the wall-clock seconds wholly after the last start (the meter counts by wall-clock second)
    const complete = Math.floor(Date.now() / 1000) - Math.ceil(this.startedAt / 1000);
    const seconds = Math.max(1, Math.min(RATE_SECONDS, complete));
    return {
      running: this.run !== undefined,
      ...this.settings,
      spammerWorkersMax: MAX_SPAMMER_WORKERS,
      blocksPerSecond: this.meter.perSecond(seconds),
      sentBlocks: this.sent,
      errors: this.failed,
      cpuUsage: this.run ? this.cpu.usage() : 0,
    };
  }

  /** One submitter: wait for a permit, issue a block, again, until the run is stopped. */
  private async work(run: Run): Promise<void> {
    const { signal } = run.controller;
    const pause = (ms: number) => sleep(ms, undefined, { signal }).catch(() => {});
    while (!signal.aborted) {
      const now = performance.now();
      if (this.paused > 0 || this.deps.intake.refusal("api")) {
        run.pacer.forgive(now);
        await pause(YIELD_MS);
        continue;
      }
      if (this.cpu.usage() > run.settings.cpuMaxUsage) {
        run.pacer.forgive(now);
        await pause(CPU_WAIT_MS);
        continue;
      }
      if (!run.pacer.take(now)) {
        await pause(Math.min(PACE_WAIT_MS, Math.max(1, run.pacer.waitMs(now))));
        continue;
      }
      let outcome: Outcome;
      this.inFlight++;
      try {
        outcome = await this.issue(run, now);
      } catch (e) {
        if (signal.aborted && isPowError(e, PowErrorCode.Aborted)) return;
        outcome = isPowError(e, PowErrorCode.Busy) ? "busy" : "failed";
        if (outcome === "failed") this.report(e);
      } finally {
        this.inFlight--;
      }
      if (outcome === "failed") this.failed++;
      if (outcome === "busy") await pause(YIELD_MS);
    }
  }

  /** Issues one block on the permit taken at `permitAt` (performance.now): the funding of value spam's lanes, a transfer, or tagged data. */
  private async issue(run: Run, permitAt: number): Promise<Outcome> {
    const value = run.settings.valueSpamEnabled ? this.value : undefined;
    if (value) {
      await value.refresh();
      if (!run.funding && value.unfunded.length > 0) return this.fund(run, value);
      const transfer = value.takeTransfer();
      if (transfer) return this.transfer(run, value, transfer);
    }
    // tagged data: unique data each time, so two blocks on the same tips never share an ID; it
    // ends with the time of its permit (ms since the epoch on the process's monotonic clock: the
    // wall clock may be stepped), so whoever measures the pace from outside sees what it held
    const n = ++this.counter;
    const issuedAt = (performance.timeOrigin + permitAt).toFixed(3);
    const data = new TextEncoder().encode(`${SPAMMER_MESSAGE} #${n} ${issuedAt}`);
    const payload: Payload = { type: PayloadType.TaggedData, tag: new TextEncoder().encode(SPAMMER_TAG), data };
    return (await this.submit(run, payload, undefined)).outcome;
  }

  private async fund(run: Run, value: ValueSpam): Promise<Outcome> {
    run.funding = true;
    try {
      const funding = await value.fundingTransaction();
      if (!funding) return "busy";
      const { outcome, blockId } = await this.submit(run, funding.transaction, undefined);
      if (blockId) value.funded(funding.transaction, funding.lanes, blockId);
      return outcome;
    } finally {
      run.funding = false;
    }
  }

  private async transfer(run: Run, value: ValueSpam, transfer: Transfer): Promise<Outcome> {
    let blockId: Uint8Array | undefined;
    try {
      const submitted = await this.submit(run, transfer.transaction, transfer.parent);
      blockId = submitted.blockId;
      return submitted.outcome;
    } finally {
      value.settle(transfer, blockId);
    }
  }

  /** Hands the block to the intake as a client's draft; its verdict as an outcome. */
  private async submit(
    run: Run,
    payload: Payload,
    parent: Uint8Array | undefined,
  ): Promise<{ outcome: Outcome; blockId?: Uint8Array }> {
    const params = this.deps.tangle.protocolParameters;
    const draft = (tips: Uint8Array[]): Block => ({
      protocolVersion: params.protocolVersion,
      parents: parentsWith(parent, tips),
      payload,
      nonce: 0n,
    });
    const verdict = await this.deps.intake.submitDraft(draft, "api", this.miner(run));
    if (verdict.kind === "accepted") {
      this.sent++;
      this.total++;
      this.meter.count();
      return { outcome: "sent", blockId: verdict.blockId };
    }
    if (verdict.kind === "rejected") {
      this.report(
        new LedgerNodeError(
          SpammerErrorCode.BlockRefused,
          `spammer: block refused (${verdict.code}): ${verdict.details}`,
        ),
      );
      return { outcome: "failed" };
    }
    // a duplicate cannot be (unique data, spent inputs); anything else ignored is the node busy
    return { outcome: verdict.reason === IgnoreReason.Duplicate ? "failed" : "busy" };
  }

  /** Hands a failure on, one per REPORT_EVERY_MS at most: a refused block repeats at the spam's rate. */
  private report(e: unknown): void {
    const now = Date.now();
    if (now - this.reportedAt < REPORT_EVERY_MS) return;
    this.reportedAt = now;
    this.deps.onError(e);
  }

  /**
   * Runs `f` with no block of the spammer in flight and none issued meanwhile (a dev revert is
   * refused while blocks are submitted, node.ts `replaceState`); the run goes on afterwards.
   */
  async pausedWhile<T>(f: () => Promise<T>): Promise<T> {
    this.paused++;
    try {
      for (let waited = 0; this.inFlight > 0 && waited < PAUSE_WAIT_MS; waited += 5) await sleep(5);
      const result = await f();
      // the ledger was put back: what the lanes held may be gone, so they read it again
      this.value?.forget();
      return result;
    } finally {
      this.paused--;
    }
  }

  /** The spammer's miner: its own pool, a thread per submitter up to one per core, aborted by a stop. */
  private miner(run: Run): Miner {
    return (bytes, targetScore) =>
      minerPool("spammer").mine(powDigest(bytes), targetScore, bytes.length, {
        workers: Math.min(run.settings.spammerWorkers, CORES),
        signal: run.controller.signal,
        maxJobs: run.settings.spammerWorkers,
      });
  }
}
