import { readdir, rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { KvStore } from "../storage/index.js";
import type { Pruner } from "../tangle/prune.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { SnapshotErrorCode } from "./errors.js";
import { readSnapshotHeader } from "./fileReader.js";
import { CHECKSUM_SUFFIX } from "./fileWriter.js";
import { type FullSnapshotHeader, SnapshotType } from "./format.js";
import {
  defaultSnapshotOptions,
  deltaSnapshotName,
  FULL_SNAPSHOT_NAME,
  fullSnapshotName,
  type SnapshotOptions,
} from "./options.js";
import { checkIndex, writeDeltaSnapshot, writeFullSnapshot } from "./writeSnapshot.js";

/**
 * Snapshot creation for a running node: `create` (the control route) and `onConfirmed` (the
 * automatic interval) go through one lock, so two requests are written one after the other,
 * never into one file. While a snapshot is written the pruner is pinned at its index, so the
 * data it reads stays; a request below the horizon fails with Pruned.
 */

export interface SnapshotRequest {
  index: number;
  /** "full" (default) or "delta" (against the newest full snapshot in the directory). */
  type?: "full" | "delta";
}

/** The answer for a full snapshot: `{index, filePath}`. */
export interface FullSnapshotResult {
  index: number;
  filePath: string;
}

/** The answer for a delta snapshot: the delta and the full snapshot it builds on. */
export interface DeltaSnapshotResult {
  deltaIndex: number;
  deltaFilePath: string;
  fullIndex: number;
  fullFilePath: string;
}

export interface SnapshotManagerDeps {
  /** The node's database, whose ledger and history the snapshots are written from. */
  store: KvStore;
  /** Below max depth of the network (the SEP window). */
  belowMaxDepth: number;
  /** The node's pruner, pinned while a snapshot is written. */
  pruner?: Pick<Pruner, "pin" | "horizon">;
  /** Where failures of automatic snapshots go (they have no caller). */
  onError?: (e: unknown) => void;
}

export class SnapshotManager {
  readonly options: SnapshotOptions;
  private queue: Promise<unknown> = Promise.resolve();
  private automatic: Promise<void> = Promise.resolve();

  private readonly store: KvStore;

  constructor(
    private readonly deps: SnapshotManagerDeps,
    options: Partial<SnapshotOptions>,
  ) {
    this.store = deps.store;
    this.options = { ...defaultSnapshotOptions, ...options };
  }

  /** Writes the requested snapshot; requests queue behind each other. */
  create(request: SnapshotRequest): Promise<FullSnapshotResult | DeltaSnapshotResult> {
    return this.serialize<FullSnapshotResult | DeltaSnapshotResult>(() =>
      request.type === "delta" ? this.writeDelta(checkIndex(request.index)) : this.writeFull(checkIndex(request.index)),
    );
  }

  createFull(index: number): Promise<FullSnapshotResult> {
    return this.serialize(() => this.writeFull(checkIndex(index)));
  }

  createDelta(index: number): Promise<DeltaSnapshotResult> {
    return this.serialize(() => this.writeDelta(checkIndex(index)));
  }

  /**
   * After each confirmed milestone: every `interval` milestones a full snapshot is written in
   * the background, then older automatic files beyond `keepFull` are removed. The snapshot of
   * milestone T is written once milestone T + belowMaxDepth + 1 is confirmed, as Hornet writes
   * its snapshots a depth behind: its solid entry points are the blocks of T's window with a
   * child referenced after T, and until then a new block may still take one of the window's
   * blocks as a parent. A snapshot written at T itself missed that child's parent, and a node
   * started from it never solidified the milestone that referenced the child (it stayed at T).
   */
  onConfirmed(index: number): void {
    const { interval } = this.options;
    const target = index - (this.deps.belowMaxDepth + 1);
    if (interval <= 0 || target < 1 || target % interval !== 0) return;
    this.automatic = this.automatic
      .then(() => this.createFull(target))
      .then(() => this.removeOldFiles())
      .catch((e) => this.deps.onError?.(e));
  }

  /** Resolves once queued requests and automatic snapshots are done. */
  async idle(): Promise<void> {
    await this.automatic;
    await this.queue;
  }

  /** The full snapshot with the highest target index in the directory, if any. */
  async newestFullSnapshot(): Promise<{ filePath: string; header: FullSnapshotHeader } | undefined> {
    const files = await this.listed(FULL_SNAPSHOT_NAME);
    for (const f of files) {
      try {
        const header = await readSnapshotHeader(f.filePath);
        if (header.type === SnapshotType.Full) return { filePath: f.filePath, header };
      } catch {
        // an unreadable file is not a base for a delta; try the next one
      }
    }
    return undefined;
  }

  private serialize<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => {});
    return run;
  }

  /** Pins the pruner at `index` and fails with Pruned when the horizon is already above it. */
  private hold(index: number): () => void {
    const pruner = this.deps.pruner;
    if (!pruner) return () => {};
    const release = pruner.pin(index);
    if (index < pruner.horizon) {
      release();
      throw new LedgerNodeError(
        SnapshotErrorCode.Pruned,
        `milestone ${index} is older than the pruning index ${pruner.horizon}`,
      );
    }
    return release;
  }

  private path(name: string): string {
    return resolve(join(this.options.directory, name));
  }

  private async writeFull(index: number): Promise<FullSnapshotResult> {
    const release = this.hold(index);
    try {
      const filePath = this.path(fullSnapshotName(index));
      await writeFullSnapshot(this.store, index, filePath, { belowMaxDepth: this.deps.belowMaxDepth });
      return { index, filePath };
    } finally {
      release();
    }
  }

  private async writeDelta(index: number): Promise<DeltaSnapshotResult> {
    const full = await this.newestFullSnapshot();
    if (!full) {
      throw new LedgerNodeError(
        SnapshotErrorCode.NoFullSnapshot,
        `no full snapshot in ${resolve(this.options.directory)} to base a delta on: create one first`,
      );
    }
    const fullIndex = full.header.targetMilestoneIndex;
    if (index <= fullIndex) {
      throw new LedgerNodeError(
        SnapshotErrorCode.BadIndex,
        `a delta snapshot at ${index} is not newer than the newest full snapshot at ${fullIndex}`,
      );
    }
    const release = this.hold(fullIndex + 1);
    try {
      const deltaFilePath = this.path(deltaSnapshotName(index));
      await writeDeltaSnapshot(this.store, index, full.header, deltaFilePath, {
        belowMaxDepth: this.deps.belowMaxDepth,
      });
      return { deltaIndex: index, deltaFilePath, fullIndex, fullFilePath: full.filePath };
    } finally {
      release();
    }
  }

  /** Snapshot files matching `pattern`, newest (highest index) first. */
  private async listed(pattern: RegExp): Promise<{ index: number; filePath: string }[]> {
    let names: string[];
    try {
      names = await readdir(this.options.directory);
    } catch {
      return [];
    }
    return names
      .map((name) => ({ m: pattern.exec(name), name }))
      .filter((x) => x.m !== null)
      .map((x) => ({ index: Number(x.m![1]), filePath: this.path(x.name) }))
      .sort((a, b) => b.index - a.index);
  }

  /**
   * Keeps the newest `keepFull` of the full snapshots the schedule writes (indices that are
   * multiples of `interval`) and removes its older ones. Files written on request at other
   * indices, and every delta (only ever written on request), are the operator's and stay.
   */
  private async removeOldFiles(): Promise<void> {
    const { interval } = this.options;
    const fulls = (await this.listed(FULL_SNAPSHOT_NAME)).filter((f) => f.index % interval === 0);
    const keep = Math.max(1, this.options.keepFull);
    for (const f of fulls.slice(keep)) {
      await rm(f.filePath, { force: true });
      await rm(f.filePath + CHECKSUM_SUFFIX, { force: true });
    }
  }
}
