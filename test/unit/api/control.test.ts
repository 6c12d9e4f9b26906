import assert from "node:assert/strict";
import { stat } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import type { FastifyInstance } from "fastify";
import { parseSnapshotRequest } from "../../../src/api/routes/control.js";
import { TestLedger } from "../../helpers/ledgerFixture.js";

const URL = "/api/core/v2/control/snapshot/create";

describe("POST /api/core/v2/control/snapshot/create", () => {
  let ledger: TestLedger;
  let app: FastifyInstance;
  let token: string;

  const create = (body: unknown, headers: Record<string, string> = { authorization: `Bearer ${token}` }) =>
    app.inject({
      method: "POST",
      url: URL,
      headers: { "content-type": "application/json", ...headers },
      payload: typeof body === "string" ? body : JSON.stringify(body),
    });

  before(async () => {
    ledger = await TestLedger.open("control");
    for (let i = 0; i < 3; i++) await ledger.milestone();
    ({ app, token } = await ledger.serve());
  });
  after(async () => {
    await ledger.close();
  });

  it("is protected by default: 403 without a token", async () => {
    const r = await create({ index: 1 }, {});
    assert.equal(r.statusCode, 403);
    assert.equal(r.json().error.message, "not available for public use");
  });

  it("validates the body: 400 for unknown fields, a missing, zero, fractional or future index, a bad type", async () => {
    for (const body of [
      {},
      { index: 0 },
      { index: -1 },
      { index: 1.5 },
      { index: "2" },
      { index: 4 },
      { index: 1, type: "incremental" },
      { index: 1, extra: true },
      [1],
      "null",
      "{not json",
    ]) {
      const r = await create(body);
      assert.equal(r.statusCode, 400, `${JSON.stringify(body)}: ${r.body}`);
      assert.equal(r.json().error.message, "invalid data provided");
    }
    const text = await app.inject({
      method: "POST",
      url: URL,
      headers: { "content-type": "text/plain", authorization: `Bearer ${token}` },
      payload: "index=1",
    });
    assert.equal(text.statusCode, 400);
  });

  it("writes full and delta snapshots: 200 with their paths, a delta older than its full snapshot is 400", async () => {
    const full1 = await create({ index: 1 });
    assert.equal(full1.statusCode, 200, full1.body);
    assert.equal(full1.json().index, 1);
    assert.ok((await stat(full1.json().filePath)).size > 0);

    const delta3 = await create({ index: 3, type: "delta" });
    assert.equal(delta3.statusCode, 200, delta3.body);
    assert.deepEqual(Object.keys(delta3.json()).sort(), ["deltaFilePath", "deltaIndex", "fullFilePath", "fullIndex"]);
    assert.equal(delta3.json().deltaIndex, 3);
    assert.equal(delta3.json().fullIndex, 1);
    assert.ok((await stat(delta3.json().deltaFilePath)).size > 0);

    // two requests at once are written one after the other, each to its own file
    const [a, b] = await Promise.all([create({ index: 2 }), create({ index: 3, type: "full" })]);
    assert.equal(a.statusCode, 200, a.body);
    assert.equal(b.statusCode, 200, b.body);
    assert.notEqual(a.json().filePath, b.json().filePath);

    const older = await create({ index: 2, type: "delta" });
    assert.equal(older.statusCode, 400, older.body);
    assert.equal(older.json().error.message, "invalid data provided");
  });

  it("reads the request shape", () => {
    assert.deepEqual(parseSnapshotRequest({ index: 7 }), { index: 7, type: "full" });
    assert.deepEqual(parseSnapshotRequest({ index: 7, type: "delta" }), { index: 7, type: "delta" });
  });
});
