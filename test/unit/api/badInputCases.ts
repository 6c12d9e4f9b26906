import type { InjectOptions } from "fastify";
import { transactionToJson } from "../../../src/codec/transaction.js";
import { BINARY, basicTo, CORE, devTransaction } from "../../helpers/coreHarness.js";
import { devWallet } from "../../helpers/wallet.js";

/**
 * The vocabulary of the bad-input table (badInput.test.ts): a row is one request and the exact
 * answer it must get. Requests that need what only a running node knows (its tips, a mined
 * block, a token) take it from the context the test prepares.
 */

export const MIN_POW = 100;
export const JSON_TYPE = { "content-type": "application/json" };
export const BIN = { "content-type": BINARY };
export const TEXT = { "content-type": "text/plain" };
/** A 32-byte ID of one repeated byte. */
export const H = (n: number) => `0x${n.toString(16).padStart(2, "0").repeat(32)}`;
export const tagged = (tag = "0x01", data = "0x") => ({ type: 5, tag, data });

export interface Ctx {
  tips: string[];
  /** A tagged-data block mined to MIN_POW over the tips. */
  mined: Uint8Array;
  token: string;
  /** The dev key's bech32 address. */
  address: string;
  /** The latest milestone's payload with the next index: not signed for it. */
  milestone: Record<string, unknown> & { parents: string[] };
}

export type Of<T> = T | ((c: Ctx) => T);

export interface Row {
  /** What kind of bad input the row is. */
  name: string;
  route: Of<string>;
  method?: InjectOptions["method"];
  headers?: Of<Record<string, string>>;
  body?: Of<unknown>;
  status: 400 | 403 | 404;
  detailsPattern: RegExp;
}

export const BLOCKS = `${CORE}/blocks`;
export const SNAPSHOT = `${CORE}/control/snapshot/create`;
export const PRUNE = `${CORE}/control/database/prune`;
export const PEERS = `${CORE}/peers`;
export const BASIC = "/api/indexer/v1/outputs/basic";
export const MILESTONES = "/api/explorer/v2/milestones";
export const FAUCET_ENQUEUE = "/api/faucet/v1/enqueue";

/** A POST to the faucet's enqueue route (a body as sent, JSON unless `headers` say otherwise). */
export const faucet = (body: string, headers: Record<string, string> = JSON_TYPE) => ({
  route: FAUCET_ENQUEUE,
  method: "POST" as const,
  headers,
  body,
});

export const post = (body: Of<unknown>, headers: Of<Record<string, string>> = JSON_TYPE) => ({
  route: BLOCKS,
  method: "POST" as const,
  headers,
  body,
});
/** A JSON body: a value, or one made from the context. */
type JsonBody = Record<string, unknown> | unknown[] | number | null | ((c: Ctx) => Record<string, unknown>);
export const json = (body: JsonBody) =>
  post(typeof body === "function" ? (c: Ctx) => JSON.stringify(body(c)) : JSON.stringify(body));
export const bytes = (b: Of<Uint8Array>) =>
  post(typeof b === "function" ? (c: Ctx) => Buffer.from(b(c)) : Buffer.from(b), BIN);
export const snapshot = (body: unknown, auth = true) => ({
  route: SNAPSHOT,
  method: "POST" as const,
  headers: (c: Ctx) => ({ ...JSON_TYPE, ...(auth ? { authorization: `Bearer ${c.token}` } : {}) }),
  body: typeof body === "string" ? body : JSON.stringify(body),
});

/** A POST of a JSON body to a protected route, with the context's token unless `auth` is false. */
export const protectedJson = (route: string, body: unknown, auth = true) => ({
  route,
  method: "POST" as const,
  headers: (c: Ctx) => ({ ...JSON_TYPE, ...(auth ? { authorization: `Bearer ${c.token}` } : {}) }),
  body: typeof body === "string" ? body : JSON.stringify(body),
});

/** A signed transaction of the dev key on `network` (its input need not exist). */
export function transactionOn(network: string, outputs?: ReturnType<typeof basicTo>[]) {
  const dev = devWallet();
  const input = { outputId: new Uint8Array(34).fill(1), output: basicTo(dev.address.pubKeyHash, 1_000_000n) };
  const outs = outputs ?? [basicTo(dev.address.pubKeyHash, 1_000_000n)];
  return transactionToJson(devTransaction([input], outs, dev.keyPair, network));
}
