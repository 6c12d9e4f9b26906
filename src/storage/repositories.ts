import { isCodecError } from "../codec/errors.js";
import { toHex } from "../codec/hex.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { Bucket, idKey, indexKey, indexOfKey } from "./buckets.js";
import { StorageErrorCode } from "./errors.js";
import type { KvStore } from "./kvStore.js";
import {
  decodeLedgerDiff,
  decodeMilestoneRecord,
  decodeOutputRecord,
  decodeTransactionBlock,
  decodeU32,
  type LedgerDiffRecord,
  type MilestoneRecord,
  type OutputRecord,
  type TransactionBlockRecord,
} from "./records.js";

/**
 * Typed reads of the buckets the read routes use (Lodestar's `db/repositories/`): a key in, the
 * decoded record out, so no caller builds a key or decodes a value by hand. The key layouts stay
 * in `buckets.ts`, the value layouts in `records.ts`. A stored value that does not decode is the
 * node's failure (`StorageErrorCode.CorruptValue`), never a client's bad input.
 */

/** One bucket keyed by an ID (`bucket ‖ id`) or a milestone index (`bucket ‖ u32 BE`). */
export class Repository<K extends Uint8Array | number, V> {
  /** The key of synchronous reads, rewritten per read (they cannot interleave). */
  private scratch: Uint8Array | undefined;

  constructor(
    private readonly store: KvStore,
    readonly bucket: Bucket,
    private readonly decodeValue: (bytes: Uint8Array) => V,
  ) {}

  key(k: K): Uint8Array {
    return typeof k === "number" ? indexKey(this.bucket, k) : idKey(this.bucket, k as Uint8Array);
  }

  async get(k: K): Promise<V | undefined> {
    const v = await this.store.get(this.key(k));
    return v && this.decode(v, k);
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

  async getMany(ks: readonly K[]): Promise<(V | undefined)[]> {
    const values = await this.store.getMany(ks.map((k) => this.key(k)));
    return values.map((v, i) => v && this.decode(v, ks[i]!));
  }

  async has(k: K): Promise<boolean> {
    return this.store.has(this.key(k));
  }

  /** Whether `k` is stored, with a synchronous point read. */
  hasSync(k: K): boolean {
    return this.store.getSync(this.key(k)) !== undefined;
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
    const prefix = Uint8Array.of(this.bucket);
    let first: number | undefined;
    let last: number | undefined;
    for await (const key of this.store.scanKeys({ prefix, limit: 1 })) first = indexOfKey(key);
    for await (const key of this.store.scanKeys({ prefix, limit: 1, reverse: true })) last = indexOfKey(key);
    this.lastRange = first === undefined || last === undefined ? undefined : { first, last };
    return this.lastRange;
  }

  private decode(bytes: Uint8Array, k: K): V {
    try {
      return this.decodeValue(bytes);
    } catch (e) {
      if (!isCodecError(e)) throw e;
      const what = typeof k === "number" ? k : toHex(k as Uint8Array);
      throw new LedgerNodeError(
        StorageErrorCode.CorruptValue,
        `the stored ${Bucket[this.bucket]} record of ${what} does not decode: ${e.message}`,
      );
    }
  }
}

/** The repositories of one store. */
export class Repositories {
  /** Output records by output ID: booking, spending, the proof of the ID. */
  readonly outputs: Repository<Uint8Array, OutputRecord>;
  /** Milestone records by index. */
  readonly milestones: Repository<number, MilestoneRecord>;
  /** Milestone indexes by milestone ID. */
  readonly milestoneIndexes: Repository<Uint8Array, number>;
  /** Ledger diffs by milestone index. */
  readonly ledgerDiffs: Repository<number, LedgerDiffRecord>;
  /** The block that included a transaction, by transaction ID. */
  readonly transactionBlocks: Repository<Uint8Array, TransactionBlockRecord>;

  constructor(store: KvStore) {
    this.outputs = new Repository(store, Bucket.Output, decodeOutputRecord);
    this.milestones = new Repository(store, Bucket.MilestoneByIndex, decodeMilestoneRecord);
    this.milestoneIndexes = new Repository(store, Bucket.MilestoneById, (v) => decodeU32(v, "milestoneById.index"));
    this.ledgerDiffs = new Repository(store, Bucket.LedgerDiff, decodeLedgerDiff);
    this.transactionBlocks = new Repository(store, Bucket.TransactionBlock, decodeTransactionBlock);
  }
}
