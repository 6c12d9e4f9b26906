import { serializeAddressBytes } from "../codec/address.js";
import { compareBytes, toHex } from "../codec/hex.js";
import { decodeOutput } from "../codec/outputs/output.js";
import { ReadStream } from "../codec/readStream.js";
import { type Address, type Output, OutputType, UnlockConditionType } from "../codec/types.js";
import { WriteStream } from "../codec/writeStream.js";
import type { LedgerOutput, WhiteFlagResult } from "../ledger/whiteFlag.js";
import {
  Bucket,
  decodeMilestoneRecord,
  decodeOutputRecord,
  EMPTY_VALUE,
  idKey,
  indexKey,
  type KvStore,
  type WriteBatch,
} from "../storage/index.js";
import type { LedgerIndex, MilestoneInfo } from "../tangle/events.js";
import { readLedgerIndex } from "../tangle/tangle.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { IndexerErrorCode } from "./errors.js";

/**
 * Per-address data for the explorer (Chronicle's balance, ledger updates, richest addresses and
 * token distribution), kept in each milestone's batch (a `LedgerIndex` attached to the node's
 * events):
 *
 * - AddressBalance: each owner address's total over its unspent outputs (created adds, consumed
 *   subtracts) and AddressConditional: its unspent outputs with a timelock or expiration, so the
 *   available balance is decided at read time against the latest milestone's timestamp. When
 *   AddressBalanceState does not name the previous ledger index (first milestone after
 *   attaching, a milestone that slipped past), both are rebuilt from the Unspent and Output
 *   buckets inside the milestone's batch; until then reads compute the same answer from those
 *   buckets directly, so answers always match the ledger index they name.
 * - AddressUpdate: the outputs each address gained or lost per milestone.
 *
 * The owner of an output is the address of its address unlock condition (basic, NFT), its state
 * controller (alias) or its immutable alias (foundry); treasury outputs have none.
 */

const ADDRESS_LEDGER_VERSION = 1;
const STATE_KEY = Uint8Array.of(Bucket.AddressBalanceState);
const READ_ATTEMPTS = 5;

/** The owner address of an output; undefined for a treasury output. */
export function ownerAddress(output: Output): Address | undefined {
  if (output.type === OutputType.Treasury) return undefined;
  const want =
    output.type === OutputType.Alias
      ? UnlockConditionType.StateControllerAddress
      : output.type === OutputType.Foundry
        ? UnlockConditionType.ImmutableAliasAddress
        : UnlockConditionType.Address;
  for (const uc of output.unlockConditions) {
    if (uc.type === want && "address" in uc) return uc.address;
  }
  return undefined;
}

/** An unspent output whose availability depends on time (0: no such condition). */
export interface ConditionalOutput {
  outputId: Uint8Array;
  amount: bigint;
  timelock: number;
  expiration: number;
}

export interface AddressEntry {
  /** 33 serialized address bytes. */
  address: Uint8Array;
  total: bigint;
  count: number;
  conditional: ConditionalOutput[];
}

function conditionalOf(outputId: Uint8Array, output: Output): ConditionalOutput | undefined {
  if (output.type === OutputType.Treasury) return undefined;
  let timelock = 0;
  let expiration = 0;
  for (const uc of output.unlockConditions) {
    if (uc.type === UnlockConditionType.Timelock) timelock = uc.unixTime;
    if (uc.type === UnlockConditionType.Expiration) expiration = uc.unixTime;
  }
  return timelock || expiration ? { outputId, amount: output.amount, timelock, expiration } : undefined;
}

function balanceKey(address: Uint8Array): Uint8Array {
  return idKey(Bucket.AddressBalance, address);
}

function conditionalKey(address: Uint8Array, outputId: Uint8Array): Uint8Array {
  const key = new Uint8Array(1 + 33 + 34);
  key[0] = Bucket.AddressConditional;
  key.set(address, 1);
  key.set(outputId, 34);
  return key;
}

/** `AddressUpdate ‖ address[33] ‖ milestoneIndex u32 BE ‖ outputId[34] ‖ spent u8`. */
export function addressUpdateKey(
  address: Uint8Array,
  milestoneIndex: number,
  outputId: Uint8Array,
  spent: boolean,
): Uint8Array {
  const key = new Uint8Array(1 + 33 + 4 + 34 + 1);
  key[0] = Bucket.AddressUpdate;
  key.set(address, 1);
  new DataView(key.buffer).setUint32(34, milestoneIndex, false);
  key.set(outputId, 38);
  key[72] = spent ? 1 : 0;
  return key;
}

const encodeBalance = (total: bigint, count: number) => new WriteStream(12).u64(total).u32(count).finish();

function decodeBalance(bytes: Uint8Array): { total: bigint; count: number } {
  const r = new ReadStream(bytes);
  const v = { total: r.u64("addressBalance.total"), count: r.u32("addressBalance.count") };
  r.expectEnd("addressBalance");
  return v;
}

const encodeConditional = (c: ConditionalOutput) =>
  new WriteStream(16).u64(c.amount).u32(c.timelock).u32(c.expiration).finish();

function decodeConditional(outputId: Uint8Array, bytes: Uint8Array): ConditionalOutput {
  const r = new ReadStream(bytes);
  const c = {
    outputId,
    amount: r.u64("addressConditional.amount"),
    timelock: r.u32("addressConditional.timelock"),
    expiration: r.u32("addressConditional.expiration"),
  };
  r.expectEnd("addressConditional");
  return c;
}

async function readState(store: KvStore): Promise<number | undefined> {
  const v = await store.get(STATE_KEY);
  if (!v || v.length !== 8) return undefined;
  const r = new ReadStream(v);
  const version = r.u32("addressBalanceState.version");
  const ledgerIndex = r.u32("addressBalanceState.ledgerIndex");
  return version === ADDRESS_LEDGER_VERSION ? ledgerIndex : undefined;
}

/** Every owner address of the unspent ledger as the database holds it now, from Unspent and Output. */
export async function scanLedgerAddresses(store: KvStore): Promise<Map<string, AddressEntry>> {
  const out = new Map<string, AddressEntry>();
  let ids: Uint8Array[] = [];
  const flush = async () => {
    const records = await store.getMany(ids.map((id) => idKey(Bucket.Output, id)));
    records.forEach((rec, i) => {
      if (!rec) throw new LedgerNodeError(IndexerErrorCode.Corrupt, "an unspent output has no output record");
      addOutput(out, ids[i]!, decodeOutput(decodeOutputRecord(rec).outputBytes));
    });
    ids = [];
  };
  for await (const key of store.scanKeys({ prefix: Uint8Array.of(Bucket.Unspent) })) {
    ids.push(key.slice(1));
    if (ids.length === 1000) await flush();
  }
  await flush();
  return out;
}

function addOutput(table: Map<string, AddressEntry>, outputId: Uint8Array, output: Output): void {
  const owner = ownerAddress(output);
  if (!owner) return;
  const address = serializeAddressBytes(owner);
  const hex = toHex(address);
  let e = table.get(hex);
  if (!e) {
    e = { address, total: 0n, count: 0, conditional: [] };
    table.set(hex, e);
  }
  e.total += output.amount;
  e.count += 1;
  const c = conditionalOf(outputId, output);
  if (c) e.conditional.push(c);
}

/** Adds the address writes of one milestone to its batch. */
export async function addAddressLedgerWrites(
  store: KvStore,
  batch: WriteBatch,
  result: WhiteFlagResult,
  milestone: MilestoneInfo,
): Promise<void> {
  const update = (o: LedgerOutput, spent: boolean) => {
    const owner = ownerAddress(o.output);
    if (owner)
      batch.put(addressUpdateKey(serializeAddressBytes(owner), milestone.index, o.outputId, spent), EMPTY_VALUE);
  };
  for (const o of result.created) update(o, false);
  for (const s of result.consumed) update(s.output, true);
  for (const s of result.createdAndConsumed) {
    update(s.output, false);
    update(s.output, true);
  }

  const base = milestone.index - 1;
  let table: Map<string, { address: Uint8Array; total: bigint; count: number }>;
  if ((await readState(store)) === base) {
    table = new Map();
    const touched = new Map<string, Uint8Array>();
    for (const o of [...result.created, ...result.consumed.map((s) => s.output)]) {
      const owner = ownerAddress(o.output);
      if (owner) touched.set(toHex(serializeAddressBytes(owner)), serializeAddressBytes(owner));
    }
    const addresses = [...touched.values()];
    const values = await store.getMany(addresses.map(balanceKey));
    addresses.forEach((address, i) => {
      const v = values[i];
      table.set(toHex(address), { address, ...(v ? decodeBalance(v) : { total: 0n, count: 0 }) });
    });
  } else {
    // not at the previous ledger: rebuild from it, unless the database is not there either
    if ((await readLedgerIndex(store)) !== base) return;
    for (const bucket of [Bucket.AddressBalance, Bucket.AddressConditional]) {
      for await (const key of store.scanKeys({ prefix: Uint8Array.of(bucket) })) batch.del(key);
    }
    const scanned = await scanLedgerAddresses(store);
    for (const e of scanned.values()) {
      for (const c of e.conditional) batch.put(conditionalKey(e.address, c.outputId), encodeConditional(c));
    }
    table = scanned;
  }
  const apply = (o: LedgerOutput, sign: 1n | -1n) => {
    const owner = ownerAddress(o.output);
    if (!owner) return;
    const address = serializeAddressBytes(owner);
    const hex = toHex(address);
    const e = table.get(hex) ?? { address, total: 0n, count: 0 };
    table.set(hex, e);
    e.total += sign * o.output.amount;
    e.count += sign === 1n ? 1 : -1;
    const c = conditionalOf(o.outputId, o.output);
    if (c && sign === 1n) batch.put(conditionalKey(address, o.outputId), encodeConditional(c));
    if (c && sign === -1n) batch.del(conditionalKey(address, o.outputId));
  };
  for (const o of result.created) apply(o, 1n);
  for (const s of result.consumed) apply(s.output, -1n);
  for (const e of table.values()) {
    if (e.count < 0 || e.total < 0n)
      throw new LedgerNodeError(IndexerErrorCode.Corrupt, "an address balance fell below zero");
    if (e.count === 0) batch.del(balanceKey(e.address));
    else batch.put(balanceKey(e.address), encodeBalance(e.total, e.count));
  }
  batch.put(STATE_KEY, new WriteStream(8).u32(ADDRESS_LEDGER_VERSION).u32(milestone.index).finish());
}

/**
 * The address buckets as a ledger index. Catching up is the next milestone's job: it rebuilds
 * them inside its own batch when their marker lags, and reads answer from the ledger until then.
 */
export function addressLedger(store: KvStore): LedgerIndex {
  return {
    name: "explorer address ledger",
    writeMilestone: (batch, result, milestone) => addAddressLedgerWrites(store, batch, result, milestone),
    catchUp: async () => {},
  };
}

/**
 * Runs `read` (from the address buckets when they reflect the ledger index, else from `scan` of
 * the ledger itself) between two reads of the ledger index, retrying until both agree.
 */
async function consistent<T>(
  store: KvStore,
  read: (fromBuckets: boolean) => Promise<T>,
): Promise<{ value: T; ledgerIndex: number; timestamp: number }> {
  for (let attempt = 0; attempt < READ_ATTEMPTS; attempt++) {
    const before = await readLedgerIndex(store);
    const value = await read((await readState(store)) === before);
    if ((await readLedgerIndex(store)) !== before) continue;
    const ms = await store.get(indexKey(Bucket.MilestoneByIndex, before));
    return { value, ledgerIndex: before, timestamp: ms ? decodeMilestoneRecord(ms).timestamp : 0 };
  }
  throw new LedgerNodeError(IndexerErrorCode.Corrupt, "the ledger kept moving while the balances were read");
}

/** One address's entry (zeros when it owns nothing), the ledger index and its milestone timestamp. */
export async function readAddressEntry(
  store: KvStore,
  address: Uint8Array,
): Promise<{ value: AddressEntry; ledgerIndex: number; timestamp: number }> {
  return consistent(store, async (fromBuckets) => {
    const empty: AddressEntry = { address, total: 0n, count: 0, conditional: [] };
    if (!fromBuckets) return (await scanLedgerAddresses(store)).get(toHex(address)) ?? empty;
    const v = await store.get(balanceKey(address));
    if (!v) return empty;
    const entry: AddressEntry = { address, ...decodeBalance(v), conditional: [] };
    for await (const [key, value] of store.scan({ prefix: idKey(Bucket.AddressConditional, address) })) {
      entry.conditional.push(decodeConditional(key.slice(34), value));
    }
    return entry;
  });
}

/** Every address that owns unspent outputs with its total, and the ledger index. */
export async function readAllBalances(
  store: KvStore,
): Promise<{ value: { address: Uint8Array; total: bigint }[]; ledgerIndex: number }> {
  return consistent(store, async (fromBuckets) => {
    if (!fromBuckets) return [...(await scanLedgerAddresses(store)).values()];
    const out: { address: Uint8Array; total: bigint }[] = [];
    for await (const [key, value] of store.scan({ prefix: Uint8Array.of(Bucket.AddressBalance) })) {
      out.push({ address: key.slice(1), total: decodeBalance(value).total });
    }
    return out;
  });
}

/** Addresses the richest list keeps, richest first (the most a request may ask for). */
export const RANKED_ADDRESSES = 1000;

/** Ledger-wide figures of the explorer: the richest addresses and balances by order of magnitude. */
export interface LedgerRankings {
  ledgerIndex: number;
  /** At most RANKED_ADDRESSES, richest first, ties by address bytes. */
  richest: { address: Uint8Array; total: bigint }[];
  /** Range k holds the addresses whose balance lies in [10^k, 10^(k+1)), by k. */
  distribution: { k: number; addressCount: number; total: bigint }[];
}

const rankingsByStore = new WeakMap<KvStore, { ledgerIndex: number; rankings: Promise<LedgerRankings> }>();

/**
 * The rankings at the current ledger index, computed once per milestone whatever the number of
 * requests (they share one scan of every balance; docs/decisions.md, Threats).
 */
export async function ledgerRankings(store: KvStore): Promise<LedgerRankings> {
  const ledgerIndex = await readLedgerIndex(store);
  const cached = rankingsByStore.get(store);
  if (cached && cached.ledgerIndex === ledgerIndex) return cached.rankings;
  const rankings = computeRankings(store);
  rankingsByStore.set(store, { ledgerIndex, rankings });
  rankings.then(
    (r) => {
      // the ledger moved during the scan: file the result under the index it was read at
      if (r.ledgerIndex !== ledgerIndex && rankingsByStore.get(store)?.rankings === rankings) {
        rankingsByStore.set(store, { ledgerIndex: r.ledgerIndex, rankings });
      }
    },
    () => {
      if (rankingsByStore.get(store)?.rankings === rankings) rankingsByStore.delete(store);
    },
  );
  return rankings;
}

async function computeRankings(store: KvStore): Promise<LedgerRankings> {
  const { value, ledgerIndex } = await readAllBalances(store);
  return rankBalances(value, ledgerIndex);
}

/** The rankings of a table of positive balances (sorts `value` in place). */
export function rankBalances(value: { address: Uint8Array; total: bigint }[], ledgerIndex: number): LedgerRankings {
  const ranges = new Map<number, { addressCount: number; total: bigint }>();
  for (const e of value) {
    // an address listed owns outputs, so its balance is positive
    const k = e.total.toString().length - 1;
    const r = ranges.get(k) ?? { addressCount: 0, total: 0n };
    r.addressCount += 1;
    r.total += e.total;
    ranges.set(k, r);
  }
  value.sort((a, b) => (a.total === b.total ? compareBytes(a.address, b.address) : a.total > b.total ? -1 : 1));
  return {
    ledgerIndex,
    richest: value.slice(0, RANKED_ADDRESSES),
    distribution: [...ranges.entries()].sort((a, b) => a[0] - b[0]).map(([k, r]) => ({ k, ...r })),
  };
}

/**
 * The available part of an address's total at `timestamp`: outputs still timelocked (timelock
 * later than the timestamp) and outputs whose expiration has passed (expiration at or before the
 * timestamp: they now belong to the return address) are not available (TIP-18).
 */
export function availableBalance(entry: AddressEntry, timestamp: number): bigint {
  let available = entry.total;
  for (const c of entry.conditional) {
    const locked = c.timelock !== 0 && c.timelock > timestamp;
    const expired = c.expiration !== 0 && c.expiration <= timestamp;
    if (locked || expired) available -= c.amount;
  }
  return available;
}

export interface AddressUpdate {
  milestoneIndex: number;
  outputId: Uint8Array;
  spent: boolean;
}

/**
 * Up to `limit` ledger updates of `address` in (milestone index, output ID, spent) order or
 * reversed, from `from` (inclusive) on.
 */
export async function addressUpdates(
  store: KvStore,
  address: Uint8Array,
  opts: { from?: AddressUpdate; reverse: boolean; limit: number },
): Promise<AddressUpdate[]> {
  const prefix = idKey(Bucket.AddressUpdate, address);
  const bound = opts.from
    ? addressUpdateKey(address, opts.from.milestoneIndex, opts.from.outputId, opts.from.spent)
    : undefined;
  const range = bound ? (opts.reverse ? { lte: bound } : { gte: bound }) : {};
  const out: AddressUpdate[] = [];
  for await (const key of store.scanKeys({ prefix, ...range, reverse: opts.reverse, limit: opts.limit })) {
    if (key.length !== 73) throw new LedgerNodeError(IndexerErrorCode.Corrupt, "an address update key does not decode");
    out.push({
      milestoneIndex: new DataView(key.buffer, key.byteOffset + 34, 4).getUint32(0, false),
      outputId: key.slice(38, 72),
      spent: key[72] === 1,
    });
  }
  return out;
}
