import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import mqttPacket from "mqtt-packet";
import {
  type BrokerHarness,
  closeOf,
  connectPacket,
  openBroker,
  packetsOf,
  sleep,
  subscribePacket,
  within,
} from "./mqttHarness.js";

/**
 * The event API's server side of MQTT 3.1.1 (session.ts) with the real test client over TCP:
 * CONNECT/CONNACK, SUBSCRIBE with a mixed SUBACK, the current state, UNSUBSCRIBE, PINGREQ, and
 * each way a client is shown the door (a PUBLISH, a second CONNECT, no CONNECT in time, a
 * keep-alive passed by half again).
 */
/** Waits until `done` holds (at most 2 s). */
async function until(done: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 2_000;
  while (!done()) {
    if (Date.now() > end) assert.fail(`${what}: not within 2 s`);
    await sleep(5);
  }
}

describe("event API session (MQTT 3.1.1)", () => {
  let h: BrokerHarness;
  before(async () => {
    h = await openBroker({ connectTimeoutMs: 300, maxKeepAliveSeconds: 1 }, async (state) =>
      state.kind === "milestoneLatest"
        ? { topic: "milestone-info/latest", payload: Buffer.from('{"index":7}') }
        : undefined,
    );
  });
  after(() => h.close());

  it("connects, grants QoS 0 or refuses each filter, sends the current state, unsubscribes", async () => {
    const client = await h.client({ keepalive: 30 });
    const got: [string, string][] = [];
    client.on("message", (topic, payload) => got.push([topic, payload.toString()]));
    const suback = await client.subscribeAsync(["blocks", "#", "milestone-info/latest"], { qos: 1 }).then(
      () => assert.fail("every filter granted"),
      (e: { packet?: { granted: number[] } }) => e.packet!,
    );
    assert.deepEqual(suback.granted, [0, 0x80, 0], "QoS 0 granted whatever was asked; 0x80 for `#`");
    assert.equal(h.broker.stats.refusedSubscriptions, 1);
    await within(
      (async () => {
        while (got.length === 0) await sleep(5);
      })(),
      2_000,
      "the current state",
    );
    assert.deepEqual(got, [["milestone-info/latest", '{"index":7}']]);
    h.broker.publish("blocks", Buffer.from("b1"));
    await until(() => got.length >= 2, "the published block");
    assert.deepEqual(got[1], ["blocks", "b1"]);
    assert.equal(h.broker.stats.subscriptions, 2);
    await client.unsubscribeAsync("blocks");
    assert.equal(h.broker.hasSubscribers("blocks"), false);
    assert.equal(h.broker.stats.subscriptions, 1);
    assert.equal(h.broker.stats.connected.mqtt, 1);
    await client.endAsync();
    await until(() => h.broker.stats.connected.mqtt === 0, "the client gone");
    assert.equal(h.broker.stats.connected.mqtt, 0);
    assert.equal(h.broker.stats.subscriptions, 0);
  });

  it("answers PINGREQ, takes an empty client ID with clean session only, refuses other protocol levels", async () => {
    const a = await h.raw();
    a.socket.write(connectPacket({ clientId: "" }));
    a.socket.write(mqttPacket.generate({ cmd: "pingreq" }));
    // packets are flushed in batches a few milliseconds apart: wait for them, not for a fixed time
    await until(() => packetsOf(a.received).length >= 2, "the CONNACK and the PINGRESP");
    assert.deepEqual(
      packetsOf(a.received).map((p) => p.cmd),
      ["connack", "pingresp"],
    );
    assert.equal((packetsOf(a.received)[0] as mqttPacket.IConnackPacket).returnCode, 0);

    const b = await h.raw();
    // (the generator refuses to write it: by hand, protocol "MQTT" 4, flags 0, keep-alive 0, client ID "")
    b.socket.write(Buffer.from([0x10, 12, 0, 4, 0x4d, 0x51, 0x54, 0x54, 4, 0, 0, 0, 0, 0]));
    await within(b.closed, 2_000, "an empty ID without clean session closed");
    assert.equal((packetsOf(b.received)[0] as mqttPacket.IConnackPacket).returnCode, 2);

    const c = await h.raw();
    c.socket.write(connectPacket({ protocolId: "MQIsdp", protocolVersion: 3 }));
    await within(c.closed, 2_000, "MQTT 3.1 closed");
    assert.equal((packetsOf(c.received)[0] as mqttPacket.IConnackPacket).returnCode, 1);

    const d = await h.raw();
    // protocol level 9: the parser refuses it, the CONNACK still says 0x01 (§3.1.2.2)
    const level9 = connectPacket();
    level9[8] = 9;
    d.socket.write(level9);
    await within(d.closed, 2_000, "protocol level 9 closed");
    assert.equal((packetsOf(d.received)[0] as mqttPacket.IConnackPacket).returnCode, 1);
    a.socket.destroy();
  });

  it("disconnects a client that publishes", async () => {
    const before = h.broker.stats.dropped.publish;
    const client = await h.client();
    const closed = closeOf(client);
    client.publish("blocks", "forged");
    await within(closed, 2_000, "the publisher disconnected");
    assert.equal(h.broker.stats.dropped.publish, before + 1);
    assert.ok(h.lines.some((l) => /tried to publish/.test(l)));
  });

  it("closes a connection on a second CONNECT, or on a packet before CONNECT", async () => {
    const a = await h.raw();
    a.socket.write(connectPacket());
    await sleep(50);
    a.socket.write(connectPacket());
    await within(a.closed, 2_000, "a second CONNECT closed");
    const b = await h.raw();
    b.socket.write(subscribePacket(["blocks"]));
    await within(b.closed, 2_000, "a SUBSCRIBE before CONNECT closed");
    assert.deepEqual(packetsOf(b.received), [], "no SUBACK");
  });

  it("closes a connection that sends no CONNECT within the deadline", async () => {
    const before = h.broker.stats.dropped.connectTimeout;
    const started = Date.now();
    const a = await h.raw();
    await within(a.closed, 2_000, "the silent connection closed");
    const took = Date.now() - started;
    assert.ok(took >= 250, `closed after ${took} ms`);
    assert.equal(h.broker.stats.dropped.connectTimeout, before + 1);
  });

  it("closes a client silent for 1.5 times its keep-alive; keep-alive 0 counts as the maximum", async () => {
    const before = h.broker.stats.dropped.keepAlive;
    const silent = await h.raw();
    silent.socket.write(connectPacket({ keepalive: 0 }));
    const pinging = await h.raw();
    pinging.socket.write(connectPacket({ keepalive: 0 }));
    const started = Date.now();
    const timer = setInterval(() => pinging.socket.write(mqttPacket.generate({ cmd: "pingreq" })), 400);
    try {
      await within(silent.closed, 3_000, "the silent client closed");
      const took = Date.now() - started;
      assert.ok(took >= 1_300 && took < 2_500, `closed after ${took} ms (1.5 × 1 s)`);
      await sleep(500);
      assert.ok(!pinging.socket.destroyed, "a client that pings stays");
      assert.equal(h.broker.stats.dropped.keepAlive, before + 1);
    } finally {
      clearInterval(timer);
    }
  });
});
