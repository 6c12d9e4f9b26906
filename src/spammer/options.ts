import { availableParallelism } from "node:os";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { SpammerErrorCode } from "./errors.js";

/**
 * What the spammer runs with: inx-spammer's four settings of `POST /api/spammer/v1/start`
 * (`pkg/spammer/routes.go` `startCommand`), each optional there and here; a setting left out
 * keeps the value it had (the defaults below at first), as inx-spammer keeps its configured one.
 */
export interface SpammerSettings {
  /** Blocks per second to issue, never more in any 1-s window (inx-spammer `bpsRateLimit`). */
  bpsRateLimit: number;
  /**
   * Issuing pauses while the process's CPU use over the last second, as a fraction of all cores,
   * exceeds this (inx-spammer `cpuMaxUsage`, which measures the whole machine).
   */
  cpuMaxUsage: number;
  /** Concurrent submitters (inx-spammer `spammerWorkers`); each mines with one thread of the spammer's own pool. */
  spammerWorkers: number;
  /** Signed basic transfers among the spammer's own addresses instead of tagged data (inx-spammer `valueSpamEnabled`). */
  valueSpamEnabled: boolean;
}

/** The cores of this machine, as the bounds and the CPU figure count them. */
export const CORES = availableParallelism();

/**
 * The highest rate the spammer accepts. inx-spammer takes any float (0: unlimited); this node
 * refuses 0 and anything above 10,000 blocks/s, ten times what one node of two cores sustains
 * (bench spammer), so a typo cannot ask for a billion.
 */
export const MAX_BPS_RATE_LIMIT = 10_000;

/**
 * Submitters at most: four per core. A submitter is a loop that hands one block at a time to the
 * intake and waits for its verdict, which takes a few ms (a disk lookup, the write-behind batch)
 * while the process computes little: at 1,000 blocks/s on two cores four submitters fell short,
 * eight held it (bench spammer). Mining uses at most one thread per core whatever the count.
 */
export const MAX_SPAMMER_WORKERS = CORES * 4;

/**
 * The settings of the first start: 10 blocks/s, inx-spammer's `cpuMaxUsage` 0.8, its worker count
 * (one less than the cores, at least one), tagged data.
 */
export const defaultSpammerSettings: SpammerSettings = {
  bpsRateLimit: 10,
  cpuMaxUsage: 0.8,
  spammerWorkers: Math.max(1, CORES - 1),
  valueSpamEnabled: false,
};

/** The tag of the spammer's tagged-data payloads (inx-spammer's `tag` is "HORNET Spammer"). */
export const SPAMMER_TAG = "ledger-node spammer";

/** The words of the spammer's tagged data (inx-spammer's `message`), followed by a count and a time. */
export const SPAMMER_MESSAGE = "We are all made of stardust.";

/**
 * Settings to start with: `given` over `current`, each checked (a reason names the field).
 * `given` comes from a client: any JSON value.
 */
export function mergeSettings(current: SpammerSettings, given: unknown): SpammerSettings {
  const fail = (what: string): never => {
    throw new LedgerNodeError(SpammerErrorCode.InvalidSettings, what);
  };
  if (given === undefined || given === null) return { ...current };
  if (typeof given !== "object" || Array.isArray(given)) return fail("the settings must be a JSON object");
  const o = given as Record<string, unknown>;
  const known = ["bpsRateLimit", "cpuMaxUsage", "spammerWorkers", "valueSpamEnabled"];
  const unknown = Object.keys(o).find((k) => !known.includes(k));
  if (unknown !== undefined) fail(`${unknown}: not a setting (${known.join(", ")})`);
  const out = { ...current };
  if (o.bpsRateLimit !== undefined) {
    const v = o.bpsRateLimit;
    if (typeof v !== "number" || !Number.isFinite(v) || v <= 0 || v > MAX_BPS_RATE_LIMIT) {
      fail(`bpsRateLimit: expected a number above 0 and at most ${MAX_BPS_RATE_LIMIT}, got ${show(v)}`);
    }
    out.bpsRateLimit = v as number;
  }
  if (o.cpuMaxUsage !== undefined) {
    const v = o.cpuMaxUsage;
    if (typeof v !== "number" || !Number.isFinite(v) || v <= 0 || v > 1) {
      fail(`cpuMaxUsage: expected a fraction of the cores above 0 and at most 1, got ${show(v)}`);
    }
    out.cpuMaxUsage = v as number;
  }
  if (o.spammerWorkers !== undefined) {
    const v = o.spammerWorkers;
    if (typeof v !== "number" || !Number.isInteger(v) || v < 1 || v > MAX_SPAMMER_WORKERS) {
      fail(`spammerWorkers: expected an integer from 1 to ${MAX_SPAMMER_WORKERS} (four per core), got ${show(v)}`);
    }
    out.spammerWorkers = v as number;
  }
  if (o.valueSpamEnabled !== undefined) {
    if (typeof o.valueSpamEnabled !== "boolean")
      fail(`valueSpamEnabled: expected true or false, got ${show(o.valueSpamEnabled)}`);
    out.valueSpamEnabled = o.valueSpamEnabled as boolean;
  }
  return out;
}

function show(v: unknown): string {
  if (typeof v === "string") return JSON.stringify(v.length > 40 ? `${v.slice(0, 37)}...` : v);
  if (v === null) return "null";
  if (typeof v === "object") return Array.isArray(v) ? "an array" : "an object";
  return String(v);
}
