import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import mqttPacket from "mqtt-packet";
import WebSocket from "ws";
import { type NodeProcess, startNodeProcess } from "../helpers/nodeProcess.js";
import { rssMiB } from "../helpers/roguePeer.js";
import {
  ATTACKER_ADDRESSES,
  connectedMqtt,
  connectPacket,
  describeProbes,
  inBatches,
  probeHonestly,
  type RawMqtt,
  startCadence,
} from "./helpers/siege.js";

/**
 * Threat: slow consumers add up. Each subscriber that stops reading may hold its own queue
 * bound (8 MiB) before it is dropped, and when every one of them holds its own copy of the
 * same messages, 150 of them hold over a gigabyte. The node must bound the bytes queued for
 * all event-API clients together and share one copy of each message among them, so ~30 KB
 * blocks submitted as fast as the node takes them raise its RSS by a bounded amount, while the
 * HTTP API keeps answering and milestones stay on cadence.
 */

const TCP_SUBSCRIBERS = 120;
const WS_SUBSCRIBERS = 30;
const DATA_BYTES = 30_000;
const SUBMIT_MS = 15_000;
const SUBMIT_CONCURRENCY = 16;
const MAX_RSS_GROWTH_MIB = 400;

describe("siege: many subscribers that stop reading", { timeout: 120_000 }, () => {
  let node: NodeProcess;
  const tcp: RawMqtt[] = [];
  const ws: WebSocket[] = [];

  before(async () => {
    node = await startNodeProcess(["--p2p-port", "0", "--min-pow-score", "0"], 20_000, { mqtt: true });
  });
  after(async () => {
    for (const c of tcp) c.socket.destroy();
    for (const w of ws) w.terminate();
    await node?.close();
  });

  /** A WebSocket subscriber to `blocks` from `localAddress` that stops reading after its SUBACK. */
  const wsSubscriber = (i: number, localAddress: string): Promise<WebSocket | undefined> =>
    new Promise((resolve) => {
      const w = new WebSocket(`${node.url.replace("http", "ws")}/api/mqtt/v1`, "mqtt", { localAddress });
      const timer = setTimeout(() => resolve(undefined), 10_000);
      w.on("error", () => {});
      w.on("close", () => resolve(undefined));
      w.on("open", () => {
        w.send(mqttPacket.generate(connectPacket(`ws-slow-${i}`)));
        w.send(mqttPacket.generate({ cmd: "subscribe", messageId: 1, subscriptions: [{ topic: "blocks", qos: 0 }] }));
      });
      const parser = mqttPacket.parser({ protocolVersion: 4 });
      parser.on("packet", (p) => {
        if (p.cmd !== "suback") return;
        clearTimeout(timer);
        // reads nothing from now on
        (w as unknown as { _socket: { pause(): void } })._socket.pause();
        resolve(w);
      });
      w.on("message", (d: Buffer) => parser.parse(d));
    });

  it("bounds the memory slow subscribers hold while blocks flow", async (t) => {
    await inBatches(
      Array.from({ length: TCP_SUBSCRIBERS }, (_, i) => i),
      20,
      async (i) => {
        const c = await connectedMqtt(node.mqttPort!, ATTACKER_ADDRESSES[i % ATTACKER_ADDRESSES.length]!, `slow-${i}`);
        if (!c) return;
        c.send({ cmd: "subscribe", messageId: 1, subscriptions: [{ topic: "blocks", qos: 0 }] });
        if (await c.next("suback").catch(() => undefined)) {
          c.socket.pause(); // reads nothing from now on
          tcp.push(c);
        } else c.socket.destroy();
      },
    );
    for (let i = 0; i < WS_SUBSCRIBERS; i++) {
      const w = await wsSubscriber(i, ATTACKER_ADDRESSES[i % ATTACKER_ADDRESSES.length]!);
      if (w) ws.push(w);
    }
    assert.equal(tcp.length + ws.length, TCP_SUBSCRIBERS + WS_SUBSCRIBERS, "every slow subscriber subscribed");

    const rssBefore = rssMiB(node.pid);
    let rssPeak = rssBefore;
    const cadence = await startCadence(node.url);
    const started = Date.now();
    const submitting = () => Date.now() - started < SUBMIT_MS;
    const watch = setInterval(() => {
      try {
        rssPeak = Math.max(rssPeak, rssMiB(node.pid));
      } catch {
        // the process is gone: the assertions below say so
      }
    }, 200);
    const probes = probeHonestly(node.url, submitting);
    const data = `0x${"ab".repeat(DATA_BYTES)}`;
    let sent = 0;
    let accepted = 0;
    await Promise.all(
      Array.from({ length: SUBMIT_CONCURRENCY }, async () => {
        while (submitting()) {
          const n = sent++;
          const res = await fetch(`${node.url}/api/core/v2/blocks`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({
              protocolVersion: 2,
              payload: { type: 5, tag: `0x${n.toString(16).padStart(8, "0")}`, data },
            }),
            signal: AbortSignal.timeout(10_000),
          }).catch(() => undefined);
          if (res?.status === 201) accepted++;
          await res?.arrayBuffer().catch(() => {});
        }
      }),
    );
    const result = await probes;
    clearInterval(watch);
    rssPeak = Math.max(rssPeak, rssMiB(node.pid));
    const milestones = await cadence.check();
    t.diagnostic(
      `${accepted} of ${sent} blocks accepted; RSS ${rssBefore.toFixed(0)} → peak ${rssPeak.toFixed(0)} MiB`,
    );

    assert.ok(
      rssPeak - rssBefore <= MAX_RSS_GROWTH_MIB,
      `RSS ${rssBefore.toFixed(0)} → peak ${rssPeak.toFixed(0)} MiB (+${(rssPeak - rssBefore).toFixed(0)}, limit +${MAX_RSS_GROWTH_MIB}) with ${tcp.length + ws.length} subscribers not reading and ${accepted} blocks of ${DATA_BYTES} bytes accepted`,
    );
    assert.ok(result.percent >= 95, describeProbes(result));
    assert.ok(milestones.ok, milestones.text);
  });
});
