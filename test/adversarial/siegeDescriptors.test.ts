import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import mqtt from "mqtt";
import { type NodeProcess, startNodeProcess } from "../helpers/nodeProcess.js";
import {
  ANSWER_MS,
  connectedMqtt,
  describeProbes,
  destroyAll,
  inBatches,
  probeHonestly,
  type RawMqtt,
  startCadence,
} from "./helpers/siege.js";

/**
 * Threat: event-API connections outside the descriptor budget. The HTTP API bounds its own
 * connections, but the event API over TCP takes clients up to its own cap, which by itself is
 * about all the file descriptors a node under a 1,024 open-file limit has: subscribers from one
 * address exhaust them, and the HTTP API (and a new WebSocket subscriber) can no longer accept
 * a connection. The node must keep the event API within a share of its descriptors, so an
 * honest client from 127.0.0.1 is still answered and milestones stay on cadence.
 */

const OPEN_FILE_LIMIT = 1_024;
const ATTACKER = "127.0.0.2";
/** Subscribers at least; more when the node has fewer descriptors in use, so that together they take them all. */
const MIN_SUBSCRIBERS = 988;
/** Subscribers beyond the node's free descriptors. */
const SPARE = 8;

/** How many files (sockets included) the process has open. */
const openFiles = (pid: number): number => readdirSync(`/proc/${pid}/fd`).length;

describe("siege: event API subscribers under a 1,024 open-file limit", { timeout: 120_000 }, () => {
  let node: NodeProcess;
  const subscribers: RawMqtt[] = [];

  before(async () => {
    node = await startNodeProcess(["--p2p-port", "0"], 20_000, { mqtt: true, openFileLimit: OPEN_FILE_LIMIT });
  });
  after(async () => {
    destroyAll(subscribers.map((s) => s.socket));
    await node?.close();
  });

  it("keeps answering HTTP and accepting a WebSocket subscriber while TCP subscribers take every descriptor", async (t) => {
    const limits = readFileSync(`/proc/${node.pid}/limits`, "utf8");
    assert.match(limits, /^Max open files\s+1024\s+1024\s/m, "the node runs under a 1,024 open-file limit");

    const cadence = await startCadence(node.url);
    // enough subscribers to take every descriptor the node has left, and a few more
    const baseline = openFiles(node.pid);
    const count = Math.max(MIN_SUBSCRIBERS, OPEN_FILE_LIMIT - baseline + SPARE);
    t.diagnostic(`the node has ${baseline} files open before the attack; ${count} subscribers`);
    await inBatches(
      Array.from({ length: count }, (_, i) => i),
      50,
      async (i) => {
        const c = await connectedMqtt(node.mqttPort!, ATTACKER, `fd-${i}`);
        if (!c) return;
        subscribers.push(c);
        c.send({ cmd: "subscribe", messageId: 1, subscriptions: [{ topic: "milestone-info/confirmed", qos: 0 }] });
        await c.next("suback", 10_000).catch(() => undefined);
      },
    );
    t.diagnostic(`${subscribers.length} of ${count} subscribers from ${ATTACKER} connected`);
    t.diagnostic(`the node has ${openFiles(node.pid)} files open`);

    const probes = await probeHonestly(node.url, 15_000);

    const started = Date.now();
    let acked = "";
    const ws = mqtt.connect(`${node.url.replace("http", "ws")}/api/mqtt/v1`, {
      reconnectPeriod: 0,
      connectTimeout: ANSWER_MS,
      wsOptions: { localAddress: "127.0.0.1" },
    });
    acked = await new Promise<string>((resolve) => {
      ws.once("connect", () => resolve("ok"));
      ws.once("error", (e) => resolve(e.message || "error"));
      ws.once("close", () => resolve("closed before CONNACK"));
      setTimeout(() => resolve(`no CONNACK within ${ANSWER_MS} ms`), ANSWER_MS);
    });
    const connackMs = Date.now() - started;
    await ws.endAsync(true).catch(() => {});
    const milestones = await cadence.check();

    assert.ok(probes.percent >= 95, `${describeProbes(probes)}; ${subscribers.length} TCP subscribers open`);
    assert.ok(
      acked === "ok" && connackMs <= ANSWER_MS,
      `a new WebSocket subscriber from 127.0.0.1: ${acked} (${connackMs} ms)`,
    );
    assert.ok(milestones.ok, milestones.text);
  });
});
