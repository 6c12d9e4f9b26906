import { parentsOfBlockBytes } from "../codec/block.js";
import { toHex } from "../codec/hex.js";
import { outputIdFromParts } from "../codec/ids.js";
import { PayloadType } from "../codec/types.js";
import { blake2b256 } from "../crypto/blake2b.js";
import {
  type BlockMetadataRecord,
  encodeU32,
  NodeStateKey,
  type Repositories,
  type WriteBatch,
} from "../storage/index.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { TangleErrorCode } from "./errors.js";
import type { Tangle } from "./tangle.js";

/**
 * Pruning: deletes what milestones older than the horizon left behind (their records and ledger
 * diffs, the blocks they referenced and their white-flag order, the outputs they spent), in the background and in small
 * batches, so confirmation never waits behind it. What is still needed stays: unspent outputs
 * and the proof data of their transactions, protocol parameters, and every block a later or
 * unreferenced block points to becomes a solid entry point before its data goes. Reads of
 * pruned data find nothing (the API answers 404).
 *
 * A run moves the horizon in one step, in this order: (1) the new pruning index and the solid
 * entry points for it are written first, in one synced batch, so readers (and snapshots) never
 * start on data about to go; (2) each milestone below it is deleted, its record last, so a run
 * cut short by a crash is finished by the next one.
 */

export interface PruneOptions {
  /** Milestones kept below the ledger index; 0 disables pruning. At least belowMaxDepth + 1 is kept. */
  pruneBelow: number;
  /** The horizon moves once it is this many milestones behind (SEPs are computed once per move). */
  step: number;
  /** Operations per write batch. */
  batchSize: number;
}

export const defaultPruneOptions: PruneOptions = { pruneBelow: 0, step: 10, batchSize: 1000 };

export interface SolidEntryPoint {
  blockId: Uint8Array;
  /** Index of the milestone that referenced the block. */
  index: number;
}

/** The transaction ID of a block carrying a transaction (BLAKE2b-256 of the payload bytes), if it does. */
function transactionIdOfBlockBytes(bytes: Uint8Array): Uint8Array | undefined {
  const at = 2 + 32 * (bytes[1] ?? 0);
  if (at + 8 > bytes.length) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const length = view.getUint32(at, true);
  if (length < 4 || view.getUint32(at + 4, true) !== PayloadType.Transaction) return undefined;
  return blake2b256(bytes.subarray(at + 4, at + 4 + length));
}

/** Block bytes and metadata of `ids`, batched. */
async function blocksOf(db: Repositories, ids: Uint8Array[]) {
  const [bytes, metas] = await Promise.all([db.blocks.getMany(ids), db.blockMetadata.getMany(ids)]);
  return ids.map((id, i) => ({ id, bytes: bytes[i], meta: metas[i] }));
}

/** The milestone record and block of `index`, when stored. */
async function milestoneAt(db: Repositories, index: number) {
  const record = await db.milestones.get(index);
  if (!record) return undefined;
  const bytes = await db.blocks.get(record.blockId);
  return { ...record, bytes };
}

/** Whether a child makes its parent an entry point: referenced after `target`, or not referenced yet. */
async function hasChildAfter(db: Repositories, blockId: Uint8Array, target: number): Promise<boolean> {
  const children = await db.children.of(blockId);
  if (children.length === 0) return false;
  const metas = await db.blockMetadata.getMany(children);
  return metas.some((m) => {
    if (!m) return false; // pruned or never stored
    const ref = m.referencedByMilestoneIndex;
    return ref === 0 || ref > target;
  });
}

/**
 * The solid entry points of a history that starts after milestone `target` (Hornet's rule):
 * every block referenced by one of the milestones `target - belowMaxDepth .. target` (or already
 * an entry point from that range) that has a child referenced after `target` or not referenced
 * yet. Blocks older than that window are below max depth: nothing new may attach to them. The
 * reads are of referenced blocks, which never change, so they need no consistent view.
 */
export async function solidEntryPointsAt(
  db: Repositories,
  target: number,
  belowMaxDepth: number,
): Promise<SolidEntryPoint[]> {
  const low = Math.max(0, target - belowMaxDepth);
  const candidates = new Map<string, SolidEntryPoint>();
  for await (const [blockId, index] of db.solidEntryPoints.entries()) {
    if (index >= low && index <= target) candidates.set(toHex(blockId), { blockId, index });
  }
  // walk the cones of the window's milestones, from their parents down to the window's bottom
  const seen = new Set<string>();
  let frontier: Uint8Array[] = [];
  for (let m = Math.max(1, low); m <= target; m++) {
    const ms = await milestoneAt(db, m);
    if (ms?.bytes) frontier.push(...parentsOfBlockBytes(ms.bytes));
  }
  while (frontier.length > 0) {
    const fresh = frontier.filter((id) => {
      const k = toHex(id);
      if (seen.has(k) || candidates.has(k)) return false;
      seen.add(k);
      return true;
    });
    frontier = [];
    for (const b of await blocksOf(db, fresh)) {
      const ref = b.meta?.referencedByMilestoneIndex ?? 0;
      if (!b.bytes || ref < low || ref > target || ref === 0) continue;
      candidates.set(toHex(b.id), { blockId: b.id, index: ref });
      frontier.push(...parentsOfBlockBytes(b.bytes));
    }
  }
  // the children checks, a few dozen at a time (each is a short scan of the Child bucket)
  const entryPoints: SolidEntryPoint[] = [];
  const all = [...candidates.values()];
  for (let i = 0; i < all.length; i += 64) {
    const group = all.slice(i, i + 64);
    const found = await Promise.all(group.map((c) => hasChildAfter(db, c.blockId, target)));
    group.forEach((c, j) => {
      if (found[j]) entryPoints.push(c);
    });
  }
  return entryPoints;
}

/**
 * Background pruning for one tangle. `onConfirmed` (called after each milestone) starts a run
 * when the horizon is `step` milestones behind; `request` runs one on demand (the prune control
 * route); runs never overlap, a request waits for the run in progress. `pin(index)` holds the
 * horizon at or below `index` while a snapshot reads the data from there on.
 */
export class Pruner {
  private horizonIndex: number;
  private readonly pins = new Map<number, number>();
  private running: Promise<void> = Promise.resolve();
  /** Runs started or waiting. */
  private queued = 0;
  /** A requested run is waiting or under way (one at a time). */
  private requested = false;
  private stopped = false;

  private constructor(
    private readonly tangle: Tangle,
    readonly options: PruneOptions,
    pruningIndex: number,
    private readonly onError: (e: unknown) => void,
  ) {
    this.horizonIndex = pruningIndex;
  }

  static async create(
    deps: { tangle: Tangle; onError?: (e: unknown) => void },
    options: Partial<PruneOptions> = {},
  ): Promise<Pruner> {
    const { tangle, onError = () => {} } = deps;
    return new Pruner(
      tangle,
      { ...defaultPruneOptions, ...options },
      await tangle.db.nodeState.pruningIndex(),
      onError,
    );
  }

  /** The pruning index: milestones below it have no data (or are being deleted). */
  get horizon(): number {
    return this.horizonIndex;
  }

  /** Milestones kept below the ledger index when pruning is on. */
  get keep(): number {
    return Math.max(this.options.pruneBelow, this.tangle.protocolParameters.belowMaxDepth + 1);
  }

  /**
   * Keeps the data of milestone `index` and above until the returned release is called. Check
   * `horizon <= index` right after pinning (same turn): then the data is there and stays.
   */
  pin(index: number): () => void {
    this.pins.set(index, (this.pins.get(index) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const n = this.pins.get(index)! - 1;
      if (n === 0) this.pins.delete(index);
      else this.pins.set(index, n);
    };
  }

  /** After a milestone: starts a background run when pruning is on and the horizon lags by a step. */
  onConfirmed(ledgerIndex: number): void {
    if (this.options.pruneBelow === 0 || this.stopped || this.queued > 0) return;
    const target = ledgerIndex - this.keep;
    if (target - this.horizonIndex < Math.max(1, this.options.step)) return;
    this.enqueue(target).catch((e) => this.onError(e));
  }

  /**
   * A run on demand (the prune control route): after the run in progress, prunes every
   * milestone below `target` and resolves to the pruning index reached, which a snapshot being
   * written (a pin) or the ledger's needs (`belowMaxDepth + 1` milestones kept below the ledger
   * index) may hold below `target`. One requested run at a time: another is PruningBusy.
   */
  async request(target: number): Promise<number> {
    if (this.stopped) throw new LedgerNodeError(TangleErrorCode.PruningBusy, "the node is stopping");
    if (this.requested) {
      throw new LedgerNodeError(TangleErrorCode.PruningBusy, "a requested pruning is already running");
    }
    this.requested = true;
    try {
      return await this.enqueue(target);
    } finally {
      this.requested = false;
    }
  }

  /** Runs `pruneTo(target)` after the runs before it. */
  private enqueue(target: number): Promise<number> {
    this.queued++;
    const run = this.running.then(() => this.pruneTo(target));
    this.running = run.then(
      () => {
        this.queued--;
      },
      () => {
        this.queued--;
      },
    );
    return run;
  }

  /** Resolves when no run is in progress. */
  idle(): Promise<void> {
    return this.running;
  }

  /** Stops after the batch in progress; a later start resumes where it stopped. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }

  /**
   * Prunes every milestone below `target` (capped by pins and by what the ledger may lose) and
   * returns the new pruning index. Exposed for tests and tools; `onConfirmed` calls it.
   */
  async pruneTo(target: number): Promise<number> {
    const store = this.tangle.store;
    const db = this.tangle.db;
    const ledgerIndex = await db.nodeState.ledgerIndex();
    // 1. the new horizon, reserved at once (same turn as the pin check) so no snapshot starts below it
    let horizon = Math.min(target, ledgerIndex - this.tangle.protocolParameters.belowMaxDepth - 1);
    for (const pinned of this.pins.keys()) horizon = Math.min(horizon, pinned);
    if (horizon <= this.horizonIndex) return this.horizonIndex;
    this.horizonIndex = horizon;

    // 2. entry points for a history starting at the horizon, and the horizon itself, durably
    //    first; entry points below max depth of the new horizon are no longer needed
    const belowMaxDepth = this.tangle.protocolParameters.belowMaxDepth;
    const entryPoints = await solidEntryPointsAt(db, horizon - 1, belowMaxDepth);
    entryPoints.push(...(await this.parentsOfUnreferenced(horizon)));
    const keep = new Set(entryPoints.map((sep) => toHex(sep.blockId)));
    const first = store.batch();
    for await (const [blockId, index] of db.solidEntryPoints.entries()) {
      const old = index < horizon - 1 - belowMaxDepth;
      if (old && !keep.has(toHex(blockId))) db.solidEntryPoints.del(first, blockId);
    }
    for (const sep of entryPoints) db.solidEntryPoints.put(first, sep.blockId, encodeU32(sep.index));
    db.nodeState.putU32(first, NodeStateKey.PruningIndex, horizon);
    await first.write({ sync: true });
    for (const sep of entryPoints) this.tangle.addSolidEntryPoint(sep.blockId, sep.index);

    // 3. each stored milestone below the horizon, oldest first
    for (;;) {
      if (this.stopped) break;
      const lowest = await this.lowestStoredMilestone();
      if (lowest === undefined || lowest >= horizon) break;
      await this.pruneMilestone(lowest);
    }
    if (!this.stopped) this.tangle.events.emit("pruned", { index: horizon });
    return horizon;
  }

  /** Referenced parents (below the horizon) of blocks no milestone references yet. */
  private async parentsOfUnreferenced(horizon: number): Promise<SolidEntryPoint[]> {
    const db = this.tangle.db;
    const parents = new Map<string, Uint8Array>();
    for await (const blockId of db.unreferenced.keys()) {
      const bytes = await db.blocks.get(blockId);
      if (bytes) for (const p of parentsOfBlockBytes(bytes)) parents.set(toHex(p), p);
    }
    const out: SolidEntryPoint[] = [];
    for (const b of await blocksOf(db, [...parents.values()])) {
      const ref = b.meta?.referencedByMilestoneIndex ?? 0;
      if (ref > 0 && ref < horizon) out.push({ blockId: b.id, index: ref });
    }
    return out;
  }

  private lowestStoredMilestone(): Promise<number | undefined> {
    return this.tangle.db.milestones.firstIndex();
  }

  /** Deletes one milestone's data in small batches; its record goes last. */
  private async pruneMilestone(index: number): Promise<void> {
    const store = this.tangle.store;
    const db = this.tangle.db;
    const ms = await milestoneAt(db, index);
    if (!ms) return;
    let batch = store.batch();
    const flush = async () => {
      if (batch.size < this.options.batchSize) return;
      await batch.write({ sync: false });
      batch = store.batch();
      await new Promise((resolve) => setImmediate(resolve));
    };

    // 1. the blocks this milestone referenced (its cone; the previous milestone's block is one)
    const cone: { id: Uint8Array; bytes: Uint8Array; meta: BlockMetadataRecord }[] = [];
    const seen = new Set<string>();
    let frontier = ms.bytes ? parentsOfBlockBytes(ms.bytes) : [];
    while (frontier.length > 0) {
      const fresh = frontier.filter((id) => {
        const k = toHex(id);
        if (seen.has(k)) return false;
        seen.add(k);
        return true;
      });
      frontier = [];
      for (const b of await blocksOf(db, fresh)) {
        if (!b.bytes || !b.meta || b.meta.referencedByMilestoneIndex !== index) continue;
        cone.push({ id: b.id, bytes: b.bytes, meta: b.meta });
        frontier.push(...parentsOfBlockBytes(b.bytes));
      }
    }
    for (const b of cone) {
      db.blocks.del(batch, b.id);
      db.blockMetadata.del(batch, b.id);
      db.children.del(batch, parentsOfBlockBytes(b.bytes), b.id);
      const txId = transactionIdOfBlockBytes(b.bytes);
      if (txId) await this.deleteTransactionRecordsIfSpent(batch, txId);
      await flush();
    }

    // 2. outputs spent by this milestone: no ledger state at or above the horizon holds them
    const diff = await db.ledgerDiffs.get(index);
    if (diff) {
      for (const id of diff.consumed) {
        db.outputs.del(batch, id);
        await flush();
      }
    }

    // 3. the milestone's own records, last; its white-flag order goes with its blocks (the
    //    proofs of inclusion of tangle/inclusionProof.ts need both or neither)
    await db.milestoneBlocks.delAll(batch, index);
    db.ledgerDiffs.del(batch, index);
    db.milestoneIndexes.del(batch, ms.milestoneId);
    db.milestones.del(batch, index);
    await batch.write({ sync: false });
    this.tangle.forgetMilestoneId(index);
  }

  /** A transaction's record goes only when none of its outputs is unspent any more. */
  private async deleteTransactionRecordsIfSpent(batch: WriteBatch, txId: Uint8Array): Promise<void> {
    const db = this.tangle.db;
    const rec = await db.transactionBlocks.get(txId);
    if (rec) {
      const n = rec.outputCount;
      const unspent = await db.unspent.hasMany(Array.from({ length: n }, (_, i) => outputIdFromParts(txId, i)));
      if (unspent.some((u) => u)) return;
    }
    db.transactionBlocks.del(batch, txId);
  }
}
