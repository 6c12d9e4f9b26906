import { ClassicLevel } from "classic-level";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { fullCollection } from "../util/memoryRelease.js";
import { StorageErrorCode } from "./errors.js";
import { type LevelStats, parseLevelStats } from "./levelStats.js";

/**
 * A small key-value controller over LevelDB (classic-level): binary keys and values, point
 * reads, prefix scans and atomic write batches. Every milestone's writes go through one
 * `WriteBatch`, which LevelDB applies atomically (all or nothing, also across a crash).
 */

export interface KvStoreOptions {
  /** Directory of the LevelDB database. */
  path: string;
  /** LevelDB block cache in bytes: table blocks as decompressed (the files are Snappy-compressed). */
  cacheSize: number;
  /**
   * Files LevelDB keeps open at most (its share of the open-file limit, node/descriptors.ts).
   * An open table file is mapped into memory, up to 1,000 of them on 64-bit, and every page a
   * read touched stays in the process's RSS until the file is closed: with LevelDB's default
   * of 1,000 the mapped pages grew with the database (454 MB of RSS at 1,000,000 blocks).
   */
  maxOpenFiles: number;
}

/**
 * 16 MiB of block cache and 128 open files: at most 118 mapped tables of 2 MiB (LevelDB keeps
 * 10 of the files for itself), so the database's share of RSS stays bounded whatever its size
 * (docs/performance.md, "Memory while growing"). A read in a table not open costs opening it:
 * its index and filter blocks, read from the OS page cache.
 */
export const defaultKvStoreOptions: Omit<KvStoreOptions, "path"> = { cacheSize: 16 * 1024 * 1024, maxOpenFiles: 128 };

type Db = ClassicLevel<Uint8Array, Uint8Array>;

/**
 * The first write the database refused (a full disk, an I/O error). LevelDB keeps refusing
 * writes after a failed one until it is reopened, and the node's memory then holds what its
 * disk does not, so the fault stands until the process restarts (docs/decisions.md, Threats).
 */
export interface WriteFault {
  /** LevelDB's reason, e.g. "IO error: …: No space left on device". */
  reason: string;
  /** When it happened (ms since the epoch). */
  since: number;
}

/** What a refused write means for the node and what the operator does about it, in one sentence. */
export function describeWriteFault(fault: WriteFault): string {
  return `the database refuses writes since ${new Date(fault.since).toISOString()} (${fault.reason}): the node takes no blocks and confirms no milestones, reads are still served; free disk space or fix the I/O error, then restart the node, which resumes from its last confirmed milestone`;
}

/** Where a failed write is reported: the store that owns the batch. */
interface FaultSink {
  writeFailed(e: unknown): void;
  /** A bulk batch of `bytes` was written. */
  bulkWritten(bytes: number): void;
  /** A write begins; the function answered says it is done (written or failed). */
  writeBegins(): () => void;
}

/**
 * classic-level hands out Buffers; callers get plain Uint8Array views of the same memory, so
 * `slice` copies (Buffer's does not) and deep equality with decoded IDs holds.
 */
function plain(b: Uint8Array): Uint8Array;
function plain(b: Uint8Array | undefined): Uint8Array | undefined;
function plain(b: Uint8Array | undefined): Uint8Array | undefined {
  return b === undefined ? undefined : new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}

/** Exclusive upper bound of all keys that start with `prefix`, or undefined if there is none (all 0xff). */
export function prefixEnd(prefix: Uint8Array): Uint8Array | undefined {
  const end = Uint8Array.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i]! < 0xff) {
      end[i]!++;
      return end.subarray(0, i + 1);
    }
  }
  return undefined;
}

export interface ScanOptions {
  /** Only keys starting with these bytes. */
  prefix: Uint8Array;
  /** Inclusive lower bound (must start with `prefix`). */
  gte?: Uint8Array;
  /** Inclusive upper bound (must start with `prefix`). */
  lte?: Uint8Array;
  reverse?: boolean;
  limit?: number;
}

/** The LevelDB range of a scan: the prefix's bounds narrowed by `gte`/`lte`. */
function levelRange(options: ScanOptions) {
  const range: { gte: Uint8Array; lt?: Uint8Array; lte?: Uint8Array; reverse: boolean; limit: number } = {
    gte: options.gte ?? options.prefix,
    reverse: options.reverse ?? false,
    limit: options.limit ?? -1,
  };
  if (options.lte) range.lte = options.lte;
  else {
    const end = prefixEnd(options.prefix);
    if (end) range.lt = end;
  }
  return range;
}

/**
 * Bytes bulk batches hand to LevelDB between two full collections. A written batch's native copy
 * is freed only when the garbage collector collects its object, and V8 does not hurry for memory
 * it cannot see: an import of 3,000 batches of 2,000 entries grew the process by 100 KB per
 * batch. A full collection every 64 MB keeps that bounded, for a few milliseconds each (a load
 * of 10,000,000 outputs writes some 3 GB).
 */
const BULK_COLLECT_BYTES = 64 * 1024 * 1024;
const collectWrittenBatches = fullCollection();

/**
 * Bytes of keys and values a bulk writer gathers in one batch before it writes it, twice the
 * memtable LevelDB fills before it writes a table (its `writeBufferSize`, 4 MiB). A batch that
 * size fills a memtable alone, so when a bulk load writes each bucket's keys in order in
 * batches of their own (the ledger of a snapshot import, the lists of an index rebuild), each
 * table LevelDB writes holds keys of one bucket, in a range no other table covers: it is placed
 * below level 0 and moved down the levels without being merged. Batches that mixed the buckets
 * made every table span the ranges between them, and at 10,000,000 outputs the compactions
 * rewrote the database about three times over (docs/performance.md, "Loading a large ledger").
 */
const BULK_BATCH_BYTES = 8 * 1024 * 1024;

/**
 * Keys and values of at most this many bytes are handed to the binding from buffers outside V8's
 * heap. V8 keeps a typed array of at most 64 bytes inside its heap, and the binding's read of
 * it through N-API moves it out first (a new backing store, a copy, the collector told): every
 * key the node builds is one such array. Copied instead into one buffer outside the heap, viewed
 * at each length (the binding copies what it is handed at once, so the buffer is reused by the
 * next operation), three puts of a snapshot output's took 1.2 µs instead of 2.0. This holds
 * while the database has no prewrite hook and no 'write' listener: with either, abstract-level
 * keeps each operation's key and value until the batch is written.
 */
const SMALL_BYTES = 64;
const smallKey = Buffer.allocUnsafeSlow(SMALL_BYTES);
const smallValue = Buffer.allocUnsafeSlow(SMALL_BYTES);
const smallKeyViews = Array.from({ length: SMALL_BYTES + 1 }, (_, n) => smallKey.subarray(0, n));
const smallValueViews = Array.from({ length: SMALL_BYTES + 1 }, (_, n) => smallValue.subarray(0, n));

/** `bytes`, or a view of its copy in `into` (outside V8's heap) when it is small. */
function outsideHeap(bytes: Uint8Array, into: Buffer, views: Buffer[]): Uint8Array {
  if (bytes.length > SMALL_BYTES) return bytes;
  into.set(bytes);
  return views[bytes.length]!;
}

/**
 * A batch of puts and deletes written atomically by `write()`. Built on classic-level's chained
 * batch, which hands each operation to the native batch at once: about 0.3 µs each, against
 * 2–3 µs for an array of operation objects (`db.batch(array)`, read property by property
 * by the binding), which took 29 % of a snapshot load's main thread. A bulk batch
 * (`KvStore.bulkBatch`, the thousands of an import or an index rebuild) counts its bytes for
 * the store's collection of written batches (BULK_COLLECT_BYTES).
 */
export class WriteBatch {
  private readonly chained: ReturnType<Db["batch"]>;
  private count = 0;
  /** Bytes of the keys and values of a bulk batch (0 for one that is not). */
  private bytes = 0;

  constructor(
    db: Db,
    private readonly sink: FaultSink,
    private readonly bulk = false,
    /** Writes a bulk batch is full at, before its bytes are (tests' small batches). */
    private readonly maxWrites = Number.POSITIVE_INFINITY,
  ) {
    this.chained = db.batch();
  }

  get size(): number {
    return this.count;
  }

  /**
   * Whether a bulk batch holds a batch's worth: BULK_BATCH_BYTES of keys and values, or the
   * writes it was made for (`KvStore.bulkBatch`). A batch that is not bulk is never full.
   */
  get full(): boolean {
    return this.bytes >= BULK_BATCH_BYTES || this.count >= this.maxWrites;
  }

  /** Copies the key and value into the native batch at once: the caller may reuse its buffers. */
  put(key: Uint8Array, value: Uint8Array): this {
    this.chained.put(outsideHeap(key, smallKey, smallKeyViews), outsideHeap(value, smallValue, smallValueViews));
    this.count++;
    if (this.bulk) this.bytes += key.length + value.length;
    return this;
  }

  del(key: Uint8Array): this {
    this.chained.del(outsideHeap(key, smallKey, smallKeyViews));
    this.count++;
    if (this.bulk) this.bytes += key.length;
    return this;
  }

  /** Lets the batch go unwritten (its native operations are freed, and the store forgets it). */
  async discard(): Promise<void> {
    await this.chained.close();
  }

  /**
   * Applies every operation at once. `sync` (the default) waits for the disk, so a confirmed
   * milestone survives a power cut; unconfirmed block intake may skip it (such a block can be
   * submitted again).
   */
  async write(options: { sync: boolean } = { sync: true }): Promise<void> {
    if (this.count === 0) return this.discard();
    const done = this.sink.writeBegins();
    try {
      // biome-ignore lint/suspicious/noExplicitAny: the `sync` option of classic-level is not in abstract-level's typing
      await this.chained.write({ sync: options.sync } as any);
    } catch (e) {
      this.sink.writeFailed(e);
      throw e;
    } finally {
      done();
    }
    if (this.bytes > 0) this.sink.bulkWritten(this.bytes);
  }
}

/** A key no bucket writes (every key begins with its bucket's byte, buckets.ts). */
const NO_KEY = Uint8Array.of(0xff);

/** A key and, when the range was opened with values, its value. */
export type RangeEntry = [key: Uint8Array, value: Uint8Array | undefined];

/** An open range of `KvStore.openRange`; close it when done (also after a failure). */
export class RangeReader {
  private ended = false;

  constructor(private readonly it: ReturnType<Db["iterator"]>) {}

  /** Up to `n` more entries in range order; fewer only when the range ends. */
  async take(n: number): Promise<RangeEntry[]> {
    const out: RangeEntry[] = [];
    // one native read answers at most about 16 KB (classic-level's highWaterMarkBytes)
    while (!this.ended && out.length < n) {
      const entries = (await this.it.nextv(n - out.length)) as [Uint8Array, Uint8Array | undefined][];
      if (entries.length === 0) this.ended = true;
      for (const [k, v] of entries) out.push([plain(k), plain(v ?? undefined)]);
    }
    return out;
  }

  async close(): Promise<void> {
    await this.it.close();
  }
}

export class KvStore implements FaultSink {
  /** The first failed write, if any (see WriteFault); nothing can be written from then on. */
  writeFault: WriteFault | undefined;
  /** Bytes of bulk batches written since the last full collection. */
  private bulkBytes = 0;
  /** Writes begun, and those of them not yet done (`quietWrites`). */
  private writesBegun = 0;
  private writesPending = 0;
  /** Called once, with the fault, when the first write fails. */
  onWriteFault: ((fault: WriteFault) => void) | undefined;
  private gather:
    | { keys: Uint8Array[]; waiters: ((v: Uint8Array | undefined) => void)[]; failers: ((e: unknown) => void)[] }
    | undefined;

  private constructor(private readonly db: Db) {}

  /** The directory of the database on disk (its size is a metric, api/metrics/databaseMetrics.ts). */
  get location(): string {
    return this.db.location;
  }

  static async open(options: KvStoreOptions): Promise<KvStore> {
    const db: Db = new ClassicLevel<Uint8Array, Uint8Array>(options.path, {
      keyEncoding: "view",
      valueEncoding: "view",
      cacheSize: options.cacheSize,
      maxOpenFiles: options.maxOpenFiles,
    });
    try {
      await db.open();
    } catch (e) {
      const cause = (e as { cause?: Error }).cause?.message ?? (e as Error).message;
      throw new LedgerNodeError(StorageErrorCode.OpenFailed, `cannot open database at ${options.path}: ${cause}`);
    }
    return new KvStore(db);
  }

  async get(key: Uint8Array): Promise<Uint8Array | undefined> {
    return plain((await this.db.get(key)) ?? undefined);
  }

  async getMany(keys: Uint8Array[]): Promise<(Uint8Array | undefined)[]> {
    if (keys.length === 0) return [];
    return (await this.db.getMany(keys)).map((v) => plain(v ?? undefined));
  }

  /**
   * A point read on the calling thread. LevelDB answers from its block cache or the OS page
   * cache in a few microseconds, several times less than the round trip of an async read
   * through the thread pool, so hot read routes use it; bulk and cold reads stay async.
   */
  getSync(key: Uint8Array): Uint8Array | undefined {
    return plain(this.db.getSync(key) ?? undefined);
  }

  async has(key: Uint8Array): Promise<boolean> {
    return (await this.db.get(key)) !== undefined;
  }

  /**
   * A point read gathered with the other reads of this turn of the event loop into one
   * `getMany` (a single read costs about as much as a hundred batched ones). For hot paths
   * where many independent requests each need one key.
   */
  getSoon(key: Uint8Array): Promise<Uint8Array | undefined> {
    if (!this.gather) {
      const keys: Uint8Array[] = [];
      const waiters: ((v: Uint8Array | undefined) => void)[] = [];
      const failers: ((e: unknown) => void)[] = [];
      this.gather = { keys, waiters, failers };
      setImmediate(() => {
        this.gather = undefined;
        this.getMany(keys).then(
          (values) => {
            for (let i = 0; i < values.length; i++) waiters[i]!(values[i]);
          },
          (e) => {
            for (const f of failers) f(e);
          },
        );
      });
    }
    const g = this.gather;
    g.keys.push(key);
    return new Promise((resolve, reject) => {
      g.waiters.push(resolve);
      g.failers.push(reject);
    });
  }

  async put(key: Uint8Array, value: Uint8Array): Promise<void> {
    const done = this.writeBegins();
    try {
      await this.db.put(key, value);
    } catch (e) {
      this.writeFailed(e);
      throw e;
    } finally {
      done();
    }
  }

  batch(): WriteBatch {
    return new WriteBatch(this.db, this);
  }

  /**
   * A batch for bulk writes (an import, an index rebuild: thousands of them), whose native
   * memory is collected every BULK_COLLECT_BYTES written (see `WriteBatch`).
   */
  bulkBatch(maxWrites = Number.POSITIVE_INFINITY): WriteBatch {
    return new WriteBatch(this.db, this, true, maxWrites);
  }

  /** FaultSink: a bulk batch was written; past BULK_COLLECT_BYTES since the last, a full collection frees them. */
  bulkWritten(bytes: number): void {
    this.bulkBytes += bytes;
    if (this.bulkBytes < BULK_COLLECT_BYTES) return;
    this.bulkBytes = 0;
    collectWrittenBatches?.();
  }

  /** FaultSink: counts the write begun and, until the answered function is called, pending. */
  writeBegins(): () => void {
    this.writesBegun++;
    this.writesPending++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.writesPending--;
    };
  }

  /**
   * The number of writes begun so far (batches, puts, range deletes), when none is under way;
   * undefined while one is. A reader that gets the same number before and after a read knows
   * that nothing was written meanwhile, and that what it read before still holds: a write lands
   * only between its beginning and its end (docs/decisions.md, "Reads between writes").
   */
  quietWrites(): number | undefined {
    return this.writesPending === 0 ? this.writesBegun : undefined;
  }

  /** Records the first failed write (a closed database is no fault of the disk). */
  writeFailed(e: unknown): void {
    if (this.writeFault || this.db.status !== "open") return;
    const err = e as { message?: string; cause?: { message?: string } };
    this.writeFault = { reason: err.cause?.message ?? err.message ?? String(e), since: Date.now() };
    this.onWriteFault?.(this.writeFault);
  }

  /** Entries in key order (or reverse) within the prefix and bounds. */
  async *scan(options: ScanOptions): AsyncGenerator<[Uint8Array, Uint8Array]> {
    for await (const [k, v] of this.db.iterator(levelRange(options))) yield [plain(k), plain(v)];
  }

  /**
   * A range read in bulk: entries come from LevelDB a page at a time (one native call per
   * page instead of one promise per entry), keys only unless `values` is set. For read paths
   * that need a known number of entries (a listing page); `scan` stays the simple way.
   */
  openRange(options: ScanOptions & { values?: boolean }): RangeReader {
    const values = options.values ?? true;
    return new RangeReader(this.db.iterator({ ...levelRange(options), keys: true, values }));
  }

  /**
   * Deletes every key within the prefix and bounds, in LevelDB's own loop (far faster than a
   * scan feeding a batch), not atomically: for data whose completeness a marker written after
   * it vouches for (an index rebuild).
   */
  async clearRange(options: ScanOptions): Promise<void> {
    const { gte, lt, lte } = levelRange(options);
    const done = this.writeBegins();
    try {
      await this.db.clear({ gte, ...(lt ? { lt } : {}), ...(lte ? { lte } : {}) });
    } catch (e) {
      this.writeFailed(e);
      throw e;
    } finally {
      done();
    }
  }

  /** Whether the database holds no key at all (a fresh data dir, or an import that cleared it). */
  async isEmpty(): Promise<boolean> {
    for await (const _ of this.scanKeys({ prefix: new Uint8Array(0), limit: 1 })) return false;
    return true;
  }

  /** Keys only, same ordering and bounds as `scan`. */
  async *scanKeys(options: ScanOptions): AsyncGenerator<Uint8Array> {
    for await (const key of this.db.keys(levelRange(options))) yield plain(key);
  }

  /** LevelDB's flushes and compactions since the database was opened, per level (levelStats.ts). */
  levelStats(): LevelStats[] {
    return parseLevelStats(this.db.getProperty("leveldb.stats"));
  }

  /**
   * Has LevelDB write what its memtable holds to a table now: a compaction of a range no table
   * covers (no key begins with 0xff) flushes the memtable first and finds nothing more to do. A
   * bulk load calls it before its sorted streams begin, so that the small writes before them do
   * not share their first table (BULK_BATCH_BYTES).
   */
  async flushMemtable(): Promise<void> {
    await this.db.compactRange(NO_KEY, NO_KEY);
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}
