import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeOutput } from "../codec/outputs/output.js";
import { type KvStore, type OutputRecord, Repositories, type WriteBatch } from "../storage/index.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { IndexerErrorCode } from "./errors.js";
import { ExternalSort } from "./externalSort.js";
import type { IndexableOutput } from "./facts.js";
import { ListWriter } from "./fieldLists.js";
import { encodeState, indexForms } from "./indexWrites.js";
import { POSITION_LENGTH } from "./keys.js";

/** Unspent outputs (and sort entries) a rebuild reads at a time. */
const REBUILD_READ = 1000;

export interface RebuildOptions {
  /** The directory the field list entries are sorted in (its own; default: one in the system's temporary directory). */
  sortDir?: string;
  /** Field list entries sorted in memory at a time (default 200,000: some 40 MB of heap). */
  sortRunEntries?: number;
  /** Writes per batch of a rebuild at most; by default a batch holds BULK_BATCH_BYTES of keys and values. */
  rebuildBatchWrites?: number;
  /** Called once each batch of a rebuild is written, with how many are (a failure thrown here fails the rebuild). */
  onRebuildBatch?: (written: number) => void | Promise<void>;
}

/**
 * The batches of a rebuild: one is filled while the one before is written (reading and
 * decoding overlap LevelDB's work), and batches land in order, one at a time. A batch's
 * operations sit in native memory until it is written, so their size (BULK_BATCH_BYTES) bounds
 * the rebuild's memory whatever the size of the ledger.
 */
export class RebuildBatches {
  current: WriteBatch;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: KvStore,
    private readonly options: RebuildOptions,
    /** Batches written so far, shared with the siblings (`onRebuildBatch` counts them all). */
    private readonly count = { written: 0 },
  ) {
    this.current = store.bulkBatch(options.rebuildBatchWrites);
  }

  /** Batches of their own for the keys of another bucket, written in key order too (BULK_BATCH_BYTES). */
  sibling(): RebuildBatches {
    return new RebuildBatches(this.store, this.options, this.count);
  }

  /** Whether the current batch holds a batch's worth of writes (then `flush` it). */
  get full(): boolean {
    return this.current.full;
  }

  /** Waits for the batch being written, then starts writing the current one. */
  async flush(): Promise<void> {
    await this.writing;
    if (this.current.size === 0) return;
    const batch = this.current;
    this.current = this.store.bulkBatch(this.options.rebuildBatchWrites);
    this.writing = batch.write({ sync: false }).then(() => this.options.onRebuildBatch?.(++this.count.written));
    // a failed write is reported by the next flush or drain
    this.writing.catch(() => {});
  }

  /** Waits for the last batch written; the batches are done with (the current one, empty, let go). */
  async drain(): Promise<void> {
    await this.writing;
    await this.current.discard();
  }
}

/**
 * Rebuilds the indexes of the unspent outputs at `ledgerIndex` (the database's ledger, which
 * does not move meanwhile: see `Indexer.sync` and `Indexer.writeMilestone`), in batches of bounded size, so
 * that memory does not grow with the ledger (docs/performance.md, "Loading a large ledger"):
 * 1. the marker is deleted, synced: from here until step 5 a crash or a failure leaves no
 *    marker, reads answer NotReady, and the next start (or sync) rebuilds again;
 * 2. every index entry is deleted (with the sort entries an older version left: IndexerSort);
 * 3. one pass over the unspent outputs writes the listing and chain entries, and hands each
 *    field list entry (list ‖ position → facts) to a sort outside the database, in files of the
 *    sort's directory (`ExternalSort`);
 * 4. the sorted entries come list after list, each in position order, and the lists are written
 *    whole from them a chunk at a time (`ListWriter`); the sort's files are removed;
 * 5. the marker naming `ledgerIndex` is written last, synced: LevelDB's log lands in order,
 *    so every batch before it is on disk once it is.
 */
export async function rebuildIndexes(store: KvStore, ledgerIndex: number, options: RebuildOptions): Promise<void> {
  const db = Repositories.of(store);
  const first = store.batch();
  db.indexer.delState(first);
  await first.write({ sync: true });
  await db.indexer.clear();
  const out = new RebuildBatches(store, options);
  const sort = new ExternalSort(sortDirOf(options), options.sortRunEntries);

  try {
    await passOverLedger(db, out, (batch, outputId, record) =>
      addLoadEntries(batch, sort, {
        outputId,
        output: decodeOutput(record.outputBytes),
        bookedIndex: record.bookedIndex,
        bookedTimestamp: record.bookedTimestamp,
      }),
    );
    await writeSortedLists(store, out, sort, ledgerIndex);
  } finally {
    await sort.close();
  }
}

/**
 * Step 3 of a rebuild: each unspent output handed to `add` with the batch it writes into, each
 * batch written as it fills, and the last one.
 */
export async function passOverLedger(
  db: Repositories,
  out: RebuildBatches,
  add: (batch: WriteBatch, outputId: Uint8Array, record: OutputRecord) => void,
): Promise<void> {
  for await (const { outputId, record } of unspentRecords(db)) {
    add(out.current, outputId, record);
    if (out.full) await out.flush();
  }
  await out.flush();
}

/**
 * Every unspent output of the database with its record, read REBUILD_READ at a time (a
 * rebuild's one pass over the ledger; the ledger must not move meanwhile).
 */
export async function* unspentRecords(
  db: Repositories,
): AsyncGenerator<{ outputId: Uint8Array; record: OutputRecord }> {
  let ids: Uint8Array[] = [];
  const read = async () => {
    const records = await db.outputs.getMany(ids);
    const out = records.map((record, i) => {
      if (!record) throw new LedgerNodeError(IndexerErrorCode.Corrupt, "an unspent output has no output record");
      return { outputId: ids[i]!, record };
    });
    ids = [];
    return out;
  };
  for await (const id of db.unspent.keys()) {
    ids.push(id);
    if (ids.length === REBUILD_READ) yield* await read();
  }
  yield* await read();
}

/**
 * Steps 4 and 5 of a rebuild (or of a bulk load, `IndexerLoad`): the lists written from the
 * sorted entries, then the marker naming `ledgerIndex`, synced, once every batch before it is.
 */
async function writeSortedLists(
  store: KvStore,
  out: RebuildBatches,
  sort: ExternalSort,
  ledgerIndex: number,
): Promise<void> {
  // the chunks and the directories in batches of their own, each bucket's keys in order
  // (BULK_BATCH_BYTES), in tables apart from the writes before them
  await store.flushMemtable();
  const dirs = out.sibling();
  const lists = new ListWriter(
    () => out.current,
    () => dirs.current,
  );
  for await (const chunk of sort.sorted()) {
    for (const [key, facts] of chunk) {
      // list ‖ position: the position is the key's last bytes
      const at = key.length - POSITION_LENGTH;
      lists.add(key.subarray(0, at), { position: key.subarray(at), facts });
      if (out.full) await out.flush();
      if (dirs.full) await dirs.flush();
    }
  }
  lists.end();
  await out.flush();
  await dirs.flush();
  await out.drain();
  await dirs.drain();

  const last = store.batch();
  Repositories.of(store).indexer.putState(last, encodeState(ledgerIndex));
  await last.write({ sync: true });
}

/** Step 3 for one unspent output: its listing and chain entries, and its field list entries to sort. */
function addLoadEntries(batch: WriteBatch, sort: ExternalSort, o: IndexableOutput): void {
  const forms = indexForms(o);
  for (const [key, value] of forms.entries) batch.put(key, value);
  for (const { list, entry } of forms.lists) sort.add([list, entry.position], entry.facts);
}

let sortDirs = 0;

/** The sort's directory: the options', or one of its own in the system's temporary directory. */
function sortDirOf(options: RebuildOptions): string {
  return options.sortDir ?? join(tmpdir(), `ledger-node-index-sort-${process.pid}-${Date.now()}-${sortDirs++}`);
}

/**
 * The indexes of a ledger loaded in bulk into an empty database (a snapshot import), written
 * with it: each unspent output's entries of step 3 go into the batch its output goes in, as it is
 * streamed (`add`: nothing is read back), and `finish`, once the load is complete, does steps 4
 * and 5. A load that changed outputs after streaming them (a rollback, a delta) is left to the
 * indexer's own rebuild, which deletes what `add` wrote. A crash before `finish` wrote the
 * marker leaves none, so the next start rebuilds.
 */
export class IndexerLoad {
  private readonly sort: ExternalSort;
  private readonly out: RebuildBatches;

  constructor(
    private readonly store: KvStore,
    options: RebuildOptions = {},
  ) {
    this.sort = new ExternalSort(sortDirOf(options), options.sortRunEntries);
    this.out = new RebuildBatches(store, options);
  }

  /** Step 3 for one unspent output the load writes (decoded once for every load: node/openDatabase.ts). */
  add(batch: WriteBatch, o: IndexableOutput): void {
    addLoadEntries(batch, this.sort, o);
  }

  /** Steps 4 and 5, at the loaded ledger's index. */
  async finish(ledgerIndex: number): Promise<void> {
    await writeSortedLists(this.store, this.out, this.sort, ledgerIndex);
  }

  /** Removes what the sort wrote (after `finish`, or instead of it). */
  close(): Promise<void> {
    return this.sort.close();
  }
}
