import {
  addressConditionalKey,
  addressConditionalPrefix,
  addressUpdateKey,
  Bucket,
  childKey,
  idKey,
  milestoneBlockKey,
  putChildLinks,
  whiteFlagIndexOfKey,
} from "./buckets.js";
import type { KvStore, WriteBatch } from "./kvStore.js";
import {
  type AddressBalanceRecord,
  type AddressConditionalRecord,
  type ConditionalRole,
  decodeAddressBalance,
  decodeAddressConditional,
  decodeIndexState,
  decodeMilestoneBlock,
  encodeAddressConditional,
  encodeIndexState,
  encodeMilestoneBlock,
  type IndexStateRecord,
  MARKER_VALUE,
  type MilestoneBlockRecord,
} from "./records.js";
import { corrupt, decodeStored, Repository } from "./repository.js";

/**
 * The buckets whose keys hold more than one ID or index (child links, a milestone's blocks, the
 * address buckets of the explorer): their key layouts are built in `buckets.ts` and used only
 * here, their values decoded here (`records.ts`), so callers name IDs and indexes, never keys.
 */

/** Child: one link per (parent, child), written with the child. */
export class ChildLinks {
  constructor(private readonly store: KvStore) {}

  /** Adds a block's links, one per parent, to `batch`. */
  put(batch: WriteBatch, parentIds: readonly Uint8Array[], childId: Uint8Array): void {
    putChildLinks(batch, parentIds, childId);
  }

  /** Adds the deletion of a block's links, one per parent, to `batch`. */
  del(batch: WriteBatch, parentIds: readonly Uint8Array[], childId: Uint8Array): void {
    for (const p of parentIds) batch.del(childKey(p, childId));
  }

  /** Up to `limit` children of `parentId` in ID order, from `from` (inclusive) on; all without a limit. */
  async of(parentId: Uint8Array, opts: { from?: Uint8Array; limit?: number } = {}): Promise<Uint8Array[]> {
    const prefix = idKey(Bucket.Child, parentId);
    const gte = opts.from ? childKey(parentId, opts.from) : prefix;
    const out: Uint8Array[] = [];
    const range = { prefix, gte, ...(opts.limit !== undefined ? { limit: opts.limit } : {}) };
    for await (const key of this.store.scanKeys(range)) out.push(key.slice(33));
    return out;
  }
}

/** One entry of a milestone's block listing (MilestoneBlock). */
export interface MilestoneBlockEntry extends MilestoneBlockRecord {
  whiteFlagIndex: number;
}

/** MilestoneBlock: the blocks each milestone referenced, by (milestone index, white-flag index). */
export class MilestoneBlocks {
  constructor(private readonly store: KvStore) {}

  /** Adds one referenced block of milestone `index` to `batch`. */
  put(batch: WriteBatch, index: number, whiteFlagIndex: number, record: MilestoneBlockRecord): void {
    batch.put(milestoneBlockKey(index, whiteFlagIndex), encodeMilestoneBlock(record));
  }

  /** Adds the deletion of milestone `index`'s whole listing to `batch` (pruning, with its blocks). */
  async delAll(batch: WriteBatch, index: number): Promise<void> {
    const prefix = milestoneBlockKey(index, 0).subarray(0, 5);
    for await (const key of this.store.scanKeys({ prefix })) batch.del(key);
  }

  /**
   * Up to `limit` blocks referenced by milestone `index` in white-flag order (or reversed), from
   * white-flag index `from` (inclusive) on.
   */
  async list(index: number, opts: { from?: number; reverse: boolean; limit: number }): Promise<MilestoneBlockEntry[]> {
    const range = opts.reverse
      ? { lte: milestoneBlockKey(index, opts.from ?? 0xffffffff) }
      : { gte: milestoneBlockKey(index, opts.from ?? 0) };
    const prefix = milestoneBlockKey(index, 0).subarray(0, 5);
    const out: MilestoneBlockEntry[] = [];
    for await (const [key, value] of this.store.scan({ prefix, ...range, reverse: opts.reverse, limit: opts.limit })) {
      const whiteFlagIndex = whiteFlagIndexOfKey(key);
      out.push({
        ...decodeStored(value, decodeMilestoneBlock, `MilestoneBlock record ${index}/${whiteFlagIndex}`),
        whiteFlagIndex,
      });
    }
    return out;
  }
}

/** One ledger update of an address (AddressUpdate). */
export interface AddressUpdateEntry {
  milestoneIndex: number;
  outputId: Uint8Array;
  spent: boolean;
}

/** One AddressConditional entry: its key's role, expiration (0: none) and output ID, and its record. */
export interface AddressConditionalEntry extends AddressConditionalRecord {
  role: ConditionalRole;
  expiration: number;
  outputId: Uint8Array;
}

/** The greatest output ID: the last key of one expiration. */
const LAST_OUTPUT_ID = new Uint8Array(34).fill(0xff);

/** The explorer's address buckets (indexer/addressLedger.ts): balances, conditional entries, updates. */
export class AddressBuckets {
  private static readonly STATE_KEY = Uint8Array.of(Bucket.AddressBalanceState);
  /** AddressBalance: total and unspent output count by owner address[33]. */
  readonly balances: Repository<Uint8Array, AddressBalanceRecord>;

  constructor(private readonly store: KvStore) {
    this.balances = new Repository(store, Bucket.AddressBalance, decodeAddressBalance);
  }

  /** The AddressBalanceState marker: the ledger the balances reflect (undefined: none, or an older layout). */
  async state(): Promise<IndexStateRecord | undefined> {
    const v = await this.store.get(AddressBuckets.STATE_KEY);
    return v && decodeStored(v, (b) => decodeIndexState(b, "addressBalanceState"), "AddressBalanceState record");
  }

  putState(batch: WriteBatch, state: IndexStateRecord): void {
    batch.put(AddressBuckets.STATE_KEY, encodeIndexState(state));
  }

  /** Adds one conditional entry of `address` (an unspent output it owns or is the expiration return address of) to `batch`. */
  putConditional(batch: WriteBatch, address: Uint8Array, e: AddressConditionalEntry): void {
    batch.put(addressConditionalKey(address, e.role, e.expiration, e.outputId), encodeAddressConditional(e));
  }

  delConditional(
    batch: WriteBatch,
    address: Uint8Array,
    e: Omit<AddressConditionalEntry, keyof AddressConditionalRecord>,
  ): void {
    batch.del(addressConditionalKey(address, e.role, e.expiration, e.outputId));
  }

  /**
   * Up to `limit` conditional entries of `address` in `role`, by expiration then output
   * ID; with `expiredBy`, only those whose expiration is at or before it (a range of the keys).
   */
  async conditionals(
    address: Uint8Array,
    role: ConditionalRole,
    opts: { limit: number; expiredBy?: number },
  ): Promise<AddressConditionalEntry[]> {
    const prefix = addressConditionalPrefix(address, role);
    const range =
      opts.expiredBy === undefined ? {} : { lte: addressConditionalKey(address, role, opts.expiredBy, LAST_OUTPUT_ID) };
    const out: AddressConditionalEntry[] = [];
    for await (const [key, value] of this.store.scan({ prefix, ...range, limit: opts.limit })) {
      if (key.length !== 73) throw corrupt("an AddressConditional key does not decode");
      out.push({
        role,
        expiration: new DataView(key.buffer, key.byteOffset + 35, 4).getUint32(0, false),
        outputId: key.slice(39),
        ...decodeStored(value, decodeAddressConditional, "AddressConditional record"),
      });
    }
    return out;
  }

  delState(batch: WriteBatch): void {
    batch.del(AddressBuckets.STATE_KEY);
  }

  /**
   * Deletes every balance and conditional entry in LevelDB's own loop, not atomically: only with
   * the marker already gone (a rebuild, indexer/addressLoad.ts).
   */
  async clearBalances(): Promise<void> {
    for (const bucket of [Bucket.AddressBalance, Bucket.AddressConditional])
      await this.store.clearRange({ prefix: Uint8Array.of(bucket) });
  }

  /** Adds one ledger update of `address` to `batch`. */
  putUpdate(batch: WriteBatch, address: Uint8Array, u: AddressUpdateEntry): void {
    batch.put(addressUpdateKey(address, u.milestoneIndex, u.outputId, u.spent), MARKER_VALUE);
  }

  /**
   * Up to `limit` ledger updates of `address` in (milestone index, output ID, spent) order or
   * reversed, from `from` (inclusive) on.
   */
  async updates(
    address: Uint8Array,
    opts: { from?: AddressUpdateEntry; reverse: boolean; limit: number },
  ): Promise<AddressUpdateEntry[]> {
    const prefix = idKey(Bucket.AddressUpdate, address);
    const bound = opts.from
      ? addressUpdateKey(address, opts.from.milestoneIndex, opts.from.outputId, opts.from.spent)
      : undefined;
    const range = bound ? (opts.reverse ? { lte: bound } : { gte: bound }) : {};
    const out: AddressUpdateEntry[] = [];
    for await (const key of this.store.scanKeys({ prefix, ...range, reverse: opts.reverse, limit: opts.limit })) {
      if (key.length !== 73) throw corrupt("an AddressUpdate key does not decode");
      out.push({
        milestoneIndex: new DataView(key.buffer, key.byteOffset + 34, 4).getUint32(0, false),
        outputId: key.slice(38, 72),
        spent: key[72] === 1,
      });
    }
    return out;
  }
}
