import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import mqtt from "mqtt";
import { type NodeProcess, startNodeProcess } from "../helpers/nodeProcess.js";
import { rssMiB } from "../helpers/roguePeer.js";
import {
  ATTACKER_ADDRESSES,
  CADENCE,
  connectedMqtt,
  describeProbes,
  heapMiB,
  inBatches,
  probeHonestly,
  type RawMqtt,
} from "./helpers/siege.js";

/**
 * Threat: subscriptions grow the heap without a global bound, and the memory is not given back.
 * Each client stays within its own 1,000 subscriptions, but many clients together subscribe to
 * hundreds of thousands of distinct block-metadata topics. The node must refuse subscriptions
 * past a global budget (SUBACK 0x80 for the refused ones) and keep each one cheap, so its heap
 * grows by a bounded amount, and it must let the memory go when the clients leave; meanwhile an
 * honest subscriber keeps getting milestones and the HTTP API keeps answering.
 */

/** 1,000 clients, 250 from each attacker address (within the 256 a fixed node takes from one). */
const CLIENTS = 1_000;
const TOPICS_PER_CLIENT = 1_000;
const TOPICS_PER_PACKET = 100;
/** How long the subscriptions are held once every SUBACK is in. */
const HOLD_MS = 6_000;
/** Heap the attack may add while it holds its subscriptions. */
const MAX_HEAP_GROWTH_MIB = 300;
/** Heap the node may keep once the attackers are gone. */
const MAX_HEAP_LEFT_MIB = 50;
/** RSS the node may keep once the attackers are gone. */
const MAX_RSS_LEFT_MIB = 200;

describe("siege: subscriptions from many clients", { timeout: 120_000 }, () => {
  let node: NodeProcess;
  let honest: mqtt.MqttClient | undefined;
  const attackers: RawMqtt[] = [];
  const confirmed: { at: number; index: number }[] = [];

  before(async () => {
    node = await startNodeProcess(["--p2p-port", "0"], 20_000, { mqtt: true });
    honest = await mqtt.connectAsync(`${node.url.replace("http", "ws")}/api/mqtt/v1`, {
      reconnectPeriod: 0,
      connectTimeout: 5_000,
    });
    honest.on("message", (topic, payload) => {
      if (topic === "milestone-info/confirmed")
        confirmed.push({ at: Date.now(), index: (JSON.parse(payload.toString()) as { index: number }).index });
    });
    await honest.subscribeAsync("milestone-info/confirmed");
  });
  after(async () => {
    for (const a of attackers) a.socket.destroy();
    await honest?.endAsync(true);
    await node?.close();
  });

  it("bounds the heap the subscriptions take, and gives it back when the clients leave", async (t) => {
    const heapBefore = await heapMiB(node.url);
    const rssBefore = rssMiB(node.pid);
    let heapPeak = heapBefore;
    const started = Date.now();
    let attacking = true;
    const watchHeap = (async () => {
      while (attacking) {
        heapPeak = Math.max(heapPeak, await heapMiB(node.url, 3_000).catch(() => heapPeak));
        await new Promise((r) => setTimeout(r, 250));
      }
    })();
    const honestProbes = probeHonestly(node.url, () => attacking);

    // each client: 1,000 random block IDs in SUBSCRIBE packets of 100 topics, then silence
    let granted = 0;
    let refused = 0;
    await inBatches(
      Array.from({ length: CLIENTS }, (_, i) => i),
      32,
      async (i) => {
        const client = await connectedMqtt(
          node.mqttPort!,
          ATTACKER_ADDRESSES[i % ATTACKER_ADDRESSES.length]!,
          `sub-${i}`,
        );
        if (!client) return;
        attackers.push(client);
        for (let p = 0; p < TOPICS_PER_CLIENT / TOPICS_PER_PACKET; p++) {
          client.send({
            cmd: "subscribe",
            messageId: p + 1,
            subscriptions: Array.from({ length: TOPICS_PER_PACKET }, () => ({
              topic: `block-metadata/0x${randomBytes(32).toString("hex")}`,
              qos: 0 as const,
            })),
          });
        }
        for (let p = 0; p < TOPICS_PER_CLIENT / TOPICS_PER_PACKET; p++) {
          const ack = await client.next("suback", 20_000).catch(() => undefined);
          if (!ack || ack.cmd !== "suback") break;
          for (const code of ack.granted) {
            if (code === 0x80) refused++;
            else granted++;
          }
        }
      },
    );
    t.diagnostic(`subscribed in ${Date.now() - started} ms: ${granted} granted, ${refused} refused`);
    // hold the subscriptions while the honest clients go on
    await new Promise((r) => setTimeout(r, HOLD_MS));
    attacking = false;
    const probes = await honestProbes;
    await watchHeap;
    const heldSeconds = (Date.now() - started) / 1000;
    const during = confirmed.filter((c) => c.at >= started);
    const advanced = during.length === 0 ? 0 : during[during.length - 1]!.index - during[0]!.index + 1;
    const heapGrowth = heapPeak - heapBefore;
    t.diagnostic(
      `heap ${heapBefore.toFixed(0)} → peak ${heapPeak.toFixed(0)} MiB, RSS ${rssBefore.toFixed(0)} → ${rssMiB(node.pid).toFixed(0)} MiB`,
    );

    assert.ok(
      heapGrowth <= MAX_HEAP_GROWTH_MIB,
      `heap ${heapBefore.toFixed(0)} → peak ${heapPeak.toFixed(0)} MiB (+${heapGrowth.toFixed(0)}, limit +${MAX_HEAP_GROWTH_MIB}) for ${granted} granted and ${refused} refused subscriptions of ${attackers.length} clients`,
    );
    assert.ok(probes.percent >= 95, describeProbes(probes));
    assert.ok(
      advanced >= CADENCE * heldSeconds,
      `the honest subscriber got milestones ${during[0]?.index} → ${during.at(-1)?.index} (${during.length} messages) in ${heldSeconds.toFixed(1)} s (need ≥ ${(CADENCE * heldSeconds).toFixed(1)})`,
    );

    // every attacker leaves: the heap must come back without any forced collection
    for (const a of attackers) a.socket.destroy();
    await Promise.all(attackers.map((a) => a.closed));
    let heapAfter = Number.POSITIVE_INFINITY;
    const until = Date.now() + 15_000;
    while (Date.now() < until) {
      heapAfter = await heapMiB(node.url, 3_000).catch(() => heapAfter);
      if (heapAfter - heapBefore <= MAX_HEAP_LEFT_MIB) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const rssAfter = rssMiB(node.pid);
    assert.ok(
      heapAfter - heapBefore <= MAX_HEAP_LEFT_MIB,
      `15 s after the attackers left the heap is ${heapAfter.toFixed(0)} MiB, ${(heapAfter - heapBefore).toFixed(0)} above its ${heapBefore.toFixed(0)} MiB before the attack (limit +${MAX_HEAP_LEFT_MIB})`,
    );
    assert.ok(
      rssAfter - rssBefore <= MAX_RSS_LEFT_MIB,
      `RSS ${rssBefore.toFixed(0)} → ${rssAfter.toFixed(0)} MiB after the attackers left (limit +${MAX_RSS_LEFT_MIB})`,
    );
  });
});
