import { isCodecError } from "../codec/errors.js";
import { toHex } from "../codec/hex.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { Bucket, bucketPrefix, idKey, indexKey, indexOfKey } from "./buckets.js";
import { StorageErrorCode } from "./errors.js";
import type { KvStore, WriteBatch } from "./kvStore.js";
import { MARKER_VALUE } from "./records.js";

/**
 * One bucket's reads and writes (Lodestar's `db/repositories/`): an ID or index in, the decoded
 * record out, so no caller builds a key or decodes a value by hand. The key layouts stay in
 * `buckets.ts`, the value layouts in `records.ts`. A stored value that does not decode is the
 * node's failure (`StorageErrorCode.CorruptValue`), never a client's bad input.
 */

/** `decode(bytes)`, a codec error becoming the node's own (CorruptValue, naming `what`). */
export function decodeStored<V>(bytes: Uint8Array, decode: (bytes: Uint8Array) => V, what: string): V {
  try {
    return decode(bytes);
  } catch (e) {
    if (!isCodecError(e)) throw e;
    throw new LedgerNodeError(StorageErrorCode.CorruptValue, `the stored ${what} does not decode: ${e.message}`);
  }
}

/** A stored key or value that does not have its bucket's layout. */
export function corrupt(message: string): LedgerNodeError<StorageErrorCode> {
  return new LedgerNodeError(StorageErrorCode.CorruptValue, message);
}

/** Options of a scan of one bucket (see `KvStore.scan`): in key order, or reversed, at most `limit`. */
export interface BucketScanOptions<K> {
  /** Inclusive lower bound. */
  gte?: K;
  /** Inclusive upper bound. */
  lte?: K;
  reverse?: boolean;
  limit?: number;
}

/**
 * One bucket keyed by an ID (`bucket ‖ id`) or a milestone index (`bucket ‖ u32 BE`): its reads
 * (decoded through `decodeValue`) and its writes into a batch (values encoded by `records.ts`).
 */
export class Repository<K extends Uint8Array | number, V> {
  /** The key of synchronous reads, rewritten per read (they cannot interleave). */
  private scratch: Uint8Array | undefined;
  private readonly prefix: Uint8Array;

  constructor(
    private readonly store: KvStore,
    readonly bucket: Bucket,
    private readonly decodeValue: (bytes: Uint8Array) => V,
    /** What the keys name after the bucket byte: an ID, or a milestone index (u32 BE). */
    private readonly keyedBy: "id" | "index" = "id",
  ) {
    this.prefix = bucketPrefix(bucket);
  }

  key(k: K): Uint8Array {
    return typeof k === "number" ? indexKey(this.bucket, k) : idKey(this.bucket, k as Uint8Array);
  }

  /** The ID or index a key of this bucket names. */
  private keyOf(key: Uint8Array): K {
    return (this.keyedBy === "index" ? indexOfKey(key) : key.slice(1)) as K;
  }

  async get(k: K): Promise<V | undefined> {
    const v = await this.store.get(this.key(k));
    return v && this.decode(v, k);
  }

  /** The stored value as its bytes, undecoded (a record rewritten in place, block bytes). */
  getBytes(k: K): Promise<Uint8Array | undefined> {
    return this.store.get(this.key(k));
  }

  /** A point read on the calling thread (see `KvStore.getSync`), through a scratch key. */
  getSync(k: K): V | undefined {
    let key: Uint8Array;
    if (typeof k === "number") key = indexKey(this.bucket, k);
    else {
      const id = k as Uint8Array;
      if (this.scratch?.length !== id.length + 1) this.scratch = idKey(this.bucket, id);
      else this.scratch.set(id, 1);
      key = this.scratch;
    }
    const v = this.store.getSync(key);
    return v && this.decode(v, k);
  }

  /** A point read gathered with the other reads of this turn of the event loop (see `KvStore.getSoon`). */
  async getSoon(k: K): Promise<V | undefined> {
    const v = await this.store.getSoon(this.key(k));
    return v && this.decode(v, k);
  }

  async getMany(ks: readonly K[]): Promise<(V | undefined)[]> {
    const values = await this.store.getMany(ks.map((k) => this.key(k)));
    return values.map((v, i) => v && this.decode(v, ks[i]!));
  }

  /** The stored values as their bytes, undecoded. */
  getManyBytes(ks: readonly K[]): Promise<(Uint8Array | undefined)[]> {
    return this.store.getMany(ks.map((k) => this.key(k)));
  }

  async has(k: K): Promise<boolean> {
    return this.store.has(this.key(k));
  }

  /** Whether `k` is stored, with a synchronous point read. */
  hasSync(k: K): boolean {
    return this.store.getSync(this.key(k)) !== undefined;
  }

  /** Which of `ks` are stored, in one bulk read. */
  async hasMany(ks: readonly K[]): Promise<boolean[]> {
    return (await this.store.getMany(ks.map((k) => this.key(k)))).map((v) => v !== undefined);
  }

  /** Adds the write of `value` (its bytes, encoded by `records.ts`) under `k` to `batch`. */
  put(batch: WriteBatch, k: K, value: Uint8Array): void {
    batch.put(this.key(k), value);
  }

  /** Adds the deletion of `k` to `batch`. */
  del(batch: WriteBatch, k: K): void {
    batch.del(this.key(k));
  }

  /** Adds the deletion of every entry of the bucket to `batch` (a rebuild). */
  async clear(batch: WriteBatch): Promise<void> {
    for await (const key of this.store.scanKeys({ prefix: this.prefix })) batch.del(key);
  }

  private range(opts: BucketScanOptions<K>) {
    return {
      prefix: this.prefix,
      ...(opts.gte !== undefined ? { gte: this.key(opts.gte) } : {}),
      ...(opts.lte !== undefined ? { lte: this.key(opts.lte) } : {}),
      ...(opts.reverse ? { reverse: true } : {}),
      ...(opts.limit !== undefined ? { limit: opts.limit } : {}),
    };
  }

  /** The IDs or indexes stored, in key order (or reversed). */
  async *keys(opts: BucketScanOptions<K> = {}): AsyncGenerator<K> {
    for await (const key of this.store.scanKeys(this.range(opts))) yield this.keyOf(key);
  }

  /** The entries stored, decoded, in key order (or reversed). */
  async *entries(opts: BucketScanOptions<K> = {}): AsyncGenerator<[K, V]> {
    for await (const [key, value] of this.store.scan(this.range(opts))) {
      const k = this.keyOf(key);
      yield [k, this.decode(value, k)];
    }
  }

  /** The range `indexRange` last answered with: the next call checks it with point reads. */
  private lastRange: { first: number; last: number } | undefined;

  /**
   * Lowest and highest index stored in a bucket keyed by milestone index that has no gaps (the
   * milestones, between the pruning index and the ledger index): the last answer is checked
   * with four point reads, and the two scans run only when it moved.
   */
  async indexRange(this: Repository<number, V>): Promise<{ first: number; last: number } | undefined> {
    const stored = (index: number) => index >= 0 && index <= 0xffffffff && this.hasSync(index);
    const hint = this.lastRange;
    if (hint) {
      const { first, last } = hint;
      if (stored(first) && !stored(first - 1)) {
        if (stored(last) && !stored(last + 1)) return hint;
        // the usual move: new milestones on top
        if (stored(last + 1) && !stored(last + 2)) {
          this.lastRange = { first, last: last + 1 };
          return this.lastRange;
        }
      }
    }
    const prefix = this.prefix;
    let first: number | undefined;
    let last: number | undefined;
    for await (const key of this.store.scanKeys({ prefix, limit: 1 })) first = indexOfKey(key);
    for await (const key of this.store.scanKeys({ prefix, limit: 1, reverse: true })) last = indexOfKey(key);
    this.lastRange = first === undefined || last === undefined ? undefined : { first, last };
    return this.lastRange;
  }

  /** The lowest index stored in a bucket keyed by milestone index, if any. */
  async firstIndex(this: Repository<number, V>): Promise<number | undefined> {
    for await (const key of this.store.scanKeys({ prefix: this.prefix, limit: 1 })) return indexOfKey(key);
    return undefined;
  }

  private decode(bytes: Uint8Array, k: K): V {
    try {
      return this.decodeValue(bytes);
    } catch (e) {
      if (!isCodecError(e)) throw e;
      const what = typeof k === "number" ? k : toHex(k as Uint8Array);
      throw corrupt(`the stored ${Bucket[this.bucket]} record of ${what} does not decode: ${e.message}`);
    }
  }
}

/** A bucket of markers keyed by ID, whose key alone says it all (Unspent, Unreferenced). */
export class KeySet extends Repository<Uint8Array, true> {
  constructor(store: KvStore, bucket: Bucket) {
    super(store, bucket, () => true);
  }

  /** Adds the marker of `id` to `batch`. */
  add(batch: WriteBatch, id: Uint8Array): void {
    batch.put(this.key(id), MARKER_VALUE);
  }
}
