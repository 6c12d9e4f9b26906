import assert from "node:assert/strict";
import { type Socket, connect as tcpConnect } from "node:net";
import { after, before, describe, it } from "node:test";
import mqtt from "mqtt";
import mqttPacket from "mqtt-packet";
import { type NodeProcess, startNodeProcess } from "../helpers/nodeProcess.js";
import { rssMiB } from "../helpers/roguePeer.js";
import { waitFor } from "../helpers/waitFor.js";

/**
 * Threat: abusive clients of the event API. Over plain MQTT/TCP (`--mqtt-port`) and WebSocket,
 * clients send garbage, a packet announcing 10 MiB, a PUBLISH, 2,000 subscriptions, topics with
 * invalid IDs, and one subscribes to every block and stops reading. Meanwhile an honest
 * subscriber keeps getting every confirmed milestone, in order. The node stays up, logs each
 * offender, disconnects only the offenders, and a subscriber that stopped reading costs it at
 * most its queue bound in memory (docs/decisions.md, Threats).
 */
describe("threat: abusive event API clients", { timeout: 120_000 }, () => {
  let node: NodeProcess;
  let honest: mqtt.MqttClient;
  const confirmed: number[] = [];

  before(async () => {
    node = await startNodeProcess(
      ["--milestone-interval", "250", "--min-pow-score", "0", "--p2p-port", "0", "--log-level", "info"],
      20_000,
      { mqtt: true },
    );
    honest = await mqtt.connectAsync(`${node.url.replace("http", "ws")}/api/mqtt/v1`);
    honest.on("message", (topic, payload) => {
      if (topic === "milestone-info/confirmed")
        confirmed.push((JSON.parse(payload.toString()) as { index: number }).index);
    });
    await honest.subscribeAsync("milestone-info/confirmed");
    await waitFor(
      async () => (confirmed.length > 0 ? true : undefined),
      10_000,
      "the honest subscriber's first message",
    );
  });
  after(async () => {
    await honest?.endAsync(true);
    await node?.close();
  });

  /** A raw TCP connection to the MQTT port; resolves `closed` when the node closes it. */
  const raw = async (): Promise<{ socket: Socket; closed: Promise<void> }> => {
    const socket = tcpConnect(node.mqttPort!, "127.0.0.1");
    await new Promise((resolve) => socket.once("connect", resolve));
    const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    socket.on("error", () => {});
    return { socket, closed };
  };
  const connectPacket = (clientId: string) =>
    mqttPacket.generate({
      cmd: "connect",
      protocolId: "MQTT",
      protocolVersion: 4,
      clean: true,
      clientId,
      keepalive: 0,
    });
  const within = <T>(p: Promise<T>, ms: number, what: string) =>
    Promise.race([
      p,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms)),
    ]);

  it("closes a connection that sends garbage or announces a 10 MiB packet", async () => {
    const garbage = await raw();
    garbage.socket.write(Buffer.from([0xf0, 0xff, 0xff, 0xff, 0xff, 0x7f, 0x00]));
    await within(garbage.closed, 5_000, "the garbage connection closed");

    const big = await raw();
    big.socket.write(connectPacket("big"));
    // a SUBSCRIBE whose remaining length says 10 MiB, then its first megabyte, slowly
    big.socket.write(Buffer.from([0x82, 0x80, 0x80, 0x80, 0x05]));
    for (let i = 0; i < 16 && !big.socket.destroyed; i++) {
      big.socket.write(Buffer.alloc(64 * 1024, 0x61));
      await new Promise((r) => setTimeout(r, 20));
    }
    await within(big.closed, 5_000, "the oversized connection closed");
  });

  it("disconnects a client that publishes, and delivers nothing it sent", async () => {
    const seen: string[] = [];
    honest.on("message", (_topic, payload) => seen.push(payload.toString()));
    await honest.subscribeAsync("milestones");
    const publisher = await mqtt.connectAsync(`mqtt://127.0.0.1:${node.mqttPort!}`, { reconnectPeriod: 0 });
    const gone = new Promise<void>((resolve) => publisher.once("close", () => resolve()));
    publisher.publish("milestones", "forged milestone");
    publisher.publish("milestone-info/confirmed", JSON.stringify({ index: 1e9 }));
    await within(gone, 5_000, "the publisher disconnected");
    await publisher.endAsync(true);
    await new Promise((r) => setTimeout(r, 500));
    assert.ok(!seen.includes("forged milestone"));
    assert.ok(!confirmed.includes(1e9));
    await honest.unsubscribeAsync("milestones");
  });

  it("refuses subscriptions to invalid topics and disconnects a client past 1,000 subscriptions", async () => {
    const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${node.mqttPort!}`, { reconnectPeriod: 0 });
    // the client library turns a refused SUBACK entry into an error carrying the SUBACK
    const suback = await client
      .subscribeAsync([
        "block-metadata/0x1234",
        "outputs/0xzz",
        "outputs/unlock/address/not-bech32",
        "#",
        "blocks/+",
        "block-metadata/referenced",
      ])
      .then(
        () => assert.fail("every subscription granted"),
        (e: { packet?: { granted: number[] } }) => e.packet!,
      );
    assert.deepEqual(suback.granted, [128, 128, 128, 128, 128, 0]);
    assert.ok(client.connected, "a refused topic is no reason to disconnect");
    const gone = new Promise<void>((resolve) => client.once("close", () => resolve()));
    const topics = Array.from({ length: 2000 }, (_, i) => `block-metadata/0x${i.toString(16).padStart(64, "0")}`);
    for (let i = 0; i < topics.length; i += 100) client.subscribe(topics.slice(i, i + 100));
    await within(gone, 10_000, "the client with 2,000 subscriptions disconnected");
    await client.endAsync(true);
  });

  it("drops a subscriber that stops reading, within its queue bound, and the honest one goes on", async () => {
    const slow = await raw();
    slow.socket.write(connectPacket("slow"));
    slow.socket.write(
      mqttPacket.generate({ cmd: "subscribe", messageId: 1, subscriptions: [{ topic: "blocks", qos: 0 }] }),
    );
    await new Promise((r) => setTimeout(r, 300));
    slow.socket.pause(); // reads nothing from now on
    const rssBefore = rssMiB(node.pid);
    let peak = rssBefore;
    // 16 KB blocks until the node gives up on the reader (its queue bound is 8 MiB)
    const data = `0x${"ab".repeat(16_000)}`;
    let sent = 0;
    while (!/fell too far behind/.test(node.output) && sent < 4_000) {
      await Promise.all(
        Array.from({ length: 8 }, async (_, i) => {
          const res = await fetch(`${node.url}/api/core/v2/blocks`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({
              protocolVersion: 2,
              payload: { type: 5, tag: `0x${(sent + i).toString(16).padStart(8, "0")}`, data },
            }),
          });
          assert.equal(res.status, 201);
        }),
      );
      sent += 8;
      peak = Math.max(peak, rssMiB(node.pid));
    }
    assert.match(node.output, /fell too far behind/, `not dropped after ${sent} blocks`);
    // it reads again: all it gets is what was queued before it was dropped, then the end
    slow.socket.resume();
    await within(slow.closed, 10_000, "the slow subscriber's connection closed");
    assert.ok(peak - rssBefore < 64, `RSS ${rssBefore.toFixed(0)} → ${peak.toFixed(0)} MiB for ${sent} blocks`);

    // the node is up, logged every offender, and the honest subscriber got every milestone in order
    const before = confirmed.length;
    await waitFor(async () => (confirmed.length > before + 2 ? true : undefined), 10_000, "more milestones");
    assert.deepEqual(
      confirmed,
      Array.from({ length: confirmed.length }, (_, i) => confirmed[0]! + i),
      "every milestone once, in order",
    );
    assert.ok(honest.connected);
    const log = node.output;
    assert.match(log, /fell too far behind/);
    assert.match(log, /oversized packet/);
    assert.match(log, /tried to publish/);
    assert.match(log, /more than 1000 subscriptions/);
  });
});
