import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { buildServer } from "../../../src/api/server.js";
import { closeMinerPool } from "../../../src/pow/index.js";
import { assertError, CORE, type Harness, HEX32, openHarness, viewWith } from "../../helpers/coreHarness.js";

describe("node info, health, routes and tips", () => {
  let h: Harness;

  before(async () => {
    h = await openHarness({ minPowScore: 0 });
  });
  after(async () => {
    await h.close();
    await closeMinerPool();
  });

  it("reports unhealthy (503 in the error shape) before the first milestone, healthy after", async () => {
    assertError(await h.app.inject(`/health`), 503, /no milestone/);
    const info0 = (await h.app.inject(`${CORE}/info`)).json();
    assert.equal(info0.status.isHealthy, false);
    assert.deepEqual(info0.status.latestMilestone, { index: 0 }, "no timestamp or ID before a milestone");
    await h.node.coordinator.issueMilestone();
    const res = await h.app.inject("/health");
    assert.equal(res.statusCode, 200);
    assert.equal(res.body, "");
  });

  it("reports unhealthy when no milestone was confirmed for several intervals, healthy again after one", async () => {
    await h.node.coordinator.issueMilestone();
    assert.equal((await h.app.inject("/health")).statusCode, 200);
    // the ledger last advanced a minute ago (the coordinator stopped, or the link to it)
    h.node.metrics.lastConfirmedAt -= 60_000;
    assertError(await h.app.inject("/health"), 503, /no milestone confirmed for 60\.\d s \(the interval is \d+ ms\)/);
    assert.equal((await h.app.inject(`${CORE}/info`)).json().status.isHealthy, false);
    await h.node.coordinator.issueMilestone();
    assert.equal((await h.app.inject("/health")).statusCode, 200);
  });

  it("serves the node info in the shape iota.js reads", async () => {
    const res = await h.app.inject(`${CORE}/info`);
    assert.equal(res.statusCode, 200);
    const info = res.json();
    assert.deepEqual(Object.keys(info).sort(), [
      "baseToken",
      "features",
      "metrics",
      "name",
      "pendingProtocolParameters",
      "protocol",
      "status",
      "supportedProtocolVersions",
      "version",
    ]);
    assert.equal(info.name, "ledger-node");
    assert.match(info.version, /^\d+\.\d+\.\d+/);
    const latest = h.node.tangle.latestMilestone;
    assert.deepEqual(info.status, {
      isHealthy: true,
      isSynced: true,
      latestMilestone: {
        index: latest.index,
        timestamp: latest.timestamp,
        milestoneId: info.status.latestMilestone.milestoneId,
      },
      confirmedMilestone: info.status.latestMilestone,
      pruningIndex: 0,
    });
    assert.match(info.status.latestMilestone.milestoneId, HEX32);
    assert.deepEqual(info.supportedProtocolVersions, [2]);
    assert.deepEqual(info.protocol, {
      version: 2,
      networkName: "dev",
      bech32Hrp: "tst",
      minPowScore: 0,
      belowMaxDepth: 15,
      rentStructure: { vByteCost: 100, vByteFactorData: 1, vByteFactorKey: 10 },
      tokenSupply: "2779530283277761",
    });
    assert.deepEqual(info.pendingProtocolParameters, []);
    assert.deepEqual(Object.keys(info.baseToken).sort(), [
      "decimals",
      "name",
      "subunit",
      "tickerSymbol",
      "unit",
      "useMetricPrefix",
    ]);
    assert.deepEqual(Object.keys(info.metrics).sort(), [
      "blocksPerSecond",
      "referencedBlocksPerSecond",
      "referencedRate",
    ]);
    assert.deepEqual(info.features, ["pow"]);
  });

  it("drops the pow feature when the node has no PoW workers", async () => {
    const app = buildServer(viewWith(h.node, { powWorkers: 0 }), "silent");
    try {
      assert.deepEqual((await app.inject(`${CORE}/info`)).json().features, []);
    } finally {
      await app.close();
    }
  });

  it("computes block rates from the milestones it sees", async () => {
    for (let i = 0; i < 3; i++) {
      const res = await h.app.inject({
        method: "POST",
        url: `${CORE}/blocks`,
        payload: { protocolVersion: 2, payload: { type: 5, tag: "0x6d", data: `0x0${i}` } },
      });
      assert.equal(res.statusCode, 201);
    }
    await h.node.coordinator.issueMilestone();
    await h.node.coordinator.issueMilestone();
    const { metrics } = (await h.app.inject(`${CORE}/info`)).json();
    assert.ok(metrics.blocksPerSecond > 0, JSON.stringify(metrics));
    assert.ok(metrics.referencedBlocksPerSecond > 0);
    assert.ok(metrics.referencedRate > 0);
  });

  it("lists the API plugins it serves", async () => {
    const res = await h.app.inject("/api/routes");
    assert.equal(res.statusCode, 200);
    const { routes } = res.json();
    assert.ok(Array.isArray(routes));
    assert.ok(routes.includes("core/v2"));
    assert.ok(!routes.includes("routes"));
  });

  it("lists routes other modules register after it", async () => {
    const app = buildServer(h.node, "silent");
    app.get("/api/example/v7/things/:id", async () => ({}));
    app.get("/api/example/v7/other", async () => ({}));
    try {
      const { routes } = (await app.inject("/api/routes")).json() as { routes: string[] };
      assert.equal(routes[0], "core/v2");
      assert.equal(routes.at(-1), "example/v7");
      assert.equal(routes.filter((r) => r === "example/v7").length, 1);
    } finally {
      await app.close();
    }
  });

  it("serves tips as sorted block IDs the node knows", async () => {
    const res = await h.app.inject(`${CORE}/tips`);
    assert.equal(res.statusCode, 200);
    const { tips } = res.json() as { tips: string[] };
    assert.ok(tips.length >= 1 && tips.length <= 8);
    for (const t of tips) assert.match(t, HEX32);
    assert.deepEqual([...tips].sort(), tips);
    for (const t of tips) assert.equal((await h.app.inject(`${CORE}/blocks/${t}/metadata`)).statusCode, 200);
  });

  it("answers 404 in the error shape for unknown routes", async () => {
    assertError(await h.app.inject(`${CORE}/nothing`), 404, /no route/);
    assertError(await h.app.inject({ method: "DELETE", url: `${CORE}/info` }), 404);
  });
});
