import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import WebSocket from "ws";
import { type NodeProcess, startNodeProcess } from "../helpers/nodeProcess.js";
import {
  ATTACKER_ADDRESSES,
  connectedMqtt,
  describeProbes,
  inBatches,
  probeHonestly,
  type RawMqtt,
} from "./helpers/siege.js";

/**
 * Threat: logs an attacker can fill. Every oversized message sent to the event API makes the
 * node close that connection, which is right, but if each one is logged on its own (and a
 * WebSocket one with a full stack trace), an attacker who reconnects and repeats writes the
 * node's log as fast as it likes. The node must summarise: a line per interval with a count,
 * and no stack traces for a client's misbehaviour, while the HTTP API keeps answering.
 */

const OVERSIZED = 300;
/** How long the attack takes. */
const ATTACK_MS = 10_000;
/** Over the WebSocket limit of 256 KiB + 16 bytes. */
const WS_MESSAGE_BYTES = 300 * 1024;
/** Lines that may mention the oversized messages, all of them together. */
const MAX_LINES = 10;

describe("siege: oversized event API messages flood the log", { timeout: 120_000 }, () => {
  let node: NodeProcess;
  const open = new Set<{ destroy(): void }>();

  before(async () => {
    node = await startNodeProcess(["--p2p-port", "0", "--log-level", "info"], 20_000, { mqtt: true });
  });
  after(async () => {
    for (const s of open) s.destroy();
    await node?.close();
  });

  /** One WebSocket connection from `localAddress` that sends one oversized binary message; resolves once closed. */
  const oversizedWebSocket = (localAddress: string): Promise<void> =>
    new Promise((resolve) => {
      const w = new WebSocket(`${node.url.replace("http", "ws")}/api/mqtt/v1`, "mqtt", { localAddress });
      const handle = { destroy: () => w.terminate() };
      open.add(handle);
      const timer = setTimeout(() => w.terminate(), 5_000);
      w.on("error", () => {});
      w.on("open", () => w.send(Buffer.alloc(WS_MESSAGE_BYTES, 0x61), { binary: true }));
      w.on("close", () => {
        clearTimeout(timer);
        open.delete(handle);
        resolve();
      });
    });

  /** One MQTT-over-TCP client that announces a 10 MiB SUBSCRIBE; resolves once closed. */
  const oversizedPacket = async (i: number, localAddress: string): Promise<void> => {
    const client: RawMqtt | undefined = await connectedMqtt(node.mqttPort!, localAddress, `big-${i}`);
    if (!client) return;
    open.add(client.socket);
    // a SUBSCRIBE whose remaining length says 10 MiB, then its first 64 KiB
    client.socket.write(Buffer.from([0x82, 0x80, 0x80, 0x80, 0x05]));
    client.socket.write(Buffer.alloc(64 * 1024, 0x61));
    const timer = setTimeout(() => client.socket.destroy(), 5_000);
    await client.closed;
    clearTimeout(timer);
    open.delete(client.socket);
  };

  it("logs oversized messages as a count, without stack traces", async () => {
    const logFrom = node.output.length;
    let attacking = true;
    const probes = probeHonestly(node.url, () => attacking);
    const started = Date.now();
    // spread over ATTACK_MS: the i-th of each kind starts no earlier than its share of it
    const paced = (i: number) =>
      new Promise((r) => setTimeout(r, Math.max(0, started + (i * ATTACK_MS) / OVERSIZED - Date.now())));
    await Promise.all([
      inBatches(
        Array.from({ length: OVERSIZED }, (_, i) => i),
        8,
        async (i) => {
          await paced(i);
          await oversizedWebSocket(ATTACKER_ADDRESSES[0]);
        },
      ),
      inBatches(
        Array.from({ length: OVERSIZED }, (_, i) => i),
        8,
        async (i) => {
          await paced(i);
          await oversizedPacket(i, ATTACKER_ADDRESSES[1]);
        },
      ),
    ]);
    const attackMs = Date.now() - started;
    // what the node still has to say about it
    await new Promise((r) => setTimeout(r, 1_000));
    attacking = false;
    const result = await probes;

    const log = node.output.slice(logFrom);
    const traces = log.split("\n").filter((l) => /^\s+at /.test(l) || /\\n\s+at /.test(l));
    const mentions = log.split("\n").filter((l) => /oversized|max(imum)? payload|too (large|long|big)/i.test(l));
    assert.equal(
      traces.length,
      0,
      `${traces.length} stack trace lines in the node's log after ${OVERSIZED} oversized WebSocket messages and ${OVERSIZED} oversized MQTT packets in ${attackMs} ms; first: ${traces[0]?.slice(0, 300)}`,
    );
    assert.ok(
      mentions.length <= MAX_LINES,
      `${mentions.length} log lines about oversized messages (limit ${MAX_LINES}); first: ${mentions[0]?.slice(0, 300)}`,
    );
    assert.ok(result.percent >= 95, describeProbes(result));
  });
});
