import { bytesEqual, compareBytes } from "../codec/hex.js";
import { OUTPUT_ID_LENGTH } from "../codec/ids.js";
import type { WhiteFlagResult } from "../ledger/whiteFlag.js";
import { type KvStore, type RangeEntry, type RangeReader, Repositories, type WriteBatch } from "../storage/index.js";
import type { LedgerIndex, MilestoneInfo } from "../tangle/events.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { Serial } from "../util/serial.js";
import { IndexerErrorCode, isIndexerError } from "./errors.js";
import { decodeOutputFacts, type IndexedOutputType } from "./facts.js";
import { ListReader } from "./fieldLists.js";
import { addMilestoneWrites, decodeState, INDEXER_VERSION, type IndexerState } from "./indexWrites.js";
import { POSITION_LENGTH, type Position, positionOfKey } from "./keys.js";
import { matches, needsFacts, type OutputQuery, planScans, type ScanPlan } from "./query.js";
import { type RebuildOptions, rebuildIndexes } from "./rebuild.js";

/** Most entries one range read takes from LevelDB at a time. */
const MAX_RANGE_READ = 1001;

/**
 * Index entries one listing request examines at most. A filtered listing may skip many entries
 * for each it returns (a tag matched by one output in a million); past this many the page ends
 * early, maybe short or empty, with a cursor where the examination stopped, so one request costs
 * bounded work and the client follows the cursor as for any page (docs/decisions.md, Threats).
 */
export const MAX_EXAMINED_PER_REQUEST = 10_000;

/**
 * Secondary indexes over the unspent ledger, kept in the node's LevelDB: chain ID → current
 * output, and per output kind the unspent outputs in booking order, overall and by every field
 * value inx-indexer filters on. Each milestone's changes go into that milestone's one atomic
 * batch (the indexer is a `LedgerIndex` attached to the node's events), with the ledger index
 * they reflect (the IndexerState marker), so the indexes never disagree with the ledger they
 * name.
 *
 * The indexes are rebuilt from the Unspent and Output buckets whenever the marker is missing,
 * of another layout version, or behind the ledger (first start with the genesis output, a node
 * started from a snapshot, milestones confirmed while no indexer was attached). Reads compare
 * the marker before and after, so `ledgerIndex` and the items always come from the same state.
 */

/** Reads that saw the marker move are retried this many times. */
const READ_ATTEMPTS = 8;
/** How long a rebuild waits for milestone batches already filled to be written. */
const LAND_WAIT_MS = 10_000;

/** One page of a listing. */
export interface OutputPage {
  /** The ledger index the items reflect. */
  ledgerIndex: number;
  items: Uint8Array[];
  /** Position of the next page's first item, when there is one. */
  next?: Position;
}

/** The position at the end of a listing key, as bytes that sort in listing order. */
const positionSlice = (key: Uint8Array) => key.subarray(key.length - POSITION_LENGTH);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class Indexer implements LedgerIndex {
  readonly name = "indexer";
  /** True while every milestone's batch carries the index writes. */
  private synced = false;
  /** Ledger index the indexes reach once the batches handed to the writer are written. */
  private indexedIndex = -1;
  /** Highest milestone the writer added writes to (its batch may still be on its way to disk). */
  private lastWritten = -1;
  /** The writer and a direct rebuild never overlap: a rebuild must see no milestone land. */
  private readonly serial = new Serial();

  /**
   * The node attaches it to its events before the coordinator starts and calls `catchUp`;
   * attached later, it still converges: the indexes stay consistent with the ledger index they
   * name, and the next milestone's batch rebuilds them if a confirmation slipped past.
   */
  private readonly store: KvStore;
  /** The marker as last read with no write under way, and the store's count of writes then. */
  private marker: { writes: number; state: IndexerState | undefined } | undefined;
  private readonly db: Repositories;

  constructor(
    deps: { store: KvStore },
    private readonly options: RebuildOptions = {},
  ) {
    this.store = deps.store;
    this.db = Repositories.of(deps.store);
  }

  /** Brings the indexes to the ledger when they do not follow it milestone by milestone (reads call it). */
  async catchUp(): Promise<void> {
    if (!this.synced) await this.sync();
  }

  /** Whether the indexes follow the ledger milestone by milestone right now. */
  get isSynced(): boolean {
    return this.synced;
  }

  /**
   * Adds the milestone's index writes to its batch. Milestones are confirmed one at a time, so
   * while this runs the database holds the ledger of the previous milestone; when the indexes
   * are not known to be at that ledger (first milestone after attaching, one that slipped past),
   * they are rebuilt from it first (`rebuild`, in batches of their own that land before this
   * one; a crash in between leaves indexes whose marker names the ledger they hold).
   */
  readonly writeMilestone = (batch: WriteBatch, result: WhiteFlagResult, ms: MilestoneInfo): Promise<void> =>
    this.serial.run(async () => {
      this.lastWritten = Math.max(this.lastWritten, ms.index);
      if (!this.synced || ms.index !== this.indexedIndex + 1) {
        this.synced = false;
        const base = ms.index - 1;
        if ((await this.db.nodeState.ledgerIndex()) !== base) return; // not the next milestone: leave it to a rebuild
        const state = await this.readState();
        // the rebuild lands before this batch, at the ledger this batch starts from
        if (state?.version !== INDEXER_VERSION || state.ledgerIndex !== base)
          await rebuildIndexes(this.store, base, this.options);
      }
      addMilestoneWrites(this.store, batch, result, ms.index);
      this.indexedIndex = ms.index;
      this.synced = true;
    });

  /**
   * Brings the indexes to the ledger now: a rebuild (in bounded batches) when the marker does
   * not match the ledger index. It first lets every batch the writer has filled reach the disk, and
   * holds the writer back meanwhile, so no milestone carrying index writes lands during it; when
   * the ledger index still moved (a confirmation begun before the writer was registered), the
   * next milestone's batch finishes the job.
   */
  sync(): Promise<void> {
    return this.serial.run(async () => {
      if (this.synced) return;
      for (let waited = 0; waited < LAND_WAIT_MS; waited += 2) {
        if ((await this.db.nodeState.ledgerIndex()) >= this.lastWritten) break;
        await sleep(2);
      }
      const before = await this.db.nodeState.ledgerIndex();
      const state = await this.readState();
      if (state?.version !== INDEXER_VERSION || state.ledgerIndex !== before)
        await rebuildIndexes(this.store, before, this.options);
      if ((await this.db.nodeState.ledgerIndex()) === before) {
        this.indexedIndex = before;
        this.synced = true;
      }
    });
  }

  private async readState(): Promise<IndexerState | undefined> {
    const v = await this.db.indexer.state();
    return v && decodeState(v);
  }

  private readStateSync(): IndexerState | undefined {
    const v = this.db.indexer.stateSync();
    return v && decodeState(v);
  }

  /**
   * Runs `read` between two reads of the marker and retries until both agree, so the answer
   * belongs to the ledger index it names (each milestone batch moves the marker atomically
   * with the entries).
   */
  private async consistent<T>(read: () => Promise<T>): Promise<T & { ledgerIndex: number }> {
    for (let attempt = 0; attempt < READ_ATTEMPTS; attempt++) {
      // With no write under way, and none begun since the marker was last read, the marker is
      // what was read then; and if none begins during the read, the read belongs to it without
      // reading it again (KvStore.quietWrites). Otherwise the marker is read before and after:
      // one small hot key, which a synchronous read answers from LevelDB's cache.
      const quiet = this.store.quietWrites();
      const kept = this.marker;
      const before = quiet !== undefined && kept?.writes === quiet ? kept.state : this.readStateSync();
      if (quiet !== undefined) this.marker = { writes: quiet, state: before };
      if (before?.version !== INDEXER_VERSION)
        throw new LedgerNodeError(IndexerErrorCode.NotReady, "the indexes are not built yet");
      let result: T;
      try {
        result = await read();
      } catch (e) {
        // a chunk named by the directory just read was rewritten meanwhile: read again
        if (isIndexerError(e, IndexerErrorCode.ListMoved) && this.readStateSync()?.ledgerIndex !== before.ledgerIndex)
          continue;
        if (isIndexerError(e, IndexerErrorCode.ListMoved))
          throw new LedgerNodeError(IndexerErrorCode.Corrupt, e.message);
        throw e;
      }
      if (quiet !== undefined && this.store.quietWrites() === quiet)
        return { ...result, ledgerIndex: before.ledgerIndex };
      const after = this.readStateSync();
      if (after?.ledgerIndex === before.ledgerIndex) return { ...result, ledgerIndex: before.ledgerIndex };
    }
    throw new LedgerNodeError(IndexerErrorCode.Busy, "the ledger moved during every attempt to read the indexes");
  }

  /** The current unspent output of an alias, NFT (32-byte ID) or foundry (38-byte ID), if any. */
  async chainOutput(
    type: IndexedOutputType,
    chainId: Uint8Array,
  ): Promise<{ ledgerIndex: number; outputId: Uint8Array | undefined }> {
    return this.consistent(async () => ({ outputId: await this.db.indexer.chain(type, chainId) }));
  }

  /**
   * One page of the outputs matching `q`, in booking order then output ID order. A listing over
   * several ranges (every kind, or the fields an unlocking address may sit in) merges them by
   * position; an output found in two ranges of its kind is listed once.
   */
  async outputs(q: OutputQuery): Promise<OutputPage> {
    return this.consistent(async () => {
      const plans = planScans(q);
      const items: Uint8Array[] = [];
      let next: Position | undefined;
      const budget = { left: MAX_EXAMINED_PER_REQUEST };
      const heads = plans.map((plan) =>
        plan.list ? new ListHead(this.store, plan, plan.list, q, budget) : new RangeHead(this.store, plan, q, budget),
      );
      try {
        // a field list's head reads synchronously: a promise only for a range that reads on
        await settled(heads.map((h) => h.advance()));
        let last: Uint8Array | undefined;
        for (;;) {
          // the head whose current entry (a match, or where its examination stopped) comes first
          let at = -1;
          for (let i = 0; i < heads.length; i++) {
            const h = heads[i]!;
            const k = h.key ?? h.stoppedAt;
            if (
              k &&
              (at < 0 || compareBytes(positionSlice(k), positionSlice((heads[at]!.key ?? heads[at]!.stoppedAt)!)) < 0)
            )
              at = i;
          }
          if (at < 0) break;
          const head = heads[at]!;
          if (!head.key) {
            // the budget ran out: everything before this position is listed, the rest is the next page's
            next = positionOfKey(head.stoppedAt!);
            break;
          }
          const key = head.key;
          const moving = head.advance();
          if (moving) await moving;
          const pos = positionSlice(key);
          if (last && bytesEqual(pos, last)) continue;
          last = pos;
          if (items.length === q.pageSize) {
            next = positionOfKey(key);
            break;
          }
          items.push(key.slice(key.length - OUTPUT_ID_LENGTH));
        }
      } finally {
        await settled(heads.map((h) => h.close()));
      }
      return next ? { items, next } : { items };
    });
  }
}

/** Waits for the promises among `steps`; nothing to wait for when every step was done at once. */
function settled(steps: (Promise<void> | undefined)[]): Promise<unknown> | undefined {
  const pending = steps.filter((s) => s !== undefined);
  return pending.length === 0 ? undefined : Promise.all(pending);
}

/** The current matching entry of one scanned range or list, in position order. */
interface Head {
  /** A key ending in the position (a list's head holds the position itself); undefined once exhausted. */
  key: Uint8Array | undefined;
  /** With no `key`: the first entry not examined when the request's budget ran out. */
  stoppedAt: Uint8Array | undefined;
  /** Moves to the next matching entry: at once when it is in memory, else the returned promise reads on. */
  advance(): Promise<void> | undefined;
  /** Releases what the head holds open: at once when nothing is, else the returned promise closes it. */
  close(): Promise<void> | undefined;
}

/** Decides an entry by its facts, as the query asks beyond the range it was found in. */
function accepts(value: Uint8Array | undefined, q: OutputQuery, indexed: ScanPlan["indexed"]): boolean {
  let facts: ReturnType<typeof decodeOutputFacts>;
  try {
    facts = decodeOutputFacts(value ?? new Uint8Array(0));
  } catch (e) {
    throw new LedgerNodeError(IndexerErrorCode.Corrupt, `an index entry does not decode: ${(e as Error).message}`);
  }
  return matches(facts, q, indexed);
}

/**
 * The current matching entry of a field list (fieldLists.ts), read chunk by chunk with
 * synchronous point reads: it never waits.
 */
class ListHead implements Head {
  key: Uint8Array | undefined;
  stoppedAt: Uint8Array | undefined;
  private readonly reader: ListReader;
  private readonly facts: boolean;

  constructor(
    store: KvStore,
    private readonly plan: ScanPlan,
    list: Uint8Array,
    private readonly q: OutputQuery,
    private readonly budget: { left: number },
  ) {
    this.facts = needsFacts(q, plan.indexed);
    this.reader = new ListReader(store, list, positionSlice(plan.gte));
  }

  advance(): undefined {
    const high = positionSlice(this.plan.lte);
    for (let e = this.reader.next(); e; e = this.reader.next()) {
      if (compareBytes(e.position, high) > 0) break;
      if (this.budget.left-- <= 0) {
        this.key = undefined;
        this.stoppedAt = e.position;
        return undefined;
      }
      if (!this.facts || accepts(e.facts, this.q, this.plan.indexed)) {
        this.key = e.position;
        return undefined;
      }
    }
    this.key = undefined;
    return undefined;
  }

  close(): undefined {
    return undefined;
  }
}

/**
 * The current matching entry of one scanned range. Entries come from LevelDB a page at a time
 * (a page of the listing plus one, enough for the whole answer when nothing is filtered out),
 * keys only when the range's key alone decides a match.
 */
class RangeHead implements Head {
  /** The current matching key; undefined once the range is exhausted. */
  key: Uint8Array | undefined;
  stoppedAt: Uint8Array | undefined;
  private readonly reader: RangeReader;
  private readonly facts: boolean;
  private readonly readSize: number;
  private entries: RangeEntry[] = [];
  private at = 0;
  private exhausted = false;

  constructor(
    store: KvStore,
    private readonly plan: ScanPlan,
    private readonly q: OutputQuery,
    private readonly budget: { left: number },
  ) {
    this.facts = needsFacts(q, plan.indexed);
    this.readSize = Math.min(q.pageSize + 1, MAX_RANGE_READ);
    this.reader = store.openRange({ prefix: plan.prefix, gte: plan.gte, lte: plan.lte, values: this.facts });
  }

  /** Moves to the next matching entry: at once when it is in memory, else the returned promise reads on. */
  advance(): Promise<void> | undefined {
    while (this.at < this.entries.length) {
      if (this.budget.left-- <= 0) {
        this.key = undefined;
        this.stoppedAt = this.entries[this.at]![0];
        return undefined;
      }
      const [key, value] = this.entries[this.at++]!;
      if (!this.facts || accepts(value, this.q, this.plan.indexed)) {
        this.key = key;
        return undefined;
      }
    }
    this.key = undefined;
    if (this.exhausted) return undefined;
    return this.refill().then(() => this.advance());
  }

  private async refill(): Promise<void> {
    this.entries = await this.reader.take(this.readSize);
    this.at = 0;
    if (this.entries.length < this.readSize) this.exhausted = true;
  }

  close(): Promise<void> {
    return this.reader.close();
  }
}
