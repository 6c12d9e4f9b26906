import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { FaucetErrorCode } from "./errors.js";

/**
 * What a faucet runs with. Its key arrives as a seed from whoever builds it (the node's
 * components: the dev key, `--faucet-key-file`, or later a network file), never read here.
 * Defaults follow inx-faucet's (`config_defaults.json`, `components/faucet/params.go`) where
 * it has the setting.
 */
export interface FaucetOptions {
  /** The Ed25519 seed (32 bytes) of the key that owns the faucet's funds. Never logged or answered. */
  seed: Uint8Array;
  /** What one request receives, in base units (inx-faucet `amount`). */
  amount: bigint;
  /** An address already holding this much or more is refused (inx-faucet `maxAddressBalance`). */
  maxAddressBalance: bigint;
  /**
   * Requests paid by one transaction at most: TIP-20 allows 128 outputs and one is the
   * faucet's remainder, so 1 to 127 (inx-faucet `maxOutputCount` less the remainder).
   */
  batchSize: number;
  /** Requests waiting at most (queued and in the pending transaction); more are refused. */
  queueSize: number;
  /** Requests one address may make: `requests` per `periodMs`, at most `burst` at once. */
  perAddress: RateLimit;
  /** Enqueue calls one client (IP address) may make, counted before anything else (inx-faucet `rateLimit`). */
  perClient: RateLimit;
  /** The tag of the tagged-data payload each faucet transaction carries (inx-faucet `tagMessage`). */
  tag: string;
  /**
   * Send as soon as a request is queued while no transaction is pending, not only after the next
   * milestone: a coordinator issuing milestones on demand (`--milestones auto` or `manual`) issues
   * none by itself, so a request would wait for someone else's block. Default false.
   */
  sendOnEnqueue?: boolean;
}

/** A token bucket: `burst` at once, refilled at `requests` per `periodMs`. */
export interface RateLimit {
  requests: number;
  periodMs: number;
  burst: number;
}

/** Everything but the seed, which has no default. */
export const defaultFaucetOptions: Omit<FaucetOptions, "seed"> = {
  amount: 1_000_000_000n,
  maxAddressBalance: 2_000_000_000n,
  batchSize: 127,
  queueSize: 10_000,
  // one request per address every 5 minutes
  perAddress: { requests: 1, periodMs: 5 * 60_000, burst: 1 },
  // inx-faucet's rate limit: 10 per 5 minutes, bursts of 20
  perClient: { requests: 10, periodMs: 5 * 60_000, burst: 20 },
  tag: "ledger-node faucet",
};

/** Outputs of one transaction at most (TIP-20), the faucet's remainder among them. */
export const MAX_TRANSACTION_OUTPUTS = 128;

/** Inputs of one transaction at most (TIP-20). */
export const MAX_TRANSACTION_INPUTS = 128;

/** Refuses options the faucet cannot work with; the message names the option. */
export function checkFaucetOptions(o: FaucetOptions): void {
  const fail = (what: string) => {
    throw new LedgerNodeError(FaucetErrorCode.InvalidOptions, `faucet options: ${what}`);
  };
  if (o.seed.length !== 32) fail("the seed must be 32 bytes");
  if (o.amount <= 0n) fail("amount must be positive");
  if (o.maxAddressBalance < o.amount) fail("maxAddressBalance must be at least the amount");
  if (!Number.isInteger(o.batchSize) || o.batchSize < 1 || o.batchSize > MAX_TRANSACTION_OUTPUTS - 1) {
    fail(
      `batchSize must be 1 to ${MAX_TRANSACTION_OUTPUTS - 1} (TIP-20: ${MAX_TRANSACTION_OUTPUTS} outputs, one is the remainder)`,
    );
  }
  if (!Number.isInteger(o.queueSize) || o.queueSize < 1) fail("queueSize must be a positive integer");
  for (const [name, limit] of [
    ["perAddress", o.perAddress],
    ["perClient", o.perClient],
  ] as const) {
    if (!(limit.requests > 0 && limit.periodMs > 0 && limit.burst >= 1)) {
      fail(`${name} needs requests > 0, periodMs > 0 and burst >= 1`);
    }
  }
  if (new TextEncoder().encode(o.tag).length > 64) fail("the tag is at most 64 bytes (TIP-23)");
}
