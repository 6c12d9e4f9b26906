import { serializeAddressBytes } from "../codec/address.js";
import { toHex } from "../codec/hex.js";
import { decodeOutput } from "../codec/outputs/output.js";
import type { Repositories } from "../storage/index.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import {
  type BalanceChanges,
  forgetCurrentRankings,
  type LedgerRankings,
  ledgerRankings,
  ownerAddress,
  readRankings,
} from "./addressLedger.js";
import { IndexerErrorCode } from "./errors.js";

/**
 * The richest addresses and the token distribution as of a past milestone (Chronicle's
 * `ledgerIndex` on `/ledger/richest-addresses` and `/ledger/token-distribution`). The node keeps
 * the balances of the current ledger only (addressLedger.ts), so a past one is rolled back from
 * them over the ledger diffs of the milestones since: every output a later milestone created is
 * taken off its owner, every output it consumed given back (its record is kept until pruning
 * passes that milestone). The history that needs must be kept (not below the pruning index),
 * and one request rolls back at most `MAX_ROLLBACK_MILESTONES` milestones and
 * `MAX_ROLLBACK_OUTPUTS` outputs (docs/decisions.md, Threats: unbounded scans). A past ledger
 * never changes, so its rankings are kept (the last `CACHED_PAST_RANKINGS` asked for); they are
 * computed one at a time, with at most `MAX_WAITING` waiting (beyond: Busy, retry).
 */

export const MAX_ROLLBACK_MILESTONES = 10_000;
export const MAX_ROLLBACK_OUTPUTS = 100_000;
const CACHED_PAST_RANKINGS = 16;
const MAX_WAITING = 4;
/** Keys per bulk read. */
const READ_BATCH = 1000;

interface PastRankings {
  /** The computation in progress or last finished (they run one after the other). */
  chain: Promise<unknown>;
  /** Computations running or waiting. */
  waiting: number;
  /** By ledger index, least recently asked first. */
  cache: Map<number, Promise<LedgerRankings>>;
}

const pastByDb = new WeakMap<Repositories, PastRankings>();

/**
 * Forgets every ledger's rankings kept for `db`, current and past (a dev revert or reset put
 * another ledger under the same milestone indexes, node/node.ts `replaceState`); computations
 * still running finish for their callers and are kept nowhere.
 */
export function forgetLedgerRankings(db: Repositories): void {
  pastByDb.delete(db);
  forgetCurrentRankings(db);
}

function outOfRange(reason: string): LedgerNodeError<IndexerErrorCode> {
  return new LedgerNodeError(IndexerErrorCode.LedgerIndexOutOfRange, reason);
}

function pruned(ledgerIndex: number, reason: string): LedgerNodeError<IndexerErrorCode> {
  return new LedgerNodeError(
    IndexerErrorCode.HistoryPruned,
    `the ledger as of milestone ${ledgerIndex} cannot be rebuilt: ${reason}`,
  );
}

/** How far one request may roll the ledger back. */
export interface RollbackLimits {
  milestones: number;
  outputs: number;
}

const DEFAULT_LIMITS: RollbackLimits = { milestones: MAX_ROLLBACK_MILESTONES, outputs: MAX_ROLLBACK_OUTPUTS };

/** The rankings as of milestone `ledgerIndex` (the current ledger index, or an earlier one still kept). */
export async function ledgerRankingsAt(
  db: Repositories,
  ledgerIndex: number,
  limits: RollbackLimits = DEFAULT_LIMITS,
): Promise<LedgerRankings> {
  // read on this thread: requests are admitted in the order they asked (async reads complete in any order)
  const current = db.nodeState.ledgerIndexSync();
  if (ledgerIndex > current) {
    throw outOfRange(`ledgerIndex ${ledgerIndex} is newer than the ledger index ${current}`);
  }
  if (ledgerIndex === current) {
    const rankings = await ledgerRankings(db);
    if (rankings.ledgerIndex === ledgerIndex) return rankings;
  }
  const pruningIndex = db.nodeState.pruningIndexSync();
  if (ledgerIndex < pruningIndex) throw pruned(ledgerIndex, `milestones below ${pruningIndex} are pruned`);
  if (current - ledgerIndex > limits.milestones) {
    throw outOfRange(
      `ledgerIndex ${ledgerIndex} is ${current - ledgerIndex} milestones behind the ledger index ${current}; rankings go back at most ${limits.milestones}`,
    );
  }
  let state = pastByDb.get(db);
  if (!state) {
    state = { chain: Promise.resolve(), waiting: 0, cache: new Map() };
    pastByDb.set(db, state);
  }
  const cached = state.cache.get(ledgerIndex);
  if (cached) {
    state.cache.delete(ledgerIndex);
    state.cache.set(ledgerIndex, cached);
    return cached;
  }
  if (state.waiting >= MAX_WAITING) {
    throw new LedgerNodeError(IndexerErrorCode.Busy, "other past rankings are being computed; retry in a moment");
  }
  const s = state;
  s.waiting++;
  const run = s.chain.then(() => rollBack(db, ledgerIndex, limits));
  s.chain = run.then(
    () => {
      s.waiting--;
    },
    () => {
      s.waiting--;
    },
  );
  s.cache.set(ledgerIndex, run);
  if (s.cache.size > CACHED_PAST_RANKINGS) s.cache.delete(s.cache.keys().next().value!);
  run.catch(() => {
    if (s.cache.get(ledgerIndex) === run) s.cache.delete(ledgerIndex);
  });
  return run;
}

/** Times a rollback starts again when a milestone lands between its diffs and its read of the balances. */
const ROLLBACK_ATTEMPTS = 5;

/**
 * The current balances rolled back to `target` over the ledger diffs since, read in one pass
 * with the changes applied (addressLedger.ts `readRankings`): memory holds the changes (at most
 * `limits.outputs` outputs' owners) and the richest, not every balance.
 */
async function rollBack(db: Repositories, target: number, limits: RollbackLimits): Promise<LedgerRankings> {
  for (let attempt = 0; attempt < ROLLBACK_ATTEMPTS; attempt++) {
    const from = await db.nodeState.ledgerIndex();
    if (from - target > limits.milestones) {
      throw outOfRange(`ledgerIndex ${target} is more than ${limits.milestones} milestones behind the ledger`);
    }
    const changes = await changesBack(db, from, target, limits);
    const rankings = await readRankings(db, changes);
    if (rankings.ledgerIndex === from) return { ...rankings, ledgerIndex: target };
  }
  throw new LedgerNodeError(IndexerErrorCode.Busy, "the ledger kept moving while past rankings were computed; retry");
}

/** What rolls the balances at `from` back to `target`: each owner's change over the diffs of target+1..from. */
async function changesBack(
  db: Repositories,
  from: number,
  target: number,
  limits: RollbackLimits,
): Promise<BalanceChanges> {
  // 1. the outputs the milestones target+1..from created (taken off) and consumed (given back)
  const created: Uint8Array[] = [];
  const consumed: Uint8Array[] = [];
  for (let high = from; high > target; high -= READ_BATCH) {
    const low = Math.max(target + 1, high - READ_BATCH + 1);
    const indexes = Array.from({ length: high - low + 1 }, (_, i) => low + i);
    const diffs = await db.ledgerDiffs.getMany(indexes);
    diffs.forEach((diff, i) => {
      if (!diff) throw pruned(target, `the ledger diff of milestone ${indexes[i]} is not stored`);
      created.push(...diff.created);
      consumed.push(...diff.consumed);
    });
    if (created.length + consumed.length > limits.outputs) {
      throw outOfRange(`rolling the ledger back from ${from} to ${target} touches more than ${limits.outputs} outputs`);
    }
  }
  // 2. their owners and amounts
  const changes = new Map<string, { address: Uint8Array; change: bigint }>();
  const apply = async (ids: Uint8Array[], sign: 1n | -1n) => {
    for (let i = 0; i < ids.length; i += READ_BATCH) {
      const batch = ids.slice(i, i + READ_BATCH);
      const records = await db.outputs.getMany(batch);
      records.forEach((rec, j) => {
        if (!rec) throw pruned(target, `output ${toHex(batch[j]!)} is no longer stored`);
        const output = decodeOutput(rec.outputBytes);
        const owner = ownerAddress(output);
        if (!owner) return;
        const address = serializeAddressBytes(owner);
        const key = toHex(address);
        const e = changes.get(key) ?? { address, change: 0n };
        e.change += sign * output.amount;
        changes.set(key, e);
      });
    }
  };
  await apply(created, -1n);
  await apply(consumed, 1n);
  return changes;
}
