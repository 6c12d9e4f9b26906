import { serializeAddressBytes } from "../codec/address.js";
import { compareBytes, toHex } from "../codec/hex.js";
import { type Address, type Output, OutputType, UnlockConditionType } from "../codec/types.js";
import type { LedgerOutput, WhiteFlagResult } from "../ledger/whiteFlag.js";
import {
  type AddressConditionalEntry,
  type AddressUpdateEntry,
  ConditionalRole,
  encodeAddressBalance,
  type Repositories,
  type WriteBatch,
} from "../storage/index.js";
import type { MilestoneInfo } from "../tangle/events.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { conditionalEntries, MAX_CONDITIONAL_READ } from "./addressConditionals.js";
import { IndexerErrorCode } from "./errors.js";

/**
 * Per-address data for the explorer (Chronicle's balance, ledger updates, richest addresses and
 * token distribution), kept in each milestone's batch (a `LedgerIndex` attached to the node's
 * events):
 *
 * - AddressBalance: each owner address's total over its unspent outputs (created adds, consumed
 *   subtracts; what the rankings sum) and AddressConditional: its unspent outputs with a
 *   timelock, expiration or storage deposit return, and the unspent outputs whose expiration
 *   names it as return address, so the balance route's figures are decided at read time
 *   against the latest milestone's timestamp (addressConditionals.ts).
 *   AddressBalanceState names the ledger index they hold, moved in the milestone's batch with
 *   them, so answers always match the ledger index they name. When it lags (a new layout
 *   version, a database from before them) they are rebuilt in bounded memory (addressLoad.ts)
 *   and reads answer NotReady meanwhile.
 * - AddressUpdate: the outputs each address gained or lost per milestone.
 *
 * The owner of an output is the address of its address unlock condition (basic, NFT), its state
 * controller (alias) or its immutable alias (foundry); treasury outputs have none.
 */

/** 2: AddressConditional holds storage deposit returns and expiration return entries (docs/decisions.md, Explorer). */
export const ADDRESS_LEDGER_VERSION = 2;
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

export interface AddressEntry {
  /** 33 serialized address bytes. */
  address: Uint8Array;
  /** The amounts of the unspent outputs it owns (AddressBalance). */
  total: bigint;
  count: number;
  /** Its owner entries, and its expiration return entries of expired outputs. */
  conditional: AddressConditionalEntry[];
}

/** The ledger index the address buckets reflect, if they are of this layout. */
async function readState(db: Repositories): Promise<number | undefined> {
  const state = await db.addresses.state();
  return state?.version === ADDRESS_LEDGER_VERSION ? state.ledgerIndex : undefined;
}

/** Whether the address buckets hold the ledger at `ledgerIndex` (in this layout). */
export async function addressLedgerAt(db: Repositories, ledgerIndex: number): Promise<boolean> {
  return (await readState(db)) === ledgerIndex;
}

/** An output's owner as its 33 serialized bytes and their hex (a map key), worked out once per output. */
interface Owned {
  o: LedgerOutput;
  address: Uint8Array;
  hex: string;
}

function owned(o: LedgerOutput): Owned | undefined {
  const owner = ownerAddress(o.output);
  if (!owner) return undefined;
  const address = serializeAddressBytes(owner);
  return { o, address, hex: toHex(address) };
}

function ownedOf(outputs: Iterable<LedgerOutput>): Owned[] {
  const out: Owned[] = [];
  for (const o of outputs) {
    const w = owned(o);
    if (w) out.push(w);
  }
  return out;
}

/**
 * Adds the address writes of one milestone to its batch. When the buckets do not hold the ledger
 * the milestone starts from, `rebuild` brings them to it first (addressLoad.ts), in batches that
 * land before this one; when the database is not there either, the milestone is not the next
 * one, and a later milestone or start rebuilds.
 */
export async function addAddressLedgerWrites(
  db: Repositories,
  batch: WriteBatch,
  result: WhiteFlagResult,
  milestone: MilestoneInfo,
  rebuild: (ledgerIndex: number) => Promise<void>,
): Promise<void> {
  const base = milestone.index - 1;
  if ((await readState(db)) !== base) {
    if ((await db.nodeState.ledgerIndex()) !== base) return;
    await rebuild(base);
  }
  const addresses = db.addresses;
  // each output's owner is serialized once: a milestone of 20,000 transfers has 40,000 outputs
  const created = ownedOf(result.created);
  const consumed = ownedOf(result.consumed.map((s) => s.output));
  const update = (w: Owned, spent: boolean) =>
    addresses.putUpdate(batch, w.address, { milestoneIndex: milestone.index, outputId: w.o.outputId, spent });
  for (const w of created) update(w, false);
  for (const w of consumed) update(w, true);
  for (const w of ownedOf(result.createdAndConsumed.map((s) => s.output))) {
    update(w, false);
    update(w, true);
  }

  const table = new Map<string, { address: Uint8Array; total: bigint; count: number }>();
  const touched = new Map<string, Uint8Array>();
  for (const w of created) touched.set(w.hex, w.address);
  for (const w of consumed) touched.set(w.hex, w.address);
  const hexes = [...touched.keys()];
  const values = await addresses.balances.getMany([...touched.values()]);
  hexes.forEach((hex, i) => {
    table.set(hex, { address: touched.get(hex)!, ...(values[i] ?? { total: 0n, count: 0 }) });
  });
  const apply = (w: Owned, sign: 1n | -1n) => {
    let e = table.get(w.hex);
    if (!e) {
      e = { address: w.address, total: 0n, count: 0 };
      table.set(w.hex, e);
    }
    e.total += sign * w.o.output.amount;
    e.count += sign === 1n ? 1 : -1;
    for (const c of conditionalEntries(w.o.outputId, w.o.output, w.address)) {
      if (sign === 1n) addresses.putConditional(batch, c.address, c.entry);
      else addresses.delConditional(batch, c.address, c.entry);
    }
  };
  for (const w of created) apply(w, 1n);
  for (const w of consumed) apply(w, -1n);
  for (const e of table.values()) {
    if (e.count < 0 || e.total < 0n)
      throw new LedgerNodeError(IndexerErrorCode.Corrupt, "an address balance fell below zero");
    if (e.count === 0) addresses.balances.del(batch, e.address);
    else addresses.balances.put(batch, e.address, encodeAddressBalance({ total: e.total, count: e.count }));
  }
  addresses.putState(batch, { version: ADDRESS_LEDGER_VERSION, ledgerIndex: milestone.index });
}

/**
 * Runs `read` of the address buckets (given the ledger index's milestone timestamp) between two
 * reads of the ledger index, retrying until both agree. Buckets that do not hold the ledger (a
 * rebuild under way: addressLoad.ts) answer NotReady rather than a scan of the whole ledger per
 * request.
 */
async function consistent<T>(
  db: Repositories,
  read: (timestamp: number) => Promise<T>,
): Promise<{ value: T; ledgerIndex: number; timestamp: number }> {
  for (let attempt = 0; attempt < READ_ATTEMPTS; attempt++) {
    const before = await db.nodeState.ledgerIndex();
    if (!(await addressLedgerAt(db, before))) {
      // a milestone landed between the two reads: its batch moves both at once
      if ((await db.nodeState.ledgerIndex()) !== before) continue;
      throw new LedgerNodeError(IndexerErrorCode.NotReady, "the address ledger is being rebuilt; retry in a moment");
    }
    const timestamp = (await db.milestones.get(before))?.timestamp ?? 0;
    const value = await read(timestamp);
    if ((await db.nodeState.ledgerIndex()) !== before) continue;
    return { value, ledgerIndex: before, timestamp };
  }
  // milestones following each other closely (auto milestones, a dev request for many) are no
  // fault of the store: the reader may ask again
  throw new LedgerNodeError(
    IndexerErrorCode.Busy,
    "the ledger kept moving while the balances were read (milestones follow each other closely); retry",
  );
}

/**
 * One address's entry (zeros when it owns nothing) as of the latest milestone: its stored total,
 * its owner entries and the expiration return entries naming it whose expiration is at or before
 * that milestone's timestamp (those not expired count nothing yet, so they are not read), the
 * ledger index and the timestamp. At most MAX_CONDITIONAL_READ entries are read: beyond,
 * TooManyConditional (an attacker can file thousands of entries under any address; the
 * expired return entries are the address's own to unlock and so to reduce).
 */
export async function readAddressEntry(
  db: Repositories,
  address: Uint8Array,
): Promise<{ value: AddressEntry; ledgerIndex: number; timestamp: number }> {
  return consistent(db, async (timestamp) => {
    const balance = (await db.addresses.balances.get(address)) ?? { total: 0n, count: 0 };
    const limit = MAX_CONDITIONAL_READ + 1;
    const owned = balance.count ? await db.addresses.conditionals(address, ConditionalRole.Owner, { limit }) : [];
    const returning =
      owned.length < limit
        ? await db.addresses.conditionals(address, ConditionalRole.ExpirationReturn, {
            limit: limit - owned.length,
            expiredBy: timestamp,
          })
        : [];
    if (owned.length + returning.length > MAX_CONDITIONAL_READ) {
      throw new LedgerNodeError(
        IndexerErrorCode.TooManyConditional,
        `the balance depends on more than ${MAX_CONDITIONAL_READ} outputs with a timelock, an expiration or a storage deposit return (owned, or expired with this address as return address); one request reads at most that many, so it is not computed until some are spent`,
      );
    }
    return { address, ...balance, conditional: [...owned, ...returning] };
  });
}

/** The stored total and output count of one address (what it owns, conditions aside), and the ledger index. */
export async function readOwnedBalance(
  db: Repositories,
  address: Uint8Array,
): Promise<{ value: { total: bigint; count: number }; ledgerIndex: number }> {
  return consistent(db, async () => (await db.addresses.balances.get(address)) ?? { total: 0n, count: 0 });
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

const rankingsByDb = new WeakMap<Repositories, { ledgerIndex: number; rankings: Promise<LedgerRankings> }>();

/**
 * Forgets the rankings kept for `db` (a dev revert or reset put another ledger under the same
 * milestone indexes, node/node.ts `replaceState`): the next request computes them anew.
 */
export function forgetCurrentRankings(db: Repositories): void {
  rankingsByDb.delete(db);
}

/**
 * The rankings at the current ledger index, computed once per milestone whatever the number of
 * requests (they share one scan of every balance; docs/decisions.md, Threats).
 */
export async function ledgerRankings(db: Repositories): Promise<LedgerRankings> {
  const ledgerIndex = await db.nodeState.ledgerIndex();
  const cached = rankingsByDb.get(db);
  if (cached && cached.ledgerIndex === ledgerIndex) return cached.rankings;
  const rankings = readRankings(db);
  rankingsByDb.set(db, { ledgerIndex, rankings });
  rankings.then(
    (r) => {
      // the ledger moved during the scan: file the result under the index it was read at
      if (r.ledgerIndex !== ledgerIndex && rankingsByDb.get(db)?.rankings === rankings) {
        rankingsByDb.set(db, { ledgerIndex: r.ledgerIndex, rankings });
      }
    },
    () => {
      if (rankingsByDb.get(db)?.rankings === rankings) rankingsByDb.delete(db);
    },
  );
  return rankings;
}

/** Changes applied to the stored balances as they are read, by address hex (pastRankings.ts rolls a ledger back so). */
export type BalanceChanges = ReadonlyMap<string, { address: Uint8Array; change: bigint }>;

/**
 * The rankings of the balances the address buckets hold (with `changes` applied), at the ledger
 * index they were read at, in one pass and bounded memory whatever the number of addresses
 * (`Ranker`); a balance that falls below zero is the store's failure (Corrupt).
 */
export async function readRankings(db: Repositories, changes?: BalanceChanges): Promise<LedgerRankings> {
  const { value, ledgerIndex } = await consistent(db, async () => {
    const ranker = new Ranker();
    // each attempt applies every change once: its own copy of the ones not met yet
    const left = changes && new Map(changes);
    for await (const [address, balance] of db.addresses.balances.entries()) {
      let total = balance.total;
      if (left && left.size > 0) {
        const hex = toHex(address);
        const c = left.get(hex);
        if (c) {
          total += c.change;
          left.delete(hex);
        }
      }
      ranker.add(address, total);
    }
    // addresses that own nothing now
    for (const c of left?.values() ?? []) ranker.add(c.address, c.change);
    return ranker;
  });
  return value.rankings(ledgerIndex);
}

/** Richest first, ties by address bytes. */
const richestFirst = (a: { address: Uint8Array; total: bigint }, b: { address: Uint8Array; total: bigint }) =>
  a.total === b.total ? compareBytes(a.address, b.address) : a.total > b.total ? -1 : 1;

/**
 * The rankings of balances handed one at a time: the RANKED_ADDRESSES richest, in a list cut
 * back to them whenever it holds twice as many, and the balances by order of magnitude. Memory
 * stays bounded with a million addresses (a snapshot of 10,000,000 outputs), where a table of
 * every balance, sorted whole, held them all.
 */
export class Ranker {
  private top: { address: Uint8Array; total: bigint }[] = [];
  private readonly ranges = new Map<number, { addressCount: number; total: bigint }>();

  /** One address's balance (nothing for zero). */
  add(address: Uint8Array, total: bigint): void {
    if (total === 0n) return;
    if (total < 0n) throw new LedgerNodeError(IndexerErrorCode.Corrupt, "an address balance falls below zero");
    const k = total.toString().length - 1;
    const r = this.ranges.get(k) ?? { addressCount: 0, total: 0n };
    r.addressCount += 1;
    r.total += total;
    this.ranges.set(k, r);
    this.top.push({ address, total });
    if (this.top.length >= 2 * RANKED_ADDRESSES) this.cut();
  }

  rankings(ledgerIndex: number): LedgerRankings {
    this.cut();
    return {
      ledgerIndex,
      richest: this.top,
      distribution: [...this.ranges.entries()].sort((a, b) => a[0] - b[0]).map(([k, r]) => ({ k, ...r })),
    };
  }

  private cut(): void {
    this.top.sort(richestFirst);
    if (this.top.length > RANKED_ADDRESSES) this.top.length = RANKED_ADDRESSES;
  }
}

export type AddressUpdate = AddressUpdateEntry;

/**
 * Up to `limit` ledger updates of `address` in (milestone index, output ID, spent) order or
 * reversed, from `from` (inclusive) on.
 */
export function addressUpdates(
  db: Repositories,
  address: Uint8Array,
  opts: { from?: AddressUpdate; reverse: boolean; limit: number },
): Promise<AddressUpdate[]> {
  return db.addresses.updates(address, opts);
}
