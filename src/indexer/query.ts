import { bytesEqual, compareBytes } from "../codec/hex.js";
import { OUTPUT_ID_LENGTH } from "../codec/ids.js";
import { type FieldValue, IndexedField, type IndexedOutputType, type OutputFacts } from "./facts.js";
import { fieldListPrefix, outputListPrefix, type Position, positionBytes } from "./keys.js";

/**
 * A listing request in inx-indexer's terms: equality filters on field values (owner, state
 * controller, governor, alias address, return addresses, sender, issuer, tag), presence and
 * time filters on unlock conditions, native token counts and the booking time (`created_at`),
 * with a page size and a cursor. Comparisons are strict, as inx-indexer's SQL (`created_at < ?`).
 */
export interface OutputQuery {
  type: IndexedOutputType;
  /** Every one must be carried by the output. */
  fields?: readonly FieldValue[];
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
  /** The field filter the prefix already satisfies (not checked again). */
  indexed?: FieldValue;
  gte: Uint8Array;
  lte: Uint8Array;
}

const MAX_U32 = 0xffffffff;

/**
 * Picks the index to scan: the first field filter's entries when there is one (an owner's
 * outputs are few among all), otherwise every output of the kind; narrowed to the cursor and the
 * booking-time window. Undefined when the window is empty.
 */
export function planScan(q: OutputQuery): ScanPlan | undefined {
  const indexed = q.fields?.[0];
  const prefix = indexed ? fieldListPrefix(q.type, indexed) : outputListPrefix(q.type);
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
  if (compareBytes(low, high) > 0) return undefined;
  const join = (p: Uint8Array) => {
    const out = new Uint8Array(prefix.length + p.length);
    out.set(prefix);
    out.set(p, prefix.length);
    return out;
  };
  return { prefix, ...(indexed ? { indexed } : {}), gte: join(low), lte: join(high) };
}

const carries = (facts: OutputFacts, f: FieldValue) =>
  facts.fields.some((x) => x.field === f.field && bytesEqual(x.value, f.value));

const hasField = (facts: OutputFacts, field: number) => facts.fields.some((x) => x.field === field);

/** Whether an entry's facts satisfy every filter but the booking window (the scan range holds it). */
export function matches(facts: OutputFacts, q: OutputQuery, indexed?: FieldValue): boolean {
  for (const f of q.fields ?? []) if (f !== indexed && !carries(facts, f)) return false;
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
