import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import mqtt from "mqtt";
import { type NodeProcess, startNodeProcess } from "../helpers/nodeProcess.js";
import { connectedMqtt, destroyAll, inBatches, type RawMqtt, rawMqtt, startCadence } from "./helpers/siege.js";

/**
 * Threat: one address takes every event-API slot. From 127.0.0.2, 50 connections that never
 * send CONNECT and 997 clients that CONNECT without keep-alive and stay silent fill the
 * broker's client cap, so a subscriber from any other address is turned away. The node must
 * bound what one address holds and close connections that do not CONNECT in time (a CONNECT
 * deadline of 5 s), so a newcomer from 127.0.0.1 connects and receives milestones.
 */

const ATTACKER = "127.0.0.2";
const SILENT = 50;
const CONNECTED = 997;
/** A newcomer must have its CONNACK within this, then its first confirmed milestone. */
const CONNACK_MS = 2_000;
const FIRST_MESSAGE_MS = 3_000;
/** Connections that never CONNECT must be closed within this. */
const SILENT_CLOSED_MS = 10_000;

describe("siege: one address holds every event API slot", { timeout: 120_000 }, () => {
  let node: NodeProcess;
  const silent: RawMqtt[] = [];
  const attackers: RawMqtt[] = [];

  before(async () => {
    node = await startNodeProcess(["--p2p-port", "0"], 20_000, { mqtt: true });
  });
  after(async () => {
    destroyAll(silent.map((s) => s.socket));
    destroyAll(attackers.map((a) => a.socket));
    await node?.close();
  });

  /** A newcomer over WebSocket from 127.0.0.1: CONNACK within CONNACK_MS, then a confirmed milestone. */
  const newcomer = async (): Promise<string> => {
    const started = Date.now();
    let client: mqtt.MqttClient | undefined;
    try {
      const connecting = mqtt.connect(`${node.url.replace("http", "ws")}/api/mqtt/v1`, {
        reconnectPeriod: 0,
        connectTimeout: CONNACK_MS,
        wsOptions: { localAddress: "127.0.0.1" },
      });
      client = connecting;
      const acked = await new Promise<string>((resolve) => {
        connecting.once("connect", () => resolve("ok"));
        connecting.once("error", (e) => resolve(e.message || "error"));
        connecting.once("close", () => resolve("closed by the node before CONNACK"));
        setTimeout(() => resolve(`no CONNACK within ${CONNACK_MS} ms`), CONNACK_MS);
      });
      if (acked !== "ok") return acked;
      if (Date.now() - started > CONNACK_MS) return `CONNACK after ${Date.now() - started} ms`;
      const message = new Promise<boolean>((resolve) => {
        client!.once("message", (topic) => resolve(topic === "milestone-info/confirmed"));
        setTimeout(() => resolve(false), FIRST_MESSAGE_MS);
      });
      await client.subscribeAsync("milestone-info/confirmed");
      return (await message) ? "ok" : `no milestone within ${FIRST_MESSAGE_MS} ms`;
    } catch (e) {
      return (e as Error).message || "refused";
    } finally {
      await client?.endAsync(true).catch(() => {});
    }
  };

  it("lets a newcomer from another address subscribe, and closes connections that never CONNECT", async () => {
    const cadence = await startCadence(node.url);
    // first the connections that never CONNECT, then the silent clients
    for (let i = 0; i < SILENT; i++) {
      const s = await rawMqtt(node.mqttPort!, ATTACKER).catch(() => undefined);
      if (s) silent.push(s);
    }
    const clients = await inBatches(
      Array.from({ length: CONNECTED }, (_, i) => i),
      50,
      (i) => connectedMqtt(node.mqttPort!, ATTACKER, `idle-${i}`),
    );
    for (const c of clients) if (c) attackers.push(c);

    // a newcomer every second for ~20 s
    const outcomes: string[] = [];
    const until = Date.now() + 20_000;
    while (Date.now() < until) {
      const tried = Date.now();
      outcomes.push(await newcomer());
      await new Promise((r) => setTimeout(r, Math.max(0, 1_000 - (Date.now() - tried))));
    }
    const succeeded = outcomes.filter((o) => o === "ok").length;
    const failures: Record<string, number> = {};
    for (const o of outcomes) if (o !== "ok") failures[o] = (failures[o] ?? 0) + 1;
    assert.ok(
      succeeded >= 0.95 * outcomes.length,
      `${succeeded} of ${outcomes.length} newcomers from 127.0.0.1 connected within ${CONNACK_MS} ms and got a milestone (need 95 %) while ${attackers.length} clients and ${silent.length} connections without CONNECT from ${ATTACKER} were open; failures: ${JSON.stringify(failures)}`,
    );

    const milestones = await cadence.check();
    assert.ok(milestones.ok, milestones.text);

    const closedWithin = await Promise.all(
      silent.map((s) =>
        Promise.race([
          s.closed.then((at) => at - s.openedAt),
          new Promise<number>((r) => setTimeout(() => r(Infinity), 1)),
        ]),
      ),
    );
    const late = closedWithin.filter((ms) => ms > SILENT_CLOSED_MS).length;
    assert.equal(
      late,
      0,
      `${late} of ${silent.length} connections that never sent CONNECT were still open after ${SILENT_CLOSED_MS} ms (or closed later)`,
    );
  });
});
