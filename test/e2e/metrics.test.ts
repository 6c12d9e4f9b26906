import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import type { Json } from "../helpers/iota.js";
import { waitForMilestone } from "../helpers/milestones.js";
import { NodeProcess } from "../helpers/nodeProcess.js";
import { freePort } from "../helpers/ports.js";
import { Scrape } from "../helpers/prometheus.js";

/**
 * `GET /metrics` of real node processes, read by a Prometheus text-format parser: A runs the
 * coordinator, B follows it over P2P; both serve their metrics on `--prometheus-port` too. The
 * values are checked against what the REST routes answer around the scrape (milestones move
 * every 200 ms, so a value lies between the answers before and after it).
 */
describe("metrics of node processes (GET /metrics, --prometheus-port)", () => {
  let a: NodeProcess;
  let b: NodeProcess;
  let prometheusA: number;
  let prometheusB: number;
  let token: string;

  const scrapeText = async (url: string, headers: Record<string, string> = {}) => {
    const res = await fetch(url, { headers });
    assert.equal(res.status, 200, url);
    assert.match(String(res.headers.get("content-type")), /^text\/plain; version=0\.0\.4/);
    return res.text();
  };
  const scrapeA = async () => new Scrape(await scrapeText(`${a.url}/metrics`, { authorization: `Bearer ${token}` }));
  const scrapeOpen = async (port: number) => new Scrape(await scrapeText(`http://127.0.0.1:${port}/metrics`));
  const peersOfA = async (): Promise<Json[]> => {
    const { status, body } = await a.get("/api/core/v2/peers", token);
    assert.equal(status, 200);
    return body as unknown as Json[];
  };

  before(async () => {
    prometheusA = await freePort();
    prometheusB = await freePort();
    a = await NodeProcess.create("metrics-a");
    a.start(["--prometheus-port", String(prometheusA)]);
    const addressA = await a.address();
    b = await NodeProcess.follower("metrics-b", a, [addressA]);
    b.start(["--prometheus-port", String(prometheusB)]);
    await waitForMilestone(b, 3, 30_000, "B synced with A", { synced: true, peers: 1 });
    token = a.token();
  });
  after(async () => {
    for (const n of [b, a]) await n?.dispose();
  });

  it("is protected on the API port and open on the Prometheus port, with the same metrics", async () => {
    const refused = await a.get("/metrics");
    assert.equal(refused.status, 403);
    assert.match(refused.body.error.details, /Bearer/);
    const withToken = await scrapeA();
    const open = await scrapeOpen(prometheusA);
    assert.deepEqual([...open.families.keys()].sort(), [...withToken.families.keys()].sort());
    assert.ok(withToken.families.size >= 30, `${withToken.families.size} metric families`);
    assert.match(a.output, new RegExp(`metrics: http://127\\.0\\.0\\.1:${prometheusA}/metrics`));
    // the Prometheus port serves the metrics and nothing else
    assert.equal((await fetch(`http://127.0.0.1:${prometheusA}/api/core/v2/info`)).status, 404);
  });

  it("answers what the info, tips and peers routes answer", async () => {
    const before = await a.info();
    const s = await scrapeA();
    const after = await a.info();
    const between = (name: string, value: number, low: number, high: number) =>
      assert.ok(low <= value && value <= high, `${name}: ${low} <= ${value} <= ${high}`);

    assert.deepEqual(s.samples("iota_node_app_info")[0]!.labels, {
      name: after.name,
      version: after.version,
      network: after.protocol.networkName,
    });
    between(
      "confirmed",
      s.value("iota_node_milestones", { type: "confirmed" }),
      before.status.confirmedMilestone.index,
      after.status.confirmedMilestone.index,
    );
    between(
      "latest",
      s.value("iota_node_milestones", { type: "latest" }),
      before.status.latestMilestone.index,
      after.status.latestMilestone.index,
    );
    assert.equal(s.value("iota_node_milestones", { type: "pruning" }), after.status.pruningIndex);
    assert.equal(s.value("iota_node_health"), 1);
    assert.equal(s.value("iota_node_synced"), 1);
    for (const name of ["iota_node_blocks_per_second", "iota_node_referenced_blocks_per_second"]) {
      assert.ok(Number.isFinite(s.value(name)) && s.value(name) >= 0, name);
    }
    // the coordinator references at least its own milestone blocks: they are new, then referenced
    assert.ok(s.value("iota_gossip_node_blocks", { type: "referenced" }) >= 3);
    const tips = (await a.json("/api/core/v2/tips")).tips as string[];
    assert.ok(tips.length >= 1 && tips.length <= 8);
    assert.ok(s.value("iota_node_tips", { type: "nonlazy" }) >= 0);
    assert.ok(s.value("iota_node_tips", { type: "semilazy" }) >= 0);
    assert.ok(s.value("iota_database_size_bytes") > 0);

    // the process's memory as the kernel tells it
    const status = await readFile(`/proc/${a.child!.pid}/status`, "utf8");
    const rss = Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
    const reported = s.value("process_resident_memory_bytes");
    assert.ok(reported > rss / 2 && reported < rss * 2, `RSS ${reported} against the kernel's ${rss}`);
  });

  it("describes each peer with the gossip counters of the peers route", async () => {
    const peersBefore = await peersOfA();
    const s = await scrapeA();
    const peersAfter = await peersOfA();
    const idB = (await b.info()).network.peerId as string;
    const before = peersBefore.find((p) => p.id === idB)!;
    const after = peersAfter.find((p) => p.id === idB)!;
    assert.ok(before?.gossip && after?.gossip, "A lists B with its gossip counters");
    const labels = { id: idB };
    assert.equal(s.value("iota_gossip_peers_connected_peers", labels), 1);
    assert.equal(s.samples("iota_gossip_peers_connected_peers", labels)[0]!.labels!.address, after.multiAddresses[0]);
    const counters: [string, string, string][] = [
      ["iota_gossip_peers_heartbeats", "received", "receivedHeartbeats"],
      ["iota_gossip_peers_heartbeats", "sent", "sentHeartbeats"],
      ["iota_gossip_peers_blocks", "all", "receivedBlocks"],
      ["iota_gossip_peers_blocks", "sent", "sentBlocks"],
      ["iota_gossip_peers_requests", "received_milestones", "receivedMilestoneRequests"],
      ["iota_gossip_peers_requests", "received_blocks", "receivedBlockRequests"],
      ["iota_gossip_peers_dropped_packets", "sent", "droppedPackets"],
    ];
    for (const [name, type, field] of counters) {
      const value = s.value(name, { ...labels, type });
      const low = before.gossip.metrics[field] as number;
      const high = after.gossip.metrics[field] as number;
      assert.ok(low <= value && value <= high, `${name}{type="${type}"}: ${low} <= ${value} <= ${high}`);
    }
    assert.ok(s.value("iota_gossip_peers_heartbeats", { ...labels, type: "received" }) >= 1);
    assert.equal(s.value("iota_gossip_peers_score", labels), after.score);

    // B, on its Prometheus port: A is its peer, and the milestones came to it by gossip
    const sb = await scrapeOpen(prometheusB);
    const idA = (await a.info()).network.peerId as string;
    assert.equal(sb.value("iota_gossip_peers_connected_peers", { id: idA }), 1);
    assert.ok(sb.value("iota_gossip_node_blocks", { type: "new" }) >= 1);
    assert.ok(sb.value("iota_gossip_peers_blocks", { id: idA, type: "new" }) >= 1);
    assert.equal(sb.value("iota_node_synced"), 1);
  });

  it("counts the requests it answered and the PoW it did for a submitted block", async () => {
    const infoLabels = { url: "/api/core/v2/info", code: "200", method: "GET" };
    const first = await scrapeA();
    for (let i = 0; i < 5; i++) await a.info();
    const submitted = await fetch(`${a.url}/api/core/v2/blocks`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ protocolVersion: 2, payload: { type: 5, tag: "0x6d6574726963", data: "0x01" } }),
    });
    assert.equal(submitted.status, 201);
    const { blockId } = (await submitted.json()) as { blockId: string };
    // a nonce of 0 meets score 10 about once in 700 blocks: then the node had nothing to mine
    const mined = (await a.json(`/api/core/v2/blocks/${blockId}`)).nonce !== "0" ? 1 : 0;
    const s = await scrapeA();
    assert.equal(
      s.value("iota_restapi_requests_total", infoLabels),
      first.valueOr0("iota_restapi_requests_total", infoLabels) + 5,
    );
    assert.equal(
      s.value("iota_restapi_requests_total", { url: "/api/core/v2/blocks", code: "201", method: "POST" }),
      first.valueOr0("iota_restapi_requests_total", { url: "/api/core/v2/blocks", code: "201", method: "POST" }) + 1,
    );
    // the refused scrape of the first test is an error of the metrics route
    assert.ok(s.value("iota_restapi_requests_total", { url: "/metrics", code: "403", method: "GET" }) >= 1);
    assert.ok(s.value("iota_restapi_http_request_errors") >= 1);
    assert.equal(s.value("iota_restapi_pow_requests"), first.value("iota_restapi_pow_requests") + mined);
    assert.equal(s.count("iota_restapi_pow_block_sizes"), first.count("iota_restapi_pow_block_sizes") + mined);
    assert.equal(s.count("iota_restapi_pow_durations"), first.count("iota_restapi_pow_durations") + mined);
  });
});
