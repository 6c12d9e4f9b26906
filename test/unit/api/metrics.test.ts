import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { issueApiToken } from "../../../src/api/auth.js";
import { CachedDirectorySize, directorySize } from "../../../src/api/metrics/databaseMetrics.js";
import { metricsOf } from "../../../src/api/metrics/metricsRoute.js";
import { RequestCounts, UNMATCHED_ROUTE } from "../../../src/api/metrics/restApiMetrics.js";
import { buildPrometheusServer, buildServer } from "../../../src/api/server.js";
import { closeMinerPool } from "../../../src/pow/index.js";
import { assertError, CORE, type Harness, openHarness, viewWith } from "../../helpers/coreHarness.js";
import { removeDir, tempDir } from "../../helpers/node.js";
import { Scrape } from "../../helpers/prometheus.js";

/**
 * `GET /metrics` on an in-process node: protected by default, the Prometheus text format as a
 * real parser reads it, values equal to what the REST routes answer, request counting bounded
 * by route patterns, the PoW of submitted blocks observed, and `--prometheus-port`'s server
 * answering the same metrics without a token.
 */

// biome-ignore lint/suspicious/noExplicitAny: REST answers are JSON asserted field by field
type Json = Record<string, any>;

const tagged = { protocolVersion: 2, payload: { type: 5, tag: "0x6d6574726963", data: "0x" } };

describe("GET /metrics", () => {
  let h: Harness;
  let authorization: string;

  const scrape = async (): Promise<Scrape> => {
    const res = await h.app.inject({ url: "/metrics", headers: { authorization } });
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers["content-type"]), /^text\/plain; version=0\.0\.4/);
    return new Scrape(res.body);
  };
  const json = async (url: string): Promise<Json> => {
    const res = await h.app.inject({ url, headers: { authorization } });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };

  before(async () => {
    h = await openHarness({ minPowScore: 100, powWorkers: 1 });
    authorization = `Bearer ${await issueApiToken(h.node.jwtSecret)}`;
    await h.node.coordinator.issueMilestone();
    await h.node.coordinator.issueMilestone();
  });
  after(async () => {
    await h.close();
    await closeMinerPool();
  });

  it("is protected by default: 403 without a token or with a forged one", async () => {
    assertError(await h.app.inject("/metrics"), 403, /Bearer/);
    const forged = await issueApiToken(new Uint8Array(32));
    assertError(
      await h.app.inject({ url: "/metrics", headers: { authorization: `Bearer ${forged}` } }),
      403,
      /not signed/,
    );
  });

  it("answers the node's state as the info and tips routes do", async () => {
    // a block mined by the node stays unreferenced: a non-lazy tip
    const submitted = await h.app.inject({ method: "POST", url: `${CORE}/blocks`, payload: tagged });
    assert.equal(submitted.statusCode, 201, submitted.body);
    const info = await json(`${CORE}/info`);
    const s = await scrape();

    const app = s.samples("iota_node_app_info");
    assert.equal(app.length, 1);
    assert.deepEqual(app[0]!.labels, { name: info.name, version: info.version, network: info.protocol.networkName });
    assert.equal(Number(app[0]!.value), 1);
    assert.equal(s.family("iota_node_health").type, "GAUGE");
    assert.equal(s.value("iota_node_health"), info.status.isHealthy ? 1 : 0);
    assert.equal(s.value("iota_node_synced"), info.status.isSynced ? 1 : 0);
    assert.equal(s.value("iota_node_milestones", { type: "confirmed" }), info.status.confirmedMilestone.index);
    assert.equal(s.value("iota_node_milestones", { type: "latest" }), info.status.latestMilestone.index);
    assert.equal(s.value("iota_node_milestones", { type: "pruning" }), info.status.pruningIndex);
    assert.equal(info.status.confirmedMilestone.index, 2);
    assert.equal(s.value("iota_node_blocks_per_second"), info.metrics.blocksPerSecond);
    assert.equal(s.value("iota_node_referenced_blocks_per_second"), info.metrics.referencedBlocksPerSecond);
    assert.equal(s.value("iota_node_referenced_rate"), info.metrics.referencedRate);

    // every tip is non-lazy or semi-lazy right after a milestone; the tips route draws from the non-lazy ones
    const nonLazy = s.value("iota_node_tips", { type: "nonlazy" });
    assert.ok(nonLazy >= 1, `${nonLazy} non-lazy tips`);
    assert.equal(nonLazy + s.value("iota_node_tips", { type: "semilazy" }), h.node.tangle.tips.size);
    const tips = (await json(`${CORE}/tips`)).tips as string[];
    assert.equal(tips.length, Math.min(8, nonLazy));
    assert.ok(tips.includes(submitted.json().blockId), "the submitted block is a tip");

    // the database on disk, and the process
    assert.ok(s.value("iota_database_size_bytes") > 0);
    assert.ok(s.value("process_resident_memory_bytes") > 1024 * 1024);
    assert.ok(s.families.has("nodejs_eventloop_lag_seconds"));
    // a node without P2P has no peers to describe
    assert.deepEqual(s.samples("iota_gossip_peers_connected_peers"), []);
  });

  it("counts requests by route pattern, status and method, and errors", async () => {
    const before = await scrape();
    const infoLabels = { url: `${CORE}/info`, code: "200", method: "GET" };
    const blockLabels = { url: `${CORE}/blocks/:blockId`, code: "404", method: "GET" };
    for (let i = 0; i < 3; i++) await h.app.inject(`${CORE}/info`);
    for (let i = 0; i < 2; i++) await h.app.inject(`${CORE}/blocks/0x${String(i).repeat(64)}`);
    // paths no route serves, each different: one label set, whatever their number
    for (let i = 0; i < 40; i++) await h.app.inject(`/no/such/path/${i}/${Math.random()}`);
    await h.app.inject({ method: "DELETE", url: `${CORE}/info` });
    const s = await scrape();

    assert.equal(s.family("iota_restapi_requests_total").type, "COUNTER");
    assert.equal(
      s.value("iota_restapi_requests_total", infoLabels),
      before.valueOr0("iota_restapi_requests_total", infoLabels) + 3,
    );
    assert.equal(s.value("iota_restapi_requests_total", blockLabels), 2);
    const unmatched = s.samples("iota_restapi_requests_total", { url: UNMATCHED_ROUTE });
    assert.deepEqual(unmatched.map((x) => [x.labels!.method, x.labels!.code, Number(x.value)]).sort(), [
      ["DELETE", "404", 1],
      ["GET", "404", 40],
    ]);
    for (const sample of s.samples("iota_restapi_requests_total")) {
      assert.doesNotMatch(sample.labels!.url!, /0x|no\/such/, "route patterns only, never paths");
    }
    // the scrapes themselves are counted, and every 4xx/5xx is an error
    assert.ok(s.value("iota_restapi_requests_total", { url: "/metrics", code: "200", method: "GET" }) >= 2);
    const errors = s
      .samples("iota_restapi_requests_total")
      .filter((x) => Number(x.labels!.code) >= 400)
      .reduce((n, x) => n + Number(x.value), 0);
    assert.equal(s.value("iota_restapi_http_request_errors"), errors);
    assert.ok(errors >= 43);
  });

  it("observes the PoW the node does for submitted blocks, and its failures", async () => {
    const before = await scrape();
    const res = await h.app.inject({ method: "POST", url: `${CORE}/blocks`, payload: tagged });
    assert.equal(res.statusCode, 201, res.body);
    const s = await scrape();
    assert.equal(s.value("iota_restapi_pow_requests"), before.value("iota_restapi_pow_requests") + 1);
    assert.equal(s.count("iota_restapi_pow_block_sizes"), before.count("iota_restapi_pow_block_sizes") + 1);
    assert.equal(s.count("iota_restapi_pow_durations"), before.count("iota_restapi_pow_durations") + 1);
    assert.equal(s.family("iota_restapi_pow_durations").type, "HISTOGRAM");

    // a node without PoW workers refuses to mine: a failure of reason "disabled" on its own metrics
    const noPow = buildServer(viewWith(h.node, { powWorkers: 0 }), "silent");
    try {
      const refused = await noPow.inject({ method: "POST", url: `${CORE}/blocks`, payload: tagged });
      assert.equal(refused.statusCode, 503, refused.body);
      const other = new Scrape(await metricsOf(noPow)!.scrape());
      assert.equal(other.value("iota_restapi_pow_failed_requests", { reason: "disabled" }), 1);
      assert.equal(other.value("iota_restapi_pow_requests"), 0);
      // one registry per server: the first server's counts are not in it
      assert.equal(
        other.valueOr0("iota_restapi_requests_total", { url: `${CORE}/info`, code: "200", method: "GET" }),
        0,
      );
    } finally {
      await noPow.close();
    }
  });

  it("counts prunings and blocks referenced by milestones from the node's events", async () => {
    const before = await scrape();
    await h.app.inject({ method: "POST", url: `${CORE}/blocks`, payload: tagged });
    const issued: number[] = [];
    for (let i = 0; i < 20; i++) issued.push((await h.node.coordinator.issueMilestone()).index);
    const horizon = await h.node.pruner.pruneTo(4);
    assert.ok(horizon >= 4, `pruned below ${horizon}`);
    const s = await scrape();
    assert.equal(s.value("iota_database_pruning_count_total"), before.value("iota_database_pruning_count_total") + 1);
    assert.equal(
      s.value("iota_node_milestones", { type: "pruning" }),
      (await json(`${CORE}/info`)).status.pruningIndex,
    );
    // each milestone references its own block at least; the submitted block once
    const referenced = s.value("iota_gossip_node_blocks", { type: "referenced" });
    const earlier = before.value("iota_gossip_node_blocks", { type: "referenced" });
    assert.ok(referenced >= earlier + 21, `${earlier} → ${referenced}`);
    assert.equal(s.value("iota_gossip_node_blocks", { type: "new" }), 0, "no blocks from peers");
  });

  it("collects once for scrapes that arrive together", async () => {
    const scraper = metricsOf(h.app)!;
    const a = scraper.scrape();
    const b = scraper.scrape();
    assert.equal(a, b);
    assert.equal(await a, await b);
    assert.notEqual(scraper.scrape(), a, "a later scrape collects anew");
  });

  it("is served without a token by the Prometheus server, with the same metrics", async () => {
    const prometheus = buildPrometheusServer(metricsOf(h.app)!, "silent");
    try {
      const res = await prometheus.inject("/metrics");
      assert.equal(res.statusCode, 200, res.body);
      const open = new Scrape(res.body);
      const protectedOne = await scrape();
      assert.deepEqual([...open.families.keys()].sort(), [...protectedOne.families.keys()].sort());
      assert.equal(
        open.value("iota_node_milestones", { type: "confirmed" }),
        protectedOne.value("iota_node_milestones", { type: "confirmed" }),
      );
      // it serves nothing else
      assertError(await prometheus.inject(`${CORE}/info`), 404);
    } finally {
      await prometheus.close();
    }
  });
});

describe("request counts", () => {
  it("keep a bounded number of label sets, the rest under other", () => {
    const counts = new RequestCounts(3);
    counts.count(200, "GET", "/a");
    counts.count(200, "GET", "/a");
    counts.count(404, "GET", undefined);
    counts.count(500, "POST", "/b");
    for (let i = 0; i < 10; i++) counts.count(400, "GET", `/c${i}`);
    const series = [...counts.values()].map((s) => [s.labels.code, s.labels.method, s.labels.url, s.count]);
    assert.deepEqual(series, [
      ["200", "GET", "/a", 2],
      ["404", "GET", UNMATCHED_ROUTE, 1],
      ["500", "POST", "/b", 1],
      ["other", "other", "other", 10],
    ]);
    assert.equal(counts.errors(), 2, "the overflow's statuses are unknown");
  });
});

describe("database size", () => {
  it("sums the files of the directory, measured at most once per period", async () => {
    const dir = await tempDir("size");
    try {
      await writeFile(join(dir, "a.ldb"), new Uint8Array(1000));
      await writeFile(join(dir, "LOG"), new Uint8Array(234));
      assert.equal(await directorySize(dir), 1234);
      const cached = new CachedDirectorySize(dir, 60_000);
      assert.equal(await cached.get(), 1234);
      await writeFile(join(dir, "b.ldb"), new Uint8Array(66));
      assert.equal(await cached.get(), 1234, "within the period: the measured size");
      assert.equal(await cached.get(performance.now() + 60_001), 1300, "after it: measured again");
      await removeDir(dir);
      assert.equal(await cached.get(performance.now() + 120_002), 1300, "an unreadable directory keeps the last size");
    } finally {
      await removeDir(dir);
    }
  });
});
