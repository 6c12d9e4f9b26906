import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { FastifyInstance } from "fastify";
import { DASHBOARD_PATH } from "../../../src/api/dashboard.js";
import { STATUS_MESSAGES } from "../../../src/api/errors.js";
import { METRICS_ROUTE } from "../../../src/api/metrics/metricsRoute.js";
import { MQTT_ROUTE } from "../../../src/api/mqtt/eventApi.js";
import { OPENAPI_PATH } from "../../../src/api/openapi.js";
import type { RouteDefinition } from "../../../src/api/routeDefinition.js";
import { CONTROL_ROUTES } from "../../../src/api/routes/control.js";
import { CORE_INFO_ROUTES } from "../../../src/api/routes/core.js";
import { BLOCK_ROUTES } from "../../../src/api/routes/coreBlocks.js";
import { MILESTONE_ROUTES } from "../../../src/api/routes/coreMilestones.js";
import { OUTPUT_ROUTES } from "../../../src/api/routes/coreOutputs.js";
import { PEER_ROUTES } from "../../../src/api/routes/corePeers.js";
import { SUBMIT_BLOCK_ROUTE } from "../../../src/api/routes/coreSubmitBlock.js";
import { TREASURY_ROUTES } from "../../../src/api/routes/coreTreasury.js";
import { CORE_V3_ROUTES } from "../../../src/api/routes/coreV3.js";
import { DASHBOARD_ROUTES } from "../../../src/api/routes/dashboard.js";
import { EXPLORER_ROUTES } from "../../../src/api/routes/explorer.js";
import { EXPLORER_LEDGER_ROUTES } from "../../../src/api/routes/explorerLedger.js";
import { FAUCET_ROUTES } from "../../../src/api/routes/faucet.js";
import { IRC_METADATA_ROUTES } from "../../../src/api/routes/ircMetadata.js";
import { POI_ROUTES } from "../../../src/api/routes/poi.js";
import { NODE_ROUTES } from "../../../src/api/routes/routes.js";
import { buildExplorerServer } from "../../../src/api/server.js";
import { type Harness, openHealthyHarness } from "../../helpers/coreHarness.js";
import { checkAnswers } from "./openapiAnswers.js";

/**
 * The published OpenAPI document (`GET /api/openapi.json`) against the routes fastify serves
 * and the interface document: a valid OpenAPI 3.0 structure, every served route in it with its
 * method, the route definitions' statuses, and the statuses the spec lists for its routes.
 */

// biome-ignore lint/suspicious/noExplicitAny: the document is JSON walked field by field
type Json = Record<string, any>;
const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/** Every route of `app` as `METHOD /path/{param}` (fastify's printed route tree, HEAD left out). */
function servedRoutes(app: FastifyInstance): Set<string> {
  const out = new Set<string>();
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split("\n")) {
    const m = /^((?:│ {3}| {4})*)(?:├── |└── )(.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!m) continue;
    const depth = m[1]!.length / 4;
    stack.length = depth;
    stack.push(m[2]!);
    for (const method of m[3]?.split(", ") ?? []) {
      if (method !== "HEAD") out.add(`${method} ${stack.join("").replace(/:([A-Za-z0-9_]+)/g, "{$1}")}`);
    }
  }
  return out;
}

/** Every operation of the document as `METHOD /path`. */
function documented(doc: Json): Map<string, Json> {
  const out = new Map<string, Json>();
  for (const [path, item] of Object.entries(doc.paths as Json)) {
    for (const [method, op] of Object.entries(item as Json)) out.set(`${method.toUpperCase()} ${path}`, op);
  }
  return out;
}

/** Every `$ref` in `node` points into the document. */
function checkRefs(doc: Json, node: unknown, at: string): void {
  if (typeof node !== "object" || node === null) return;
  for (const [key, value] of Object.entries(node)) {
    if (key === "$ref") {
      assert.match(String(value), /^#\//, `${at}: only local references`);
      const target = String(value)
        .slice(2)
        .split("/")
        .reduce<unknown>((o, k) => (o as Json | undefined)?.[k], doc);
      assert.ok(target !== undefined, `${at}: ${String(value)} resolves`);
    } else checkRefs(doc, value, `${at}.${key}`);
  }
}

/** The structure OpenAPI 3.0 requires of the parts this API uses. */
function checkStructure(doc: Json): void {
  assert.match(doc.openapi, /^3\.0\.\d+$/);
  assert.equal(typeof doc.info?.title, "string");
  assert.equal(typeof doc.info?.version, "string");
  assert.equal(typeof doc.paths, "object");
  for (const [path, item] of Object.entries(doc.paths as Json)) {
    assert.match(path, /^\//, path);
    for (const [method, op] of Object.entries(item as Json)) {
      const where = `${method} ${path}`;
      assert.ok(METHODS.includes(method), `${where}: an HTTP method`);
      const responses = Object.entries(op.responses ?? {});
      assert.ok(responses.length > 0, `${where}: has responses`);
      for (const [status, response] of responses as [string, Json][]) {
        assert.match(status, /^[1-5][0-9]{2}$/, `${where}: status ${status}`);
        assert.equal(typeof response.description, "string", `${where} ${status}: a description`);
        for (const [type, media] of Object.entries(response.content ?? {}) as [string, Json][]) {
          assert.match(type, /^[a-z]+\/[a-z0-9.+-]+$/, `${where} ${status}: media type ${type}`);
          assert.equal(typeof media.schema, "object", `${where} ${status} ${type}: a schema`);
        }
      }
      const params = (op.parameters ?? []) as Json[];
      for (const p of params) {
        assert.ok(["path", "query", "header", "cookie"].includes(p.in), `${where}: parameter ${p.name} in ${p.in}`);
        assert.equal(typeof p.name, "string");
        assert.equal(typeof p.schema, "object", `${where}: parameter ${p.name} has a schema`);
      }
      for (const name of path.match(/\{[^}]+\}/g) ?? []) {
        const p = params.find((x) => x.in === "path" && `{${x.name}}` === name);
        assert.ok(p, `${where}: path parameter ${name} is described`);
        assert.equal(p.required, true, `${where}: path parameter ${name} is required`);
      }
      if (op.requestBody) {
        assert.ok(Object.keys(op.requestBody.content ?? {}).length > 0, `${where}: request body content`);
      }
    }
  }
  checkRefs(doc, doc, "document");
}

/** The error responses of an operation have the spec's shape with the status and its message. */
function checkErrorResponses(where: string, op: Json): void {
  for (const [status, response] of Object.entries(op.responses as Json) as [string, Json][]) {
    if (Number(status) < 400) continue;
    const schema = response.content?.["application/json"]?.schema;
    assert.ok(schema, `${where} ${status}: JSON error body`);
    assert.deepEqual(schema.required, ["error"], `${where} ${status}`);
    const error = schema.properties.error;
    assert.deepEqual(error.required, ["code", "message"]);
    assert.deepEqual(error.properties.code.enum, [Number(status)], `${where} ${status}: code`);
    assert.deepEqual(error.properties.message.enum, [STATUS_MESSAGES[Number(status)]], `${where} ${status}: message`);
    assert.equal(error.properties.details.type, "string");
  }
}

/** Statuses the interface document lists for its routes ("Statuses per endpoint"). */
const SPEC_STATUSES: [string, number[]][] = [
  ["POST /api/core/v2/blocks", [201, 400, 403, 500, 503]],
  ["GET /api/explorer/v2/milestones", [200, 400, 404, 500]],
  ["GET /api/indexer/v1/outputs/alias/{aliasId}", [200, 400, 403, 404, 500]],
  ["POST /api/core/v2/control/snapshot/create", [200, 400, 403, 404, 500]],
  // error statuses of the full-output read: not shown
  ["GET /api/core/v3/outputs/{outputId}/full", [200]],
];

const DEFINITIONS: RouteDefinition[] = [
  ...Object.values(NODE_ROUTES),
  ...Object.values(CORE_INFO_ROUTES),
  ...Object.values(BLOCK_ROUTES),
  SUBMIT_BLOCK_ROUTE,
  ...Object.values(OUTPUT_ROUTES),
  ...Object.values(MILESTONE_ROUTES),
  ...Object.values(CORE_V3_ROUTES),
  ...Object.values(EXPLORER_ROUTES),
  ...Object.values(CONTROL_ROUTES),
  ...Object.values(PEER_ROUTES),
  ...Object.values(TREASURY_ROUTES),
  ...Object.values(EXPLORER_LEDGER_ROUTES),
  ...Object.values(FAUCET_ROUTES),
  ...Object.values(DASHBOARD_ROUTES),
  ...Object.values(IRC_METADATA_ROUTES),
  ...Object.values(POI_ROUTES),
  METRICS_ROUTE,
];

describe("GET /api/openapi.json", () => {
  let h: Harness;
  let doc: Json;
  let ops: Map<string, Json>;

  before(async () => {
    h = await openHealthyHarness({ minPowScore: 0 });
    const res = await h.app.inject(OPENAPI_PATH);
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers["content-type"]), /^application\/json/);
    doc = res.json();
    ops = documented(doc);
  });
  after(async () => {
    await h.close();
  });

  it("is a valid OpenAPI 3.0 document, public and stable", async () => {
    checkStructure(doc);
    assert.equal(doc.info.title, "ledger-node");
    assert.deepEqual((await h.app.inject(OPENAPI_PATH)).json(), doc);
    assert.equal(
      (await h.app.inject({ url: OPENAPI_PATH, headers: { authorization: "Bearer junk" } })).statusCode,
      200,
    );
  });

  it("is written as JSON once, not at every request (a client polling it costs no serialization)", async () => {
    const stringify = JSON.stringify;
    let documents = 0;
    JSON.stringify = ((value: unknown, ...rest: never[]) => {
      if (value !== null && typeof value === "object" && "openapi" in value) documents++;
      return stringify(value, ...rest);
    }) as typeof JSON.stringify;
    try {
      for (let i = 0; i < 5; i++) assert.equal((await h.app.inject(OPENAPI_PATH)).statusCode, 200);
    } finally {
      JSON.stringify = stringify;
    }
    assert.equal(documents, 0, "the document was serialized again");
  });

  it("lists every route fastify serves with its method, and nothing else", () => {
    const served = servedRoutes(h.app);
    served.delete(`GET ${OPENAPI_PATH}`);
    // the event API's WebSocket upgrade is no HTTP operation (README, Event API)
    served.delete(`GET ${MQTT_ROUTE}`);
    // the dashboard's pages are no API operations (README, Dashboard)
    for (const route of served) if (route.startsWith(`GET ${DASHBOARD_PATH}`)) served.delete(route);
    // CORS preflights, answered on any path (httpConventions.ts), are no operation either
    served.delete("OPTIONS *");
    assert.ok(served.size >= 25, `${served.size} routes`);
    for (const route of served) assert.ok(ops.has(route), `${route} is in the document`);
    for (const op of ops.keys()) assert.ok(served.has(op), `${op} is served`);
  });

  it("describes every route's parameters, body and answers, errors in the spec's shape", () => {
    for (const [where, op] of ops) {
      assert.equal(typeof op.summary, "string", `${where}: a summary`);
      assert.ok(op.tags?.length > 0, `${where}: tagged`);
      assert.ok(
        Object.keys(op.responses).some((s) => s.startsWith("2")),
        `${where}: a success`,
      );
      for (const status of Object.keys(op.responses)) {
        if (!["200", "201", "202", "204"].includes(status))
          assert.ok(STATUS_MESSAGES[Number(status)], `${where}: ${status}`);
      }
      assert.ok(op.responses["500"], `${where}: 500`);
      assert.ok(op.responses["403"], `${where}: 403 (any route can be closed by the access patterns)`);
      if (op.parameters?.length || op.requestBody) assert.ok(op.responses["400"], `${where}: 400 for bad input`);
      checkErrorResponses(where, op);
    }
  });

  it("publishes the route definitions: method, path, summary and statuses", () => {
    for (const d of DEFINITIONS) {
      const key = `${d.method} ${d.url.replace(/:([A-Za-z0-9_]+)/g, "{$1}")}`;
      const op = ops.get(key);
      assert.ok(op, `${key} is documented`);
      assert.equal(op.summary, d.schema.summary, key);
      assert.deepEqual(Object.keys(op.responses).sort(), Object.keys(d.schema.response).sort(), key);
      const params = ((op.parameters ?? []) as Json[]).map((p) => `${p.in}:${p.name}`).sort();
      const expected = [
        ...Object.keys((d.schema.params?.properties as Json | undefined) ?? {}).map((n) => `path:${n}`),
        ...Object.keys((d.schema.querystring?.properties as Json | undefined) ?? {}).map((n) => `query:${n}`),
      ].sort();
      assert.deepEqual(params, expected, `${key}: parameters`);
    }
  });

  it("has the statuses the interface document lists for its routes", () => {
    for (const [route, statuses] of SPEC_STATUSES) {
      const op = ops.get(route);
      assert.ok(op, `${route} is documented`);
      for (const status of statuses) assert.ok(op.responses[String(status)], `${route}: ${status}`);
    }
  });

  it("documents both wire forms of block submission and of block reads", () => {
    const submit = ops.get("POST /api/core/v2/blocks")!;
    assert.deepEqual(Object.keys(submit.requestBody.content).sort(), [
      "application/json",
      "application/vnd.iota.serializer-v1",
      "application/vnd.node.serializer-v1",
    ]);
    assert.deepEqual(submit.requestBody.content["application/json"].schema.required, ["protocolVersion"]);
    assert.equal(submit.requestBody.content["application/vnd.iota.serializer-v1"].schema.format, "binary");
    assert.ok(submit.responses["201"].headers.location);
    const read = ops.get("GET /api/core/v2/blocks/{blockId}")!;
    assert.deepEqual(Object.keys(read.responses["200"].content).sort(), [
      "application/json",
      "application/vnd.iota.serializer-v1",
    ]);
    const control = ops.get("POST /api/core/v2/control/snapshot/create")!;
    assert.deepEqual(control.security, [{ bearerJwt: [] }]);
    assert.equal(doc.components.securitySchemes.bearerJwt.scheme, "bearer");
  });

  it("describes the answers the routes give", async () => {
    await checkAnswers(h, ops);
  });

  it("is served by the explorer server too, for its one route", async () => {
    const explorer = buildExplorerServer(h.node, "silent");
    try {
      const res = await explorer.inject(OPENAPI_PATH);
      assert.equal(res.statusCode, 200);
      checkStructure(res.json());
      assert.deepEqual([...documented(res.json()).keys()], ["GET /api/explorer/v2/milestones"]);
    } finally {
      await explorer.close();
    }
  });
});
