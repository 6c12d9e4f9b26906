import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from "fastify";
import { registerAuth } from "../../../src/api/auth.js";
import { registerErrorHandling } from "../../../src/api/errors.js";
import {
  COMPRESSION_INLINE_LIMIT,
  COMPRESSION_THRESHOLD,
  DebugRequestLog,
  requestLogger,
} from "../../../src/api/httpConventions.js";
import { OPENAPI_PATH } from "../../../src/api/openapi.js";
import { buildExplorerServer, buildServer, defaultApiServerOptions } from "../../../src/api/server.js";
import { parseArgs } from "../../../src/cli/flags.js";
import { fromHex } from "../../../src/codec/hex.js";
import { BINARY, CORE, type Harness, openHarness } from "../../helpers/coreHarness.js";

/**
 * The HTTP conventions every server of the API shares (httpConventions.ts): CORS headers and
 * preflights, protected routes included, origins restricted by `--api-cors-origins`, and answers
 * compressed as `Accept-Encoding` asks when they are large, never when they are small or binary.
 */

const WALLET = "https://wallet.example";
const EVIL = "https://evil.example";
const MILESTONES = `/api/explorer/v2/milestones?pageSize=30&sort=oldest`;

const preflight = (app: FastifyInstance, url: string, origin: string, headers = "content-type") =>
  app.inject({
    method: "OPTIONS",
    url,
    headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": headers },
  });

function decode(res: LightMyRequestResponse): Buffer {
  const raw = res.rawPayload;
  switch (res.headers["content-encoding"]) {
    case "gzip":
      return gunzipSync(raw);
    case "br":
      return brotliDecompressSync(raw);
    case "deflate":
      return inflateSync(raw);
    default:
      return raw;
  }
}

describe("HTTP conventions: CORS, compression", () => {
  let h: Harness;
  /** The same node behind a server that allows two origins only. */
  let restricted: FastifyInstance;
  let explorer: FastifyInstance;
  let bigBlockId: string;

  before(async () => {
    h = await openHarness({ minPowScore: 0 });
    for (let i = 0; i < 30; i++) await h.node.coordinator.issueMilestone();
    const origins = [WALLET, "http://localhost:3000"];
    restricted = buildServer(h.node, "silent", { ...defaultApiServerOptions, cors: { origins } });
    explorer = buildExplorerServer(h.node, "silent", { origins });
    // a block whose bytes are well above the compression threshold
    const data = `0x${"5a".repeat(3 * COMPRESSION_THRESHOLD)}`;
    const res = await h.app.inject({
      method: "POST",
      url: `${CORE}/blocks`,
      payload: { protocolVersion: 2, payload: { type: 5, tag: "0x74", data } },
    });
    assert.equal(res.statusCode, 201, res.body);
    bigBlockId = res.json().blockId;
  });
  after(async () => {
    await restricted.close();
    await explorer.close();
    await h.close();
  });

  describe("CORS", () => {
    it("allows any origin by default and lets a script read where a submitted block is", async () => {
      const res = await h.app.inject({ url: `${CORE}/info`, headers: { origin: WALLET } });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers["access-control-allow-origin"], "*");
      assert.equal(res.headers["access-control-expose-headers"], "Location");
      // an error answer carries it too, so a page can read why it was refused
      const missing = await h.app.inject({ url: `${CORE}/blocks/0x${"00".repeat(32)}`, headers: { origin: WALLET } });
      assert.equal(missing.statusCode, 404);
      assert.equal(missing.headers["access-control-allow-origin"], "*");
    });

    it("answers a preflight with the methods and headers the API takes", async () => {
      const res = await preflight(h.app, `${CORE}/blocks`, WALLET, "content-type,authorization");
      assert.equal(res.statusCode, 204);
      assert.equal(res.headers["access-control-allow-origin"], "*");
      assert.equal(res.headers["access-control-allow-methods"], "GET, HEAD, PUT, PATCH, POST, DELETE");
      assert.equal(res.headers["access-control-allow-headers"], "Authorization, Content-Type");
      assert.equal(res.body, "");
    });

    it("answers the preflight of a protected route, whose request itself still needs the JWT", async () => {
      for (const url of [`${CORE}/control/snapshot/create`, `${CORE}/peers`, `${CORE}/peers/someone`]) {
        const res = await preflight(h.app, url, WALLET, "authorization,content-type");
        assert.equal(res.statusCode, 204, `${url}: ${res.body}`);
        assert.equal(res.headers["access-control-allow-origin"], "*");
        assert.match(String(res.headers["access-control-allow-headers"]), /Authorization/);
      }
      const denied = await h.app.inject({
        method: "POST",
        url: `${CORE}/control/snapshot/create`,
        headers: { origin: WALLET },
        payload: { index: 1 },
      });
      assert.equal(denied.statusCode, 403);
      assert.equal(denied.headers["access-control-allow-origin"], "*");
    });

    it("the access check lets a preflight pass, and only a preflight, whichever hook runs first", async () => {
      const app = Fastify({ logger: false });
      registerErrorHandling(app);
      registerAuth(app, h.node);
      app.options(`${CORE}/peers`, (_request, reply) => reply.code(204).send());
      const res = await preflight(app, `${CORE}/peers`, WALLET);
      assert.equal(res.statusCode, 204);
      const notPreflight = await app.inject({ method: "OPTIONS", url: `${CORE}/peers`, headers: { origin: WALLET } });
      assert.equal(notPreflight.statusCode, 403);
      await app.close();
    });

    it("an OPTIONS request that is no preflight gets no body outside the error shape", async () => {
      const res = await h.app.inject({ method: "OPTIONS", url: `${CORE}/info` });
      assert.equal(res.statusCode, 204);
      assert.equal(res.body, "");
    });

    for (const which of ["API", "explorer"] as const) {
      it(`with a list of origins (${which} server): a listed origin is named, another gets no allow header`, async () => {
        const app = which === "API" ? restricted : explorer;
        const url = `/api/explorer/v2/milestones?pageSize=1`;
        const ok = await app.inject({ url, headers: { origin: WALLET } });
        assert.equal(ok.statusCode, 200);
        assert.equal(ok.headers["access-control-allow-origin"], WALLET);
        assert.match(String(ok.headers.vary), /origin/i);
        const other = await app.inject({ url, headers: { origin: EVIL } });
        // the answer is the same (CORS keeps a browser page from reading it, nothing else)
        assert.equal(other.statusCode, 200);
        assert.equal(other.headers["access-control-allow-origin"], undefined);
        assert.equal((await preflight(app, url, EVIL)).headers["access-control-allow-origin"], undefined);
        const listed = await preflight(app, url, "http://localhost:3000");
        assert.equal(listed.statusCode, 204);
        assert.equal(listed.headers["access-control-allow-origin"], "http://localhost:3000");
      });
    }

    it("the explorer server allows any origin by default", async () => {
      const app = buildExplorerServer(h.node, "silent");
      const res = await app.inject({ url: "/api/explorer/v2/milestones?pageSize=1", headers: { origin: EVIL } });
      assert.equal(res.headers["access-control-allow-origin"], "*");
      assert.equal((await preflight(app, "/api/explorer/v2/milestones", EVIL)).statusCode, 204);
      await app.close();
    });
  });

  describe("compression", () => {
    it("compresses a large answer as Accept-Encoding asks, decoding to the same JSON", async () => {
      const plain = await h.app.inject({ url: MILESTONES });
      assert.equal(plain.statusCode, 200);
      assert.equal(plain.headers["content-encoding"], undefined, "no Accept-Encoding: sent as it is");
      assert.equal(Number(plain.headers["content-length"]), plain.rawPayload.length);
      assert.ok(plain.rawPayload.length > 2 * COMPRESSION_THRESHOLD, `${plain.rawPayload.length} bytes`);
      assert.equal(plain.json().items.length, 30);
      const cases: [string, string][] = [
        ["gzip", "gzip"],
        ["br", "br"],
        ["deflate", "deflate"],
        ["gzip, deflate, br", "br"],
        ["gzip;q=1, br;q=0.5", "gzip"],
      ];
      for (const [accept, expected] of cases) {
        for (const app of [h.app, explorer]) {
          const res = await app.inject({ url: MILESTONES, headers: { "accept-encoding": accept } });
          assert.equal(res.statusCode, 200);
          assert.equal(res.headers["content-encoding"], expected, accept);
          assert.match(String(res.headers.vary), /accept-encoding/i);
          assert.ok(res.rawPayload.length < plain.rawPayload.length / 2, `${accept}: ${res.rawPayload.length} bytes`);
          assert.deepEqual(JSON.parse(decode(res).toString("utf8")), plain.json());
        }
      }
      // identity, or an encoding the node does not offer: as it is
      for (const accept of ["identity", "compress", "zstd"]) {
        const res = await h.app.inject({ url: MILESTONES, headers: { "accept-encoding": accept } });
        assert.equal(res.headers["content-encoding"], undefined, accept);
        assert.deepEqual(res.json(), plain.json());
      }
    });

    it("compresses an answer above the inline limit through a stream, and one below it in one piece", async () => {
      const plain = await h.app.inject({ url: OPENAPI_PATH });
      assert.ok(plain.rawPayload.length > COMPRESSION_INLINE_LIMIT, `${plain.rawPayload.length} bytes`);
      for (const accept of ["gzip", "br"]) {
        const res = await h.app.inject({ url: OPENAPI_PATH, headers: { "accept-encoding": accept } });
        assert.equal(res.headers["content-encoding"], accept);
        assert.equal(res.headers["content-length"], undefined, "streamed");
        assert.deepEqual(JSON.parse(decode(res).toString("utf8")), plain.json());
      }
      const inline = await h.app.inject({ url: MILESTONES, headers: { "accept-encoding": "gzip" } });
      assert.equal(Number(inline.headers["content-length"]), inline.rawPayload.length, "compressed in one piece");
    });

    it("sends small answers as they are", async () => {
      for (const url of ["/api/routes", `${CORE}/tips`, "/health", `${CORE}/blocks/0x${"00".repeat(32)}`]) {
        const res = await h.app.inject({ url, headers: { "accept-encoding": "gzip, br" } });
        assert.ok(res.rawPayload.length < COMPRESSION_THRESHOLD, url);
        assert.equal(res.headers["content-encoding"], undefined, url);
      }
    });

    it("sends a block's bytes as they are, its JSON compressed", async () => {
      const bytes = (await h.node.tangle.getBlockBytes(fromHex(bigBlockId, "id")))!;
      assert.ok(bytes.length > 2 * COMPRESSION_THRESHOLD);
      const raw = await h.app.inject({
        url: `${CORE}/blocks/${bigBlockId}`,
        headers: { accept: BINARY, "accept-encoding": "gzip, br" },
      });
      assert.equal(raw.headers["content-type"], BINARY);
      assert.equal(raw.headers["content-encoding"], undefined);
      assert.deepEqual(new Uint8Array(raw.rawPayload), bytes);
      const json = await h.app.inject({ url: `${CORE}/blocks/${bigBlockId}`, headers: { "accept-encoding": "gzip" } });
      assert.equal(json.headers["content-encoding"], "gzip");
      const plain = await h.app.inject({ url: `${CORE}/blocks/${bigBlockId}` });
      assert.deepEqual(JSON.parse(decode(json).toString("utf8")), plain.json());
    });

    it("still refuses a compressed request body", async () => {
      const res = await h.app.inject({
        method: "POST",
        url: `${CORE}/blocks`,
        headers: { "content-type": "application/json", "content-encoding": "gzip", "accept-encoding": "gzip" },
        payload: Buffer.from([0x1f, 0x8b, 0x08, 0x00]),
      });
      assert.equal(res.statusCode, 400);
      assert.match(res.json().error.details, /content encoding "gzip" is not supported/);
    });
  });

  describe("--api-cors-origins", () => {
    it("defaults to any origin and takes a list, each written as a browser sends it", () => {
      assert.deepEqual(parseArgs([], {}).options.apiCorsOrigins, ["*"]);
      const { options } = parseArgs(
        ["--api-cors-origins", "https://Wallet.Example:443/,http://localhost:3000", "--api-cors-origins", "*"],
        {},
      );
      assert.deepEqual(options.apiCorsOrigins, ["https://wallet.example", "http://localhost:3000", "*"]);
      assert.deepEqual(parseArgs([], { LEDGER_NODE_API_CORS_ORIGINS: "" }).options.apiCorsOrigins, []);
    });

    it("refuses what is no origin: it would never match", () => {
      for (const bad of ["wallet.example", "https://wallet.example/app", "https://a.example?x=1", "ftp://a.example"]) {
        assert.throws(() => parseArgs(["--api-cors-origins", bad], {}), /takes origins/, bad);
      }
    });
  });
});

describe("request logs", () => {
  /** A server as the API builds its logger, writing its lines here; one route that fails. */
  async function logged(level: string) {
    const lines: Record<string, unknown>[] = [];
    const raw: string[] = [];
    const stream = {
      write: (line: string) => {
        raw.push(line);
        lines.push(JSON.parse(line));
      },
    };
    const app = Fastify({
      logger: { level, stream },
      logController: new DebugRequestLog(),
      childLoggerFactory: requestLogger,
    });
    registerErrorHandling(app);
    const loggers: unknown[] = [];
    app.addHook("onRequest", (request, _reply, done) => {
      loggers.push(request.log);
      done();
    });
    app.get("/fails", () => {
      throw new Error("a bug");
    });
    app.get("/fine", () => ({ ok: true }));
    await app.ready();
    return { app, lines, raw, loggers };
  }

  it("at info: no child logger per request, and an internal error names its request", async () => {
    const { app, lines, loggers } = await logged("info");
    assert.equal((await app.inject({ url: "/fine" })).statusCode, 200);
    assert.equal(loggers[0], app.log, "the server's own logger");
    const failed = await app.inject({ url: "/fails" });
    assert.equal(failed.statusCode, 500);
    const errors = lines.filter((l) => l.msg === "internal error");
    assert.equal(errors.length, 1);
    assert.match(String(errors[0]!.reqId), /^req-/);
    assert.equal(lines.filter((l) => l.msg === "request completed").length, 0);
    await app.close();
  });

  it("at debug: each request's lines carry its ID, once", async () => {
    const { app, lines, raw, loggers } = await logged("debug");
    assert.equal((await app.inject({ url: "/fine" })).statusCode, 200);
    assert.notEqual(loggers[0], app.log, "a child of the server's logger");
    const completed = lines.filter((l) => l.msg === "request completed");
    assert.equal(completed.length, 1);
    assert.match(String(completed[0]!.reqId), /^req-/);
    assert.equal((await app.inject({ url: "/fails" })).statusCode, 500);
    const error = raw.find((l) => l.includes('"internal error"'));
    assert.equal(error?.match(/"reqId"/g)?.length, 1, `one reqId in ${error}`);
    await app.close();
  });
});
