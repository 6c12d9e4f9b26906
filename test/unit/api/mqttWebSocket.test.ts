import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { after, before, describe, it } from "node:test";
import mqtt from "mqtt";
import mqttPacket from "mqtt-packet";
import WebSocket from "ws";
import type { EventBroker } from "../../../src/api/mqtt/broker.js";
import { eventApiOf } from "../../../src/api/mqtt/eventApi.js";
import { type Harness, openHarness } from "../../helpers/coreHarness.js";
import { waitFor } from "../../helpers/waitFor.js";

/** `@iota/mqtt.js@2.0.0-rc.3`, the Stardust MQTT client, as a wallet or an explorer uses it. */
interface IotaMqttClient {
  subscribeRaw(topic: string, callback: (topic: string, data: Uint8Array) => void): string;
  mqttDisconnect(): void;
}
const { MqttClient } = createRequire(import.meta.url)("@iota/mqtt.js") as {
  MqttClient: new (endpoint: string) => IotaMqttClient;
};

/** A WebSocket subscriber of `blocks` that records each binary frame the node sends. */
async function rawSubscriber(url: string): Promise<{ frames: Buffer[]; close(): void }> {
  const ws = new WebSocket(url, "mqtt");
  const frames: Buffer[] = [];
  ws.on("message", (data: Buffer) => frames.push(data));
  await new Promise((resolve, reject) => {
    ws.once("open", resolve);
    ws.once("error", reject);
  });
  ws.send(
    mqttPacket.generate({ cmd: "connect", protocolId: "MQTT", protocolVersion: 4, clean: true, clientId: "raw" }),
  );
  ws.send(mqttPacket.generate({ cmd: "subscribe", messageId: 1, subscriptions: [{ topic: "blocks", qos: 0 }] }));
  return { frames, close: () => ws.terminate() };
}

/** The PUBLISH payloads in a run of MQTT bytes. */
function publishedPayloads(bytes: Buffer): Buffer[] {
  const out: Buffer[] = [];
  const parser = mqttPacket.parser({ protocolVersion: 4 });
  parser.on("packet", (p) => {
    if (p.cmd === "publish") out.push(p.payload as Buffer);
  });
  parser.parse(bytes);
  return out;
}

/**
 * The event API writes a subscriber's batch of PUBLISH packets as one WebSocket frame (MQTT
 * 3.1.1 §6.0 lets a frame hold several packets, or part of one): `@iota/mqtt.js` and the `mqtt`
 * package read every packet of such frames, in order, and of a batch split over several frames
 * with a packet cut across two.
 */
describe("event API over WebSocket: batches as frames", () => {
  let h: Harness;
  let broker: EventBroker;
  let url: string;
  before(async () => {
    h = await openHarness({ minPowScore: 0 });
    await h.app.listen({ host: "127.0.0.1", port: 0 });
    url = `ws://127.0.0.1:${(h.app.server.address() as { port: number }).port}/api/mqtt/v1`;
    broker = eventApiOf(h.app)!.broker;
  });
  after(async () => {
    await h.close();
  });

  it("delivers every packet of multi-packet frames to @iota/mqtt.js and mqtt.js, in order", async () => {
    const iota = new MqttClient(url);
    const viaIota: Buffer[] = [];
    iota.subscribeRaw("blocks", (_t, data) => viaIota.push(Buffer.from(data)));
    const mqttJs = await mqtt.connectAsync(url, { reconnectPeriod: 0 });
    const viaMqttJs: Buffer[] = [];
    mqttJs.on("message", (_t, payload) => viaMqttJs.push(payload));
    await mqttJs.subscribeAsync("blocks");
    const raw = await rawSubscriber(url);
    try {
      await waitFor(async () => (broker.stats.subscriptions >= 3 ? true : undefined), 5_000, "three subscriptions");
      await new Promise((r) => setTimeout(r, 50)); // the SUBACKs flushed
      const framesBefore = raw.frames.length;
      // 300 messages in one turn of the event loop, then 40 of 30 KB: 1.2 MB, past one frame's 1 MiB
      const small = Array.from({ length: 300 }, (_, i) => Buffer.from(`message ${i}`));
      for (const m of small) broker.publish("blocks", m);
      await waitFor(async () => (raw.frames.length > framesBefore ? true : undefined), 5_000, "the first batch");
      const large = Array.from({ length: 40 }, (_, i) => Buffer.alloc(30_000, i));
      for (const m of large) broker.publish("blocks", m);
      const all = [...small, ...large];
      const viaRaw = () => publishedPayloads(Buffer.concat(raw.frames.slice(framesBefore))).length;
      await waitFor(
        async () =>
          viaIota.length >= all.length && viaMqttJs.length >= all.length && viaRaw() >= all.length ? true : undefined,
        10_000,
        `all ${all.length} messages (@iota/mqtt.js ${viaIota.length}, mqtt.js ${viaMqttJs.length}, raw ${viaRaw()})`,
      );
      assert.deepEqual(viaIota, all, "@iota/mqtt.js got each message once, in order");
      assert.deepEqual(viaMqttJs, all, "mqtt.js got each message once, in order");
      const frames = raw.frames.slice(framesBefore);
      assert.deepEqual(publishedPayloads(Buffer.concat(frames)), all);
      assert.equal(publishedPayloads(frames[0]!).length, 300, "the first batch in one frame");
      assert.ok(frames.length >= 3, "the large batch in two frames at least");
      assert.ok(
        frames.every((f) => f.length <= 1024 * 1024),
        "no frame over 1 MiB",
      );
    } finally {
      iota.mqttDisconnect();
      await mqttJs.endAsync(true);
      raw.close();
    }
  });
});
