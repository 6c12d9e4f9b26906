import assert from "node:assert/strict";
import { describe, it } from "node:test";
import mqttPacket from "mqtt-packet";
import {
  type DropReason,
  Flusher,
  QueueTotal,
  SubscriberConnection,
  type Transport,
} from "../../../src/api/mqtt/connection.js";

/** A transport that records each batch it is handed and holds `unsent` bytes as told. */
function fakeTransport() {
  const sent: Buffer[][] = [];
  const t = {
    sent,
    unsent: 0,
    closed: false,
    write: (packets: Buffer[]) => sent.push(packets),
    close: () => (t.closed = true),
  };
  return t satisfies Transport & { sent: Buffer[][]; closed: boolean };
}
const limits = { maxQueuedBytes: 1000, maxPacketBytes: 100 };
const flushed = () => new Promise((r) => setTimeout(r, 10));

describe("event API connection bounds", () => {
  it("passes whole packets split anywhere, and drops a connection announcing an oversized one", () => {
    const t = fakeTransport();
    const drops: DropReason[] = [];
    const conn = new SubscriberConnection(t, limits, new Flusher(1), new QueueTotal(), (r) => drops.push(r));
    const subscribe = mqttPacket.generate({
      cmd: "subscribe",
      messageId: 1,
      subscriptions: [{ topic: "blocks", qos: 0 }],
    });
    const ping = mqttPacket.generate({ cmd: "pingreq" });
    const stream = Buffer.concat([subscribe, ping, subscribe]);
    for (let i = 0; i < stream.length; i += 3) assert.ok(conn.receive(stream.subarray(i, i + 3)));
    assert.deepEqual([...drops], []);
    // a packet whose remaining length (two length bytes: 200) is above the limit
    conn.receive(Buffer.from([0x82, 0xc8]));
    conn.receive(Buffer.from([0x01]));
    assert.deepEqual([...drops], ["oversized"]);
    // more than four length bytes is malformed
    const t2 = fakeTransport();
    const conn2 = new SubscriberConnection(t2, limits, new Flusher(1), new QueueTotal(), (r) => drops.push(r));
    conn2.receive(Buffer.from([0x30, 0x80, 0x80, 0x80, 0x80, 0x01]));
    assert.deepEqual(drops, ["oversized", "oversized"]);
  });

  it("writes queued packets in one batch, and drops a client whose queue passes the bound", async () => {
    const t = fakeTransport();
    const drops: DropReason[] = [];
    const total = new QueueTotal();
    const conn = new SubscriberConnection(t, limits, new Flusher(1), total, (r) => {
      drops.push(r);
      conn.close();
    });
    for (let i = 0; i < 5; i++) conn.deliver(Buffer.alloc(100, i));
    assert.equal(total.bytes, 500);
    await flushed();
    assert.equal(t.sent.length, 1, "one write for the batch");
    assert.deepEqual(
      t.sent[0]!.map((b) => b.length),
      [500],
      "small packets joined",
    );
    assert.equal(total.bytes, 0);
    t.unsent = 600; // the socket still holds them: the client does not read
    for (let i = 0; i < 4; i++) conn.deliver(Buffer.alloc(100)); // 600 unsent + 400 queued: at the bound
    assert.deepEqual([...drops], []);
    conn.deliver(Buffer.alloc(100)); // one more byte than the bound allows
    assert.deepEqual(drops, ["slow"]);
    assert.ok(t.closed);
    await flushed();
    assert.equal(t.sent.length, 1, "nothing more written to a dropped client");
    assert.equal(total.bytes, 0, "a dropped client's queue is let go");
  });

  it("hands large packets to the socket as they are: one Buffer shared by every queue, never copied", async () => {
    const flusher = new Flusher(1);
    const total = new QueueTotal();
    const big = Buffer.alloc(30_000, 7);
    const small = Buffer.alloc(10, 1);
    const transports = [fakeTransport(), fakeTransport()];
    const conns = transports.map(
      (t) => new SubscriberConnection(t, { maxQueuedBytes: 1e6, maxPacketBytes: 100 }, flusher, total, () => {}),
    );
    for (const c of conns) for (const p of [small, small, big, small]) c.deliver(p);
    assert.equal(total.bytes, 2 * (30_000 + 30));
    await flushed();
    for (const t of transports) {
      assert.equal(t.sent.length, 1);
      assert.deepEqual(
        t.sent[0]!.map((b) => b.length),
        [20, 30_000, 10],
      );
      assert.equal(t.sent[0]![1], big, "the very Buffer that was published");
    }
  });
});
