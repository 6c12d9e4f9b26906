import assert from "node:assert/strict";
import { connect } from "node:net";
import { after, before, describe, it } from "node:test";
import { issueApiToken } from "../../../src/api/auth.js";
import { addressToBech32 } from "../../../src/codec/address.js";
import { encodeBlock } from "../../../src/codec/block.js";
import { toHex } from "../../../src/codec/hex.js";
import { closeMinerPool, minerPool, powDigest, withNonce } from "../../../src/pow/index.js";
import { assertError, CORE, type Harness, openHarness } from "../../helpers/coreHarness.js";
import { devWallet } from "../../helpers/wallet.js";
import { BLOCKS, type Ctx, JSON_TYPE, MIN_POW, type Of } from "./badInputCases.js";
import { ROUTE_ROWS } from "./badInputRoutes.js";
import { SUBMIT_ROWS } from "./badInputSubmit.js";

/**
 * Bad input of every kind against every route group, as a table: each row
 * `{route, method, headers, body, status, detailsPattern}` is one request and the exact answer
 * (status, the spec's error shape, and what `details` must say). Nothing may answer 5xx, echo a
 * stack trace or leave the shape.
 */

const ROWS = [...SUBMIT_ROWS, ...ROUTE_ROWS];

describe("bad input across the routes", () => {
  let h: Harness;
  const ctx = {} as Ctx;
  const of = <T>(v: Of<T>): T => (typeof v === "function" ? (v as (c: Ctx) => T)(ctx) : v);

  before(async () => {
    h = await openHarness({ minPowScore: MIN_POW, powWorkers: 1 });
    const ms = await h.node.coordinator.issueMilestone();
    ctx.tips = h.node.tangle.selectParents().map(toHex);
    const unmined = encodeBlock({
      protocolVersion: 2,
      parents: h.node.tangle.selectParents(),
      payload: { type: 5, tag: Uint8Array.of(0x0a), data: new Uint8Array() },
      nonce: 0n,
    });
    const nonce = await minerPool().mine(powDigest(unmined), MIN_POW, unmined.length, { workers: 1 });
    ctx.mined = withNonce(unmined, nonce);
    ctx.token = await issueApiToken(h.node.jwtSecret);
    ctx.address = addressToBech32(devWallet().address, "tst");
    const stored = (await h.app.inject(`${CORE}/milestones/by-index/${ms.index}`)).json();
    ctx.milestone = { ...stored, index: ms.index + 1, previousMilestoneId: toHex(ms.milestoneId) };
  });
  after(async () => {
    await h.close();
    await closeMinerPool();
  });

  it(`covers at least 50 kinds of bad input (${ROWS.length})`, () => {
    assert.ok(ROWS.length >= 50);
    assert.equal(new Set(ROWS.map((r) => r.name)).size, ROWS.length, "row names are unique");
  });

  for (const row of ROWS) {
    it(`${row.name}: ${row.status}`, async () => {
      const body = of(row.body);
      const res = await h.app.inject({
        method: row.method ?? "GET",
        url: of(row.route),
        headers: of(row.headers) ?? {},
        ...(body === undefined ? {} : { payload: body as string | Buffer }),
      });
      assertError(res, row.status, row.detailsPattern);
    });
  }

  it("answers HEAD like GET without a body, and refuses it in the error shape where GET is refused", async () => {
    const ok = await h.app.inject({ method: "HEAD", url: `${CORE}/info` });
    assert.equal(ok.statusCode, 200);
    assert.equal(ok.body, "");
    for (const url of [`${CORE}/nothing`, `${BLOCKS}/0x12`]) {
      const res = await h.app.inject({ method: "HEAD", url });
      assert.ok(res.statusCode === 404 || res.statusCode === 400, `${url}: ${res.statusCode}`);
      assert.match(String(res.headers["content-type"]), /^application\/json/);
      assert.equal(res.body, "");
    }
  });

  it("answers what the HTTP parser refuses in the error shape too (over a socket)", async () => {
    await h.app.listen({ host: "127.0.0.1", port: 0 });
    const { port } = h.app.server.address() as { port: number };
    const raw = (text: string) =>
      new Promise<string>((resolve) => {
        const socket = connect(port, "127.0.0.1", () => socket.write(text));
        let answer = "";
        socket.on("data", (chunk) => {
          answer += chunk;
        });
        socket.on("close", () => resolve(answer));
        socket.on("error", () => resolve(answer));
      });
    for (const [request, reason] of [
      ["GARBAGE\r\n\r\n", "the request is not valid HTTP"],
      [`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`, "the request headers are too large"],
    ]) {
      const answer = await raw(request!);
      assert.match(answer, /^HTTP\/1\.1 400 /);
      assert.deepEqual(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4)), {
        error: { code: 400, message: "invalid data provided", details: reason },
      });
    }
  });

  it("ignores a small body on a GET route", async () => {
    const res = await h.app.inject({ method: "GET", url: `${CORE}/info`, headers: JSON_TYPE, payload: "{not json" });
    assert.equal(res.statusCode, 200);
  });
});
