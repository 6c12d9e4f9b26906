import { decodeOwnedBlock } from "../codec/block.js";
import { toHex } from "../codec/hex.js";
import { transactionHashesFromBytes } from "../codec/ids.js";
import { type Block, type MilestonePayload, PayloadType, type ProtocolParameters } from "../codec/types.js";
import type { ConeBlock } from "../ledger/pastCone.js";
import {
  type BlockMetadataRecord,
  encodeBlockMetadata,
  type KvStore,
  Repositories,
  type WriteFault,
} from "../storage/index.js";
import { RecentMap } from "../util/recentMap.js";
import { type ConeRootEntry, recomputeConeRoots } from "./coneRoots.js";
import { type BlockSource, type MilestoneInfo, NodeEvents } from "./events.js";
import { IntakeWrites } from "./intakeWrites.js";
import type { TangleView } from "./tangleView.js";
import { TipPool, type TipPoolOptions } from "./tipPool.js";
import { unconfirmableBlocks } from "./unconfirmable.js";

/**
 * The block DAG as this node holds it: blocks and their metadata in storage, and in memory the
 * blocks not yet referenced by a milestone (the part white-flag walks), the solidifier's waiting
 * lists and the tip pool. A block is solid when every parent is solid, referenced by a milestone
 * or a solid entry point; a block whose parent is missing waits and is solidified when the
 * parent arrives.
 */

export interface TangleOptions {
  protocolParameters: ProtocolParameters;
  tipPool: Omit<TipPoolOptions, "belowMaxDepth">;
  /** The node's event stream (the node passes its own; a tangle opened alone makes one). */
  events?: NodeEvents;
  /**
   * Hashes the TIP-4 Merkle root of each list (a milestone's two roots) off the main thread, so
   * intake goes on meanwhile (the node's verify pool); unset, confirmation hashes them in place.
   */
  merkleRoots?: (lists: readonly (readonly Uint8Array[])[]) => Promise<Uint8Array[]>;
}

export type { MilestoneInfo };

interface UnreferencedBlock extends ConeBlock, ConeRootEntry {
  /** The block ID in hex, and its parents' (`parentKeys`): the maps of the tangle are keyed by them. */
  key: string;
  parentKeys: readonly string[];
  /** The block as received: reads of a block not yet referenced are answered from memory. */
  bytes: Uint8Array;
  solid: boolean;
  milestone: boolean;
  /** Unix seconds when the block was taken in (stored in its metadata). */
  arrivalTime: number;
  /**
   * The newest milestone index known when the block was taken in (the ledger's, or a newer one
   * received): the block is dropped once the ledger is `UNCONFIRMABLE_AFTER` past it unreferenced.
   */
  arrivalIndex: number;
}

/**
 * Milestones after its arrival past which an unreferenced block is dropped, beyond the network's
 * below-max-depth. A coordinator references every tip whose cone is not below max depth at its
 * next milestone, so a block still unreferenced this long after it came either hangs on a cone
 * below max depth (lazy for good) or never became solid (its parents never came): it can no
 * longer be confirmed. Hornet keeps such blocks under their arrival milestone until it prunes
 * that milestone; they are dropped here as soon as they are certain to be useless, from memory
 * and from disk (docs/decisions.md, Threats).
 */
export const UNCONFIRMABLE_MARGIN = 2;

const RECENTLY_REFERENCED_MAX = 200_000;
const MILESTONE_IDS_MAX = 100_000;

/**
 * Transaction ID and essence signing hash of a block's transaction, hashed straight from the
 * block's bytes (TIP-24: the payload sits between the parents and the 8-byte nonce, after its
 * u32 length), so neither intake nor confirmation re-encodes the transaction.
 */
export function transactionHashesOf(
  block: Block,
  bytes: Uint8Array,
): { transactionId: Uint8Array; signingHash: Uint8Array } | undefined {
  if (block.payload?.type !== PayloadType.Transaction) return undefined;
  const start = 2 + 32 * block.parents.length + 4;
  return transactionHashesFromBytes(block.payload, bytes.subarray(start, bytes.length - 8));
}

/** The all-zero block ID: the solid entry point of a fresh network (genesis). */
export const NULL_BLOCK_ID = new Uint8Array(32);

export class Tangle implements TangleView {
  readonly tips: TipPool;
  private readonly unreferenced = new Map<string, UnreferencedBlock>();
  /** Missing parent → blocks waiting for it. */
  private readonly waiting = new Map<string, Set<string>>();
  private readonly solidEntryPoints = new Map<string, number>();
  private latest: MilestoneInfo;
  /** Where the tangle reports blocks turning solid and milestones confirmed (see events.ts). */
  readonly events: NodeEvents;
  /** Blocks being written right now (deduplicates concurrent submissions of one block). */
  private readonly storing = new Set<string>();
  /** Referencing milestone of recently referenced blocks: parents of new blocks are mostly these. */
  private readonly recentlyReferenced = new RecentMap<string, number>(RECENTLY_REFERENCED_MAX);
  /** Passes of `recomputeConeRoots`, numbered (a block records the last that updated it). */
  private coneRootPass = 0;
  /** Milestone IDs by index, most recent ones (see milestoneIdAt). */
  private readonly milestoneIds = new Map<number, Uint8Array>();
  /** Intake's batches, written behind (storeBlock). */
  private readonly intake: IntakeWrites;
  /** The newest milestone index among blocks taken in (a milestone may arrive before its cone is solid). */
  private newestMilestoneSeen = 0;
  /** Blocks dropped as unconfirmable since start. */
  droppedCount = 0;
  /** Drops of unconfirmable blocks whose deletes are not on disk yet (see `storeBlock`). */
  private dropsUnwritten = 0;
  /** The store's repositories: every read and write of a bucket goes through them. */
  readonly db: Repositories;
  private constructor(
    readonly store: KvStore,
    readonly options: TangleOptions,
    latest: MilestoneInfo,
  ) {
    this.db = Repositories.of(store);
    this.tips = new TipPool({ ...options.tipPool, belowMaxDepth: options.protocolParameters.belowMaxDepth });
    this.latest = latest;
    this.events = options.events ?? new NodeEvents();
    this.intake = new IntakeWrites(store);
  }

  /** Loads solid entry points, the latest milestone and the unreferenced blocks from storage. */
  static async open(store: KvStore, options: TangleOptions): Promise<Tangle> {
    const db = Repositories.of(store);
    const ledgerIndex = await db.nodeState.ledgerIndex();
    let latest: MilestoneInfo = { index: 0, milestoneId: new Uint8Array(32), blockId: NULL_BLOCK_ID, timestamp: 0 };
    if (ledgerIndex > 0) {
      const rec = await db.milestones.get(ledgerIndex);
      if (rec) latest = { index: ledgerIndex, ...rec };
    }
    const tangle = new Tangle(store, options, latest);
    for await (const [blockId, index] of db.solidEntryPoints.entries()) {
      tangle.solidEntryPoints.set(toHex(blockId), index);
    }
    // Re-admit unreferenced blocks (accepted before a restart) in arrival-independent order:
    // solidification resolves whatever order they come back in. They count as arriving now,
    // with the newest milestone among them known first, whatever their key order.
    const readmitted: { blockId: Uint8Array; block: Block; bytes: Uint8Array; meta: BlockMetadataRecord }[] = [];
    for await (const blockId of db.unreferenced.keys()) {
      const bytes = await db.blocks.get(blockId);
      const meta = await db.blockMetadata.get(blockId);
      if (!bytes || !meta) continue;
      const block = decodeOwnedBlock(bytes);
      tangle.newestKnownIndex(block);
      readmitted.push({ blockId, block, bytes, meta });
    }
    for (const { blockId, block, bytes, meta } of readmitted) {
      await tangle.admit(blockId, block, bytes, meta.milestone, meta.arrivalTime, transactionHashesOf(block, bytes));
    }
    return tangle;
  }

  get latestMilestone(): MilestoneInfo {
    return this.latest;
  }

  get protocolParameters(): ProtocolParameters {
    return this.options.protocolParameters;
  }

  get writeFault(): WriteFault | undefined {
    return this.store.writeFault;
  }

  get databaseLocation(): string {
    return this.store.location;
  }

  isSolidEntryPoint(blockId: Uint8Array): boolean {
    return this.solidEntryPoints.has(toHex(blockId));
  }

  /** Registers a solid entry point (genesis or snapshot import); written by the caller's batch. */
  addSolidEntryPoint(blockId: Uint8Array, index: number): void {
    this.solidEntryPoints.set(toHex(blockId), index);
  }

  unreferencedCount(): number {
    return this.unreferenced.size;
  }

  /** Whether the block is stored (referenced or not). */
  async hasBlock(blockId: Uint8Array): Promise<boolean> {
    return this.holds(blockId) || this.isStored(blockId);
  }

  /** Whether the block is held in memory: being stored, not yet referenced, or referenced lately. */
  holds(blockId: Uint8Array): boolean {
    return this.inMemory(toHex(blockId));
  }

  /**
   * Whether the block is on disk. A synchronous read: for a new block (nearly every one asked)
   * LevelDB answers from its memtable and its tables' Bloom filters without touching a data
   * block, in a few microseconds, less than the JavaScript side of a batched async read alone
   * (bench core's profile), and the block's intake goes on in the same turn.
   */
  isStored(blockId: Uint8Array): boolean {
    return this.db.blocks.hasSync(blockId);
  }

  /**
   * Whether the block, were it stored, would be held in memory, so that a block not held is new
   * and the disk need not be asked (`BlockIntake.judge`; the lookup is a LevelDB miss through
   * every level-0 table, 9 µs of the main thread per block in bench core's profile): one of its
   * parents is held, solid and not below max depth. A milestone that referenced the block would
   * have referenced that parent with it (a milestone references a past cone), so the block, if
   * stored, is one no milestone references, and every such block is held: admitted when stored,
   * taken in again at start (`open`). Three ways a block can be on disk and not held:
   * - a block dropped as unconfirmable leaves memory at once and the disk with a later batch,
   *   which nothing orders before a batch that would store it again: while a drop is not
   *   written, `storeBlock` asks the disk whatever the intake found (`dropsUnwritten`);
   * - a parent may be held although a milestone referenced it, when pruning deleted it and a peer
   *   sent it again; its child referenced with it may still be on disk. Pruning keeps
   *   `belowMaxDepth + 1` milestones (prune.ts), so such a parent's cone roots are all older than
   *   that, and it is below max depth or not solid;
   * - a snapshot's milestone blocks are on disk, referenced, without their cones; a cone block
   *   sent again is held, rooted at the snapshot's entry points, which count as referenced at
   *   its index: the disk is asked for every milestone block (one per milestone), so a known
   *   one is a duplicate rather than a stale milestone.
   */
  heldIfStored(block: Block): boolean {
    if (block.payload?.type === PayloadType.Milestone) return false;
    const horizon = this.latest.index - this.protocolParameters.belowMaxDepth;
    for (const parent of block.parents) {
      const entry = this.unreferenced.get(toHex(parent));
      // a stale ocri (cone roots are recomputed after each milestone) is never above the true one
      if (entry?.solid && entry.ocri >= horizon) return true;
    }
    return false;
  }

  private inMemory(key: string): boolean {
    return this.unreferenced.has(key) || this.storing.has(key) || this.recentlyReferenced.has(key);
  }

  async getBlockBytes(blockId: Uint8Array): Promise<Uint8Array | undefined> {
    return this.unreferenced.get(toHex(blockId))?.bytes ?? this.db.blocks.get(blockId);
  }

  /**
   * The block's metadata. A block not yet referenced is answered from memory (its write may
   * still be on its way, and its solidity lives in memory only: it is recomputed at start).
   */
  async getMetadata(blockId: Uint8Array): Promise<BlockMetadataRecord | undefined> {
    const entry = this.unreferenced.get(toHex(blockId));
    if (entry) return unreferencedMetadata(entry);
    return this.db.blockMetadata.get(blockId);
  }

  /** Whether the block is held here and no milestone references it yet. */
  awaitsMilestone(blockId: Uint8Array): boolean {
    return this.unreferenced.has(toHex(blockId));
  }

  /** Metadata of a block not yet referenced, from memory (undefined for any other block). */
  unreferencedMetadata(blockId: Uint8Array): BlockMetadataRecord | undefined {
    const entry = this.unreferenced.get(toHex(blockId));
    return entry && unreferencedMetadata(entry);
  }

  /**
   * Youngest and oldest cone root index (YCRI/OCRI) of a solid block no milestone references
   * yet, as kept since it became solid and recomputed after every milestone (coneRoots.ts);
   * undefined for any other block.
   */
  coneRootIndexes(blockId: Uint8Array): { ycri: number; ocri: number } | undefined {
    const entry = this.unreferenced.get(toHex(blockId));
    return entry?.solid ? { ycri: entry.ycri, ocri: entry.ocri } : undefined;
  }

  /**
   * Whether a block approving `blockId` now would be below max depth (TIP-22): the oldest
   * milestone its cone reaches (the one that referenced it, its entry point's, or its oldest
   * cone root while unreferenced) is more than `belowMaxDepth` behind the latest. Such a block
   * is never selected as a tip nor referenced by a milestone; an unknown block is not judged.
   */
  async isBelowMaxDepth(blockId: Uint8Array): Promise<boolean> {
    const key = toHex(blockId);
    const entry = this.unreferenced.get(key);
    const root = entry
      ? entry.solid
        ? entry.ocri
        : undefined
      : (this.solidEntryPoints.get(key) ?? ((await this.referencedIndexOf(blockId, key)) || undefined));
    return root !== undefined && this.latest.index - root > this.protocolParameters.belowMaxDepth;
  }

  /** Whether the block is solid right now (in memory, or referenced/entry point). */
  async isSolid(blockId: Uint8Array): Promise<boolean> {
    const key = toHex(blockId);
    const entry = this.unreferenced.get(key);
    if (entry) return entry.solid;
    if (this.solidEntryPoints.has(key)) return true;
    return (await this.referencedIndexOf(blockId)) > 0;
  }

  /** Milestone index that referenced the block, 0 if none (recent ones answered from memory). */
  private async referencedIndexOf(blockId: Uint8Array, key = toHex(blockId)): Promise<number> {
    const recent = this.recentlyReferenced.get(key);
    if (recent !== undefined) return recent;
    return (await this.db.blockMetadata.getSoon(blockId))?.referencedByMilestoneIndex ?? 0;
  }

  /**
   * Stores a new block (block, metadata, child links, unreferenced marker) and runs
   * solidification. Returns false when the block was already known. The block is taken into
   * memory at once and its writes join the intake batch of this turn of the event loop (group
   * commit), written behind, unsynced: reads of the block are answered from memory until a
   * milestone references it, and a milestone's batch is written only after every intake batch
   * handed to storage before it (`intakeWritten`), so the ledger never names a block the disk
   * lacks. A client's block is answered only once its batch is written (intake.ts, `take`); a
   * peer's lost in a crash is asked for again, as with Hornet's write-behind object storage.
   * With `source`, a new block is announced as `blockTaken`.
   */
  async storeBlock(
    blockId: Uint8Array,
    block: Block,
    bytes: Uint8Array,
    milestone: boolean,
    hashes?: { transactionId: Uint8Array; signingHash: Uint8Array },
    options: {
      source?: BlockSource | undefined;
      /**
       * The intake found the block new just before (BlockIntake.judge: on disk, or without the
       * disk where `heldIfStored` or the coordinator's drafts decide): only memory is asked
       * again. A block stored meanwhile is in memory until long after a milestone referenced it
       * (`recentlyReferenced`), so nothing on disk can have changed in between.
       */
      lookedUp?: boolean | undefined;
    } = {},
  ): Promise<boolean> {
    const { source, lookedUp = false } = options;
    const key = toHex(blockId);
    // a block found new (or judged without the disk) may be one dropped whose deletes are not
    // written yet: nothing orders them before this block's batch (see `heldIfStored`)
    const known = lookedUp
      ? this.inMemory(key) || (this.dropsUnwritten > 0 && this.isStored(blockId))
      : await this.hasBlock(blockId);
    if (known) return false;
    if (this.storing.has(key)) return false; // stored by a concurrent submission meanwhile
    this.storing.add(key);
    try {
      const arrivalTime = Math.floor(Date.now() / 1000);
      const meta = unreferencedMetadata({ solid: false, milestone, arrivalTime });
      const batch = this.intake.batch();
      const db = this.db;
      db.blocks.put(batch, blockId, bytes);
      db.blockMetadata.put(batch, blockId, encodeBlockMetadata(meta));
      db.unreferenced.add(batch, blockId);
      db.children.put(batch, block.parents, blockId);
      // announced as taken before it can be announced solid (a coordinator announces its own
      // blocks later, once they are on disk)
      if (source) this.events.emit("blockTaken", { blockId, block, bytes, source });
      await this.admit(blockId, block, bytes, milestone, arrivalTime, hashes ?? transactionHashesOf(block, bytes));
    } finally {
      this.storing.delete(key);
    }
    return true;
  }

  /**
   * Resolves once every intake write begun so far is on disk (not the ones begun later): a
   * milestone's batch, and reads that scan storage for recent blocks, wait for this. Rejects
   * when an intake batch failed to write: nothing may be confirmed past a lost block.
   */
  intakeWritten(): Promise<void> {
    return this.intake.written();
  }

  /**
   * The hex ID of a block, as the string its unreferenced entry already holds when there is one:
   * parents are mostly such blocks, and a key kept with each child would otherwise be a copy of
   * its own (eight 64-character strings per block held until a milestone references it).
   */
  private readonly sharedKey = (blockId: Uint8Array): string => {
    const key = toHex(blockId);
    return this.unreferenced.get(key)?.key ?? key;
  };

  /** Puts a stored block into memory and solidifies it and whatever waited for it. */
  private async admit(
    blockId: Uint8Array,
    block: Block,
    bytes: Uint8Array,
    milestone: boolean,
    arrivalTime: number,
    hashes?: { transactionId: Uint8Array; signingHash: Uint8Array },
  ): Promise<void> {
    const key = toHex(blockId);
    if (this.unreferenced.has(key)) return;
    this.unreferenced.set(key, {
      blockId,
      key,
      parentKeys: block.parents.map(this.sharedKey),
      bytes,
      block,
      solid: false,
      milestone,
      arrivalTime,
      arrivalIndex: this.newestKnownIndex(block),
      ycri: 0,
      ocri: 0,
      coneRootPass: 0,
      settledParents: 0,
      settledOcri: Number.MAX_SAFE_INTEGER,
      transactionId: hashes?.transactionId,
      signingHash: hashes?.signingHash,
    });
    const queue = [key];
    while (queue.length > 0) {
      const next = queue.shift()!;
      if (await this.trySolidify(next)) {
        const children = this.waiting.get(next);
        if (children) {
          this.waiting.delete(next);
          queue.push(...children);
        }
      }
    }
  }

  /** The newest milestone index known, counting the block itself when it is a milestone. */
  private newestKnownIndex(block: Block): number {
    if (block.payload?.type === PayloadType.Milestone) {
      this.newestMilestoneSeen = Math.max(this.newestMilestoneSeen, block.payload.index);
    }
    return Math.max(this.latest.index, this.newestMilestoneSeen);
  }

  /**
   * Drops the blocks that can no longer be confirmed (see UNCONFIRMABLE_MARGIN; which ones:
   * unconfirmable.ts) out of memory (tip pool, waiting lists) and off disk (block, metadata,
   * child links, unreferenced marker), so they are neither walked at every milestone nor
   * admitted again at the next start.
   */
  private dropUnconfirmable(): void {
    const horizon = this.latest.index - this.protocolParameters.belowMaxDepth - UNCONFIRMABLE_MARGIN;
    if (horizon <= 0) return;
    const dropped = unconfirmableBlocks(this.unreferenced, horizon);
    if (dropped.size === 0) return;
    const batch = this.intake.batch();
    for (const key of dropped) {
      const entry = this.unreferenced.get(key)!;
      this.db.blocks.del(batch, entry.blockId);
      this.db.blockMetadata.del(batch, entry.blockId);
      this.db.unreferenced.del(batch, entry.blockId);
      this.db.children.del(batch, entry.block.parents, entry.blockId);
      this.unreferenced.delete(key);
      this.tips.remove(entry.blockId, key);
      this.waiting.delete(key);
      for (const pk of entry.parentKeys) {
        const waiting = this.waiting.get(pk);
        if (waiting?.delete(key) && waiting.size === 0) this.waiting.delete(pk);
      }
    }
    this.droppedCount += dropped.size;
    this.dropsUnwritten++;
    const written = () => {
      this.dropsUnwritten--;
    };
    this.intake.written().then(written, written);
  }

  /** Marks the block solid if all parents are; otherwise registers it as waiting. */
  private async trySolidify(key: string): Promise<boolean> {
    const entry = this.unreferenced.get(key);
    if (!entry || entry.solid) return false;
    let ycri = 0;
    let ocri = Number.MAX_SAFE_INTEGER;
    let settledParents = 0;
    let settledOcri = Number.MAX_SAFE_INTEGER;
    let missing = false;
    const parents = entry.block.parents;
    for (let i = 0; i < parents.length; i++) {
      const p = parents[i]!;
      const pk = entry.parentKeys[i]!;
      const parent = this.unreferenced.get(pk);
      let y: number;
      let o: number;
      if (parent) {
        if (!parent.solid) {
          this.wait(pk, key);
          missing = true;
          continue;
        }
        y = parent.ycri;
        o = parent.ocri;
      } else if (this.solidEntryPoints.has(pk)) {
        y = o = this.solidEntryPoints.get(pk)!;
        settledParents |= 1 << i;
        settledOcri = Math.min(settledOcri, o);
      } else {
        const referenced = this.recentlyReferenced.get(pk) ?? (await this.referencedIndexOf(p, pk));
        if (referenced === 0) {
          // the parent may have been admitted while it was looked up (concurrent stores)
          const late = this.unreferenced.get(pk);
          if (!late?.solid) {
            this.wait(pk, key);
            missing = true;
            continue;
          }
          y = late.ycri;
          o = late.ocri;
        } else {
          y = o = referenced;
          settledParents |= 1 << i;
          settledOcri = Math.min(settledOcri, o);
        }
      }
      ycri = Math.max(ycri, y);
      ocri = Math.min(ocri, o);
    }
    if (missing) return false;
    entry.solid = true;
    entry.settledParents = settledParents;
    entry.settledOcri = settledOcri;
    entry.ycri = ycri;
    entry.ocri = ocri === Number.MAX_SAFE_INTEGER ? ycri : ocri;
    // a milestone references its own cone: blocks built on it root there
    if (entry.block.payload?.type === PayloadType.Milestone) entry.ycri = entry.ocri = entry.block.payload.index;
    this.tips.add(entry.blockId, entry.block.parents, entry.ycri, entry.ocri, entry);
    this.events.emit("blockSolid", { blockId: entry.blockId, key: entry.key, block: entry.block });
    return true;
  }

  private wait(parentKey: string, childKeyHex: string): void {
    const set = this.waiting.get(parentKey) ?? new Set<string>();
    set.add(childKeyHex);
    this.waiting.set(parentKey, set);
  }

  /** Cone roots of the blocks still unreferenced, after a confirmation (see coneRoots.ts). */
  private recomputeConeRoots(): void {
    recomputeConeRoots(
      this.unreferenced,
      ++this.coneRootPass,
      (key) => this.recentlyReferenced.get(key) ?? this.solidEntryPoints.get(key),
      (e) => this.tips.updateConeRoots(e.blockId, e.ycri, e.ocri, e.key),
    );
  }

  /** Blocks whose parents are missing, keyed by the missing parent (for requests to peers). */
  missingParents(): string[] {
    return [...this.waiting.keys()].filter((k) => !this.unreferenced.has(k));
  }

  /**
   * White-flag's view of the DAG: an unreferenced solid block is walked, anything else it can
   * reach is referenced or an entry point (a solid block's parents are solid), so the walk stops.
   */
  readonly coneLookup = (blockId: Uint8Array, key = toHex(blockId)): ConeBlock | "stop" | undefined => {
    const entry = this.unreferenced.get(key);
    if (!entry) return "stop";
    return entry.solid ? entry : undefined;
  };

  /** Parents for a new block: non-lazy tips, or the latest milestone block when there are none. */
  selectParents(): Uint8Array[] {
    const tips = this.tips.select(this.latest.index);
    if (tips.length > 0) return tips;
    return [this.latest.blockId];
  }

  /**
   * The milestone ID of `index` (the zero ID for index 0, the state before the first milestone),
   * or undefined when its record is not stored (pruned). Recent ones are answered from memory
   * (an ID never changes once its milestone is confirmed), others by one synchronous point read
   * of the record, then remembered: hot read routes and listings of many milestones use it.
   */
  milestoneIdAt(index: number): Uint8Array | undefined {
    if (index === 0) return NULL_BLOCK_ID;
    const known = this.milestoneIds.get(index);
    if (known) return known;
    const id = this.db.milestones.getSync(index)?.milestoneId;
    if (!id) return undefined;
    this.rememberMilestoneId(index, id);
    return id;
  }

  /** A pruned milestone's ID is no longer known (its record is gone: commitments show none). */
  forgetMilestoneId(index: number): void {
    this.milestoneIds.delete(index);
  }

  private rememberMilestoneId(index: number, id: Uint8Array): void {
    if (this.milestoneIds.size >= MILESTONE_IDS_MAX) this.milestoneIds.delete(this.milestoneIds.keys().next().value!);
    this.milestoneIds.set(index, id);
  }

  /** Unreferenced solid milestone blocks, lowest index first (milestones written but not applied). */
  pendingMilestones(): { blockId: Uint8Array; milestone: MilestonePayload }[] {
    const found: { blockId: Uint8Array; milestone: MilestonePayload }[] = [];
    for (const e of this.unreferenced.values()) {
      if (e.solid && e.block.payload?.type === PayloadType.Milestone)
        found.push({ blockId: e.blockId, milestone: e.block.payload });
    }
    return found.sort((a, b) => a.milestone.index - b.milestone.index);
  }

  /** Up to `max` tips for the next milestone, oldest first (see TipPool.selectForMilestone). */
  milestoneTips(max: number): Uint8Array[] {
    return this.tips.selectForMilestone(this.latest.index, max);
  }

  /** After a milestone is written: forget the referenced blocks and move the latest milestone. */
  markConfirmed(milestone: MilestoneInfo, referenced: readonly Uint8Array[]): void {
    for (const id of referenced) {
      const key = toHex(id);
      this.unreferenced.delete(key);
      this.tips.remove(id, key);
      this.recentlyReferenced.set(key, milestone.index);
    }
    this.latest = milestone;
    this.rememberMilestoneId(milestone.index, milestone.milestoneId);
    this.dropUnconfirmable();
    this.recomputeConeRoots();
  }
}

/** What the metadata of a block not yet referenced says: as stored at intake, with its solidity. */
function unreferencedMetadata(
  entry: Pick<UnreferencedBlock, "solid" | "milestone" | "arrivalTime">,
): BlockMetadataRecord {
  return {
    solid: entry.solid,
    milestone: entry.milestone,
    referencedByMilestoneIndex: 0,
    whiteFlagIndex: 0,
    inclusionState: 0,
    conflictReason: 0,
    arrivalTime: entry.arrivalTime,
  };
}
