import { bytesEqual, compareBytes } from "../codec/hex.js";
import { OUTPUT_ID_LENGTH } from "../codec/ids.js";
import { type FieldValue, IndexedField, type IndexedOutputType, type OutputFacts } from "./facts.js";
import { fieldList, fieldListPrefix, outputListPrefix, type Position, positionBytes } from "./keys.js";

/**
 * A listing request in inx-indexer's terms: equality filters on field values (owner, state
 * controller, governor, alias address, return addresses, sender, issuer, tag), presence and
 * time filters on unlock conditions, native token counts and the booking time (`created_at`),
 * with a page size and a cursor. Comparisons are strict, as inx-indexer's SQL (`created_at < ?`).
 */
export interface OutputQuery {
  /** The output kind; left out, every kind (the combined listing). */
  type?: IndexedOutputType;
  /** Every one must be carried by the output. */
  fields?: readonly FieldValue[];
  /**
   * 33 serialized address bytes that can unlock the output: its owner, the return address of a
   * storage deposit return or expiration condition (basic, NFT), the state controller or
   * governor (alias) or the controlling alias (foundry), as inx-indexer's `unlockableByAddress`.
   */
  unlockableBy?: Uint8Array;
  hasNativeTokens?: boolean;
  minNativeTokenCount?: number;
  maxNativeTokenCount?: number;
  hasStorageDepositReturn?: boolean;
  hasExpiration?: boolean;
  expiresBefore?: number;
  expiresAfter?: number;
  hasTimelock?: boolean;
  timelockedBefore?: number;
  timelockedAfter?: number;
  createdBefore?: number;
  createdAfter?: number;
  /** Items per page, at least 1. */
  pageSize: number;
  /** First position of the page (inclusive), from the previous page's `next`. */
  cursor?: Position;
}

/** The key range one listing scans: a prefix and inclusive bounds on the position after it. */
export interface ScanPlan {
  prefix: Uint8Array;
  /** For a field list (kept in chunks, fieldLists.ts): the list; the bounds' positions apply to it. */
  list?: Uint8Array;
  /** The field filter the prefix already satisfies (not checked again). */
  indexed?: FieldValue;
  gte: Uint8Array;
  lte: Uint8Array;
}

const MAX_U32 = 0xffffffff;

/** Every output kind, in TIP-18 code order. */
export const INDEXED_TYPES: readonly IndexedOutputType[] = [3, 4, 5, 6];

/** The fields whose address can unlock an output of each kind (inx-indexer's `unlockableByAddress`). */
export const UNLOCKING_FIELDS: Record<IndexedOutputType, readonly IndexedField[]> = {
  3: [IndexedField.Address, IndexedField.StorageDepositReturn, IndexedField.ExpirationReturn],
  4: [IndexedField.StateController, IndexedField.Governor],
  5: [IndexedField.ImmutableAlias],
  6: [IndexedField.Address, IndexedField.StorageDepositReturn, IndexedField.ExpirationReturn],
};

const UNLOCKING = new Set<number>([
  IndexedField.Address,
  IndexedField.StateController,
  IndexedField.Governor,
  IndexedField.ImmutableAlias,
  IndexedField.StorageDepositReturn,
  IndexedField.ExpirationReturn,
]);

/**
 * The position bounds of a listing: the cursor and the booking-time window (exclusive bounds,
 * as inx-indexer's `created_at < ?`). Undefined when the window is empty.
 */
function positionBounds(q: OutputQuery): { low: Uint8Array; high: Uint8Array } | undefined {
  let low = positionBytes({ createdAt: 0, outputId: new Uint8Array(OUTPUT_ID_LENGTH) });
  if (q.createdAfter !== undefined) {
    if (q.createdAfter >= MAX_U32) return undefined;
    low = positionBytes({ createdAt: q.createdAfter + 1, outputId: new Uint8Array(OUTPUT_ID_LENGTH) });
  }
  if (q.cursor) {
    const c = positionBytes(q.cursor);
    if (compareBytes(c, low) > 0) low = c;
  }
  let high = positionBytes({ createdAt: MAX_U32, outputId: new Uint8Array(OUTPUT_ID_LENGTH).fill(0xff) });
  if (q.createdBefore !== undefined) {
    if (q.createdBefore <= 0) return undefined;
    if (q.createdBefore <= MAX_U32) {
      high = positionBytes({ createdAt: q.createdBefore - 1, outputId: new Uint8Array(OUTPUT_ID_LENGTH).fill(0xff) });
    }
  }
  return compareBytes(low, high) > 0 ? undefined : { low, high };
}

function join(prefix: Uint8Array, p: Uint8Array): Uint8Array {
  const out = new Uint8Array(prefix.length + p.length);
  out.set(prefix);
  out.set(p, prefix.length);
  return out;
}

/**
 * The key ranges one listing scans, merged in position order: per output kind asked for, the
 * first field filter's entries when there is one (an owner's outputs are few among all), else
 * one range per field that can carry the unlocking address, else every output of the kind;
 * each narrowed to the cursor and the booking-time window. Empty when the window is.
 */
export function planScans(q: OutputQuery): ScanPlan[] {
  const bounds = positionBounds(q);
  if (!bounds) return [];
  const plans: ScanPlan[] = [];
  const add = (prefix: Uint8Array, indexed?: FieldValue, list?: Uint8Array) =>
    plans.push({
      prefix,
      ...(list ? { list } : {}),
      ...(indexed ? { indexed } : {}),
      gte: join(prefix, bounds.low),
      lte: join(prefix, bounds.high),
    });
  const addList = (type: IndexedOutputType, f: FieldValue) => add(fieldListPrefix(type, f), f, fieldList(type, f));
  for (const type of q.type === undefined ? INDEXED_TYPES : [q.type]) {
    const first = q.fields?.[0];
    if (first) addList(type, first);
    else if (q.unlockableBy) {
      for (const field of UNLOCKING_FIELDS[type]) addList(type, { field, value: q.unlockableBy });
    } else add(outputListPrefix(type));
  }
  return plans;
}

/** The single range of a one-kind listing without `unlockableBy` (undefined when empty). */
export function planScan(q: OutputQuery): ScanPlan | undefined {
  return planScans(q)[0];
}

const carries = (facts: OutputFacts, f: FieldValue) =>
  facts.fields.some((x) => x.field === f.field && bytesEqual(x.value, f.value));

const hasField = (facts: OutputFacts, field: number) => facts.fields.some((x) => x.field === field);

/**
 * Whether deciding an entry of the range indexed by `indexed` takes its facts: false when the
 * range's key alone satisfies the query (an owner's listing without further filters), so the
 * scan can read keys only.
 */
export function needsFacts(q: OutputQuery, indexed?: FieldValue): boolean {
  if (q.fields?.some((f) => f !== indexed)) return true;
  if (q.unlockableBy && indexed?.value !== q.unlockableBy) return true;
  return (
    q.hasNativeTokens !== undefined ||
    q.minNativeTokenCount !== undefined ||
    q.maxNativeTokenCount !== undefined ||
    q.hasStorageDepositReturn !== undefined ||
    q.hasExpiration !== undefined ||
    q.expiresBefore !== undefined ||
    q.expiresAfter !== undefined ||
    q.hasTimelock !== undefined ||
    q.timelockedBefore !== undefined ||
    q.timelockedAfter !== undefined
  );
}

/** Whether an entry's facts satisfy every filter but the booking window (the scan range holds it). */
export function matches(facts: OutputFacts, q: OutputQuery, indexed?: FieldValue): boolean {
  for (const f of q.fields ?? []) if (f !== indexed && !carries(facts, f)) return false;
  const by = q.unlockableBy;
  if (by && indexed?.value !== by && !facts.fields.some((x) => UNLOCKING.has(x.field) && bytesEqual(x.value, by))) {
    return false;
  }
  const n = facts.nativeTokenCount;
  if (q.hasNativeTokens !== undefined && q.hasNativeTokens !== n > 0) return false;
  if (q.minNativeTokenCount !== undefined && n < q.minNativeTokenCount) return false;
  if (q.maxNativeTokenCount !== undefined && n > q.maxNativeTokenCount) return false;
  const sdr = hasField(facts, IndexedField.StorageDepositReturn);
  if (q.hasStorageDepositReturn !== undefined && q.hasStorageDepositReturn !== sdr) return false;
  const exp = facts.expirationTime;
  if (q.hasExpiration !== undefined && q.hasExpiration !== (exp !== undefined)) return false;
  if (q.expiresBefore !== undefined && !(exp !== undefined && exp < q.expiresBefore)) return false;
  if (q.expiresAfter !== undefined && !(exp !== undefined && exp > q.expiresAfter)) return false;
  const lock = facts.timelockTime;
  if (q.hasTimelock !== undefined && q.hasTimelock !== (lock !== undefined)) return false;
  if (q.timelockedBefore !== undefined && !(lock !== undefined && lock < q.timelockedBefore)) return false;
  if (q.timelockedAfter !== undefined && !(lock !== undefined && lock > q.timelockedAfter)) return false;
  return true;
}
