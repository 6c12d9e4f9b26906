import assert from "node:assert/strict";
import { issueApiToken } from "../../../src/api/auth.js";
import { addressToBech32 } from "../../../src/codec/address.js";
import { toHex } from "../../../src/codec/hex.js";
import { computeTransactionId, outputIdFromParts } from "../../../src/codec/ids.js";
import { GENESIS_OUTPUT_ID } from "../../../src/node/devNetwork.js";
import { CORE, genesisPayment, type Harness, postTransaction } from "../../helpers/coreHarness.js";

/**
 * Real answers of the routes checked against the schemas the OpenAPI document publishes for
 * them, with a small checker of the JSON Schema keywords the document uses.
 */

// biome-ignore lint/suspicious/noExplicitAny: schemas and answers are JSON walked field by field
type Json = Record<string, any>;

function typeOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

/** Where `value` breaks `schema` (OpenAPI 3.0 flavour: `nullable`), or nothing. */
export function conformance(schema: Json, value: unknown, at = "$"): string[] {
  if (value === null && schema.nullable) return [];
  const type = typeOf(value);
  if (schema.type && !(schema.type === type || (schema.type === "number" && type === "integer"))) {
    return [`${at}: ${type}, expected ${schema.type}`];
  }
  const out: string[] = [];
  if (schema.enum && !schema.enum.includes(value)) out.push(`${at}: ${String(value)} is not in the enum`);
  if (schema.pattern && typeof value === "string" && !new RegExp(schema.pattern).test(value)) {
    out.push(`${at}: "${value}" does not match ${schema.pattern}`);
  }
  if (typeof value === "number") {
    if (schema.minimum !== undefined && value < schema.minimum) out.push(`${at}: below ${schema.minimum}`);
    if (schema.maximum !== undefined && value > schema.maximum) out.push(`${at}: above ${schema.maximum}`);
  }
  if (type === "array" && schema.items) {
    (value as unknown[]).forEach((v, i) => {
      out.push(...conformance(schema.items, v, `${at}[${i}]`));
    });
  }
  if (type === "object") {
    const o = value as Json;
    for (const name of schema.required ?? []) if (!(name in o)) out.push(`${at}.${name}: missing`);
    for (const [name, v] of Object.entries(o)) {
      const p = schema.properties?.[name];
      if (p) out.push(...conformance(p, v, `${at}.${name}`));
      else if (schema.additionalProperties === false) out.push(`${at}.${name}: not described`);
    }
  }
  return out;
}

/** Builds a little history through the API, then checks the answer of every documented GET. */
export async function checkAnswers(h: Harness, ops: Map<string, Json>): Promise<void> {
  const tx = genesisPayment(new Uint8Array(32).fill(6), 1_000_000n);
  const submit = await postTransaction(h.app, tx);
  check(ops, "POST /api/core/v2/blocks", submit);
  const blockId = submit.json().blockId as string;
  const ms = await h.node.coordinator.issueMilestone();
  const txId = toHex(computeTransactionId(tx));
  const outputId = toHex(outputIdFromParts(computeTransactionId(tx), 1));
  const genesis = toHex(GENESIS_OUTPUT_ID);
  const receiver = addressToBech32(
    { type: 0, pubKeyHash: new Uint8Array(32).fill(6) },
    h.node.tangle.protocolParameters.bech32Hrp,
  );

  const reads: [string, string][] = [
    ["GET /health", "/health"],
    ["GET /api/routes", "/api/routes"],
    ["GET /api/core/v2/info", `${CORE}/info`],
    ["GET /api/core/v2/tips", `${CORE}/tips`],
    ["GET /api/core/v2/blocks/{blockId}", `${CORE}/blocks/${blockId}`],
    ["GET /api/core/v2/blocks/{blockId}/metadata", `${CORE}/blocks/${blockId}/metadata`],
    ["GET /api/core/v2/blocks/{blockId}/metadata", `${CORE}/blocks/${toHex(ms.blockId)}/metadata`],
    ["GET /api/core/v2/transactions/{transactionId}/included-block", `${CORE}/transactions/${txId}/included-block`],
    [
      "GET /api/core/v2/transactions/{transactionId}/included-block/metadata",
      `${CORE}/transactions/${txId}/included-block/metadata`,
    ],
    ["GET /api/core/v2/outputs/{outputId}", `${CORE}/outputs/${outputId}`],
    ["GET /api/core/v2/outputs/{outputId}/metadata", `${CORE}/outputs/${genesis}/metadata`],
    ["GET /api/core/v2/milestones/{milestoneId}", `${CORE}/milestones/${toHex(ms.milestoneId)}`],
    [
      "GET /api/core/v2/milestones/{milestoneId}/utxo-changes",
      `${CORE}/milestones/${toHex(ms.milestoneId)}/utxo-changes`,
    ],
    ["GET /api/core/v2/milestones/by-index/{index}", `${CORE}/milestones/by-index/${ms.index}`],
    [
      "GET /api/core/v2/milestones/by-index/{index}/utxo-changes",
      `${CORE}/milestones/by-index/${ms.index}/utxo-changes`,
    ],
    ["GET /api/core/v3/outputs/{outputId}/full", `/api/core/v3/outputs/${genesis}/full`],
    ["GET /api/core/v3/outputs/{outputId}/full", `/api/core/v3/outputs/${outputId}/full`],
    ["GET /api/indexer/v1/outputs", "/api/indexer/v1/outputs?pageSize=1"],
    ["GET /api/indexer/v1/outputs/basic", "/api/indexer/v1/outputs/basic?pageSize=1"],
    ["GET /api/indexer/v1/outputs/alias", "/api/indexer/v1/outputs/alias"],
    ["GET /api/indexer/v1/outputs/foundry", "/api/indexer/v1/outputs/foundry"],
    ["GET /api/indexer/v1/outputs/nft", "/api/indexer/v1/outputs/nft"],
    ["GET /api/indexer/v1/outputs/alias/{aliasId}", `/api/indexer/v1/outputs/alias/0x${"ab".repeat(32)}`],
    ["GET /api/indexer/v1/outputs/nft/{nftId}", `/api/indexer/v1/outputs/nft/0x${"ab".repeat(32)}`],
    ["GET /api/indexer/v1/outputs/foundry/{foundryId}", `/api/indexer/v1/outputs/foundry/0x${"ab".repeat(38)}`],
    ["GET /api/irc-metadata/v1/nfts/{nftId}", `/api/irc-metadata/v1/nfts/0x${"ab".repeat(32)}`],
    ["GET /api/irc-metadata/v1/tokens/{tokenId}", `/api/irc-metadata/v1/tokens/0x08${"ab".repeat(36)}00`],
    ["GET /api/explorer/v2/milestones", "/api/explorer/v2/milestones?pageSize=1"],
    ["GET /api/explorer/v2/milestones", "/api/explorer/v2/milestones"],
    [
      "GET /api/explorer/v2/milestones/{milestoneId}/blocks",
      `/api/explorer/v2/milestones/${toHex(ms.milestoneId)}/blocks?pageSize=1`,
    ],
    [
      "GET /api/explorer/v2/milestones/by-index/{index}/blocks",
      `/api/explorer/v2/milestones/by-index/${ms.index}/blocks`,
    ],
    ["GET /api/explorer/v2/blocks/{blockId}/children", `/api/explorer/v2/blocks/${blockId}/children`],
    ["GET /api/explorer/v2/balance/{address}", `/api/explorer/v2/balance/${receiver}`],
    [
      "GET /api/explorer/v2/ledger/updates/by-milestone/{milestoneId}",
      `/api/explorer/v2/ledger/updates/by-milestone/${toHex(ms.milestoneId)}?pageSize=1`,
    ],
    [
      "GET /api/explorer/v2/ledger/updates/by-address/{address}",
      `/api/explorer/v2/ledger/updates/by-address/${receiver}?pageSize=1`,
    ],
    ["GET /api/explorer/v2/ledger/richest-addresses", "/api/explorer/v2/ledger/richest-addresses?top=1"],
    ["GET /api/explorer/v2/ledger/token-distribution", "/api/explorer/v2/ledger/token-distribution"],
    ["GET /api/faucet/v1/info", "/api/faucet/v1/info"],
    ["GET /api/dashboard/v1/node", "/api/dashboard/v1/node"],
    ["GET /api/dev/v1/accounts", "/api/dev/v1/accounts"],
    ["GET /api/dev/v1/time", "/api/dev/v1/time"],
    ["GET /api/dev/v1/state", "/api/dev/v1/state"],
    [
      "GET /api/explorer/v2/ledger/updates/by-address/{address}",
      `/api/explorer/v2/ledger/updates/by-address/${receiver}?startMilestoneIndex=${ms.index}`,
    ],
    ["GET /api/explorer/v2/ledger/richest-addresses", "/api/explorer/v2/ledger/richest-addresses?ledgerIndex=0"],
    ["GET /api/explorer/v2/ledger/token-distribution", "/api/explorer/v2/ledger/token-distribution?ledgerIndex=0"],
    ["GET /api/core/v2/receipts", `${CORE}/receipts`],
    ["GET /api/core/v2/receipts/{migratedAt}", `${CORE}/receipts/${ms.index}`],
    ["GET /api/core/v2/treasury", `${CORE}/treasury`],
    ["GET /api/poi/v1/create/{blockId}", `/api/poi/v1/create/${blockId}`],
  ];
  const seen = new Set<string>();
  for (const [op, url] of reads) {
    check(ops, op, await h.app.inject(url));
    seen.add(op);
  }
  // protected by default: with a token, and without one (403)
  const authorization = `Bearer ${await issueApiToken(h.node.jwtSecret)}`;
  for (const [op, url] of [
    ["GET /api/core/v2/peers", `${CORE}/peers`],
    ["GET /api/core/v2/peers/{peerId}", `${CORE}/peers/12D3KooWNoSuchPeer`],
    ["GET /metrics", "/metrics"],
    ["GET /api/spammer/v1/status", "/api/spammer/v1/status"],
  ] as const) {
    if (!ops.has(op)) continue;
    check(ops, op, await h.app.inject({ url, headers: { authorization } }));
    check(ops, op, await h.app.inject(url));
    seen.add(op);
  }
  // a proof of inclusion checked (200) and a body that is not one (400)
  const proof = (await h.app.inject(`/api/poi/v1/create/${blockId}`)).json() as object;
  const validate = (payload: object) => h.app.inject({ method: "POST", url: "/api/poi/v1/validate", payload });
  check(ops, "POST /api/poi/v1/validate", await validate(proof));
  check(ops, "POST /api/poi/v1/validate", await validate({ ...proof, proof: {} }));
  // the faucet takes a request for an address holding less than its maximum (202)
  const enqueue = { method: "POST" as const, url: "/api/faucet/v1/enqueue", payload: { address: receiver } };
  check(ops, "POST /api/faucet/v1/enqueue", await h.app.inject(enqueue));
  // the dev routes' writes, in an order that leaves the node where it was
  const post = (url: string, payload?: object) =>
    h.app.inject({ method: "POST", url, ...(payload ? { payload } : {}) });
  const saved = await post("/api/dev/v1/state");
  check(ops, "POST /api/dev/v1/state", saved);
  check(ops, "POST /api/dev/v1/milestones", await post("/api/dev/v1/milestones", { count: 1 }));
  check(ops, "POST /api/dev/v1/milestones", await post("/api/dev/v1/milestones", { count: 0 }));
  check(ops, "POST /api/dev/v1/time", await post("/api/dev/v1/time", { increaseSeconds: 60 }));
  check(ops, "POST /api/dev/v1/time", await post("/api/dev/v1/time", { timestamp: 1 }));
  const id = (saved.json() as { id: string }).id;
  check(ops, "POST /api/dev/v1/state/{id}/revert", await post(`/api/dev/v1/state/${id}/revert`));
  check(ops, "POST /api/dev/v1/state/{id}/revert", await post(`/api/dev/v1/state/${id}/revert`));
  // the spammer: a refused start (400), a start at 1 block/s and its stop (202), with the token
  const spam = (url: string, payload?: object) =>
    h.app.inject({ method: "POST", url, headers: { authorization }, ...(payload ? { payload } : {}) });
  check(ops, "POST /api/spammer/v1/start", await spam("/api/spammer/v1/start", { bpsRateLimit: 0 }));
  check(ops, "POST /api/spammer/v1/start", await spam("/api/spammer/v1/start", { bpsRateLimit: 1 }));
  check(ops, "POST /api/spammer/v1/stop", await spam("/api/spammer/v1/stop"));
  check(ops, "POST /api/spammer/v1/stop", await h.app.inject({ method: "POST", url: "/api/spammer/v1/stop" }));
  // every documented GET was asked at least once
  for (const op of ops.keys()) if (op.startsWith("GET ")) assert.ok(seen.has(op), `${op} was checked`);
}

function check(
  ops: Map<string, Json>,
  op: string,
  res: { statusCode: number; body: string; headers: Record<string, unknown>; json(): unknown },
): void {
  const response = ops.get(op)?.responses?.[String(res.statusCode)];
  assert.ok(response, `${op}: status ${res.statusCode} is documented (${res.body.slice(0, 200)})`);
  // a text answer (the Prometheus metrics): the documented media type, some text
  if (response.content?.["text/plain"]) {
    assert.match(String(res.headers["content-type"]), /^text\/plain/, op);
    assert.ok(res.body.length > 0, `${op}: a text body`);
    return;
  }
  const schema = response.content?.["application/json"]?.schema;
  if (!schema) {
    assert.equal(res.body, "", `${op}: an answer without content has no body`);
    return;
  }
  const problems = conformance(schema, res.json());
  assert.deepEqual(problems, [], `${op}: ${res.body.slice(0, 300)}`);
}
