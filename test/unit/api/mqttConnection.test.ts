import assert from "node:assert/strict";
import { describe, it } from "node:test";
import mqttPacket from "mqtt-packet";
import { type DropReason, SubscriberConnection, type Transport } from "../../../src/api/mqtt/connection.js";
import { type Batch, Flusher, QueueTotal } from "../../../src/api/mqtt/flusher.js";

/**
 * A transport that records each batch it is handed; while `reading` is false, what it is
 * handed stays unsent, as in the socket of a client that stopped reading.
 */
function fakeTransport() {
  const sent: Batch[] = [];
  const t = {
    sent,
    unsent: 0,
    reading: true,
    closed: false,
    /** The `sent` calls of the batches still unsent, oldest first. */
    waiting: [] as (() => void)[],
    write: (batch: Batch, done: () => void) => {
      sent.push(batch);
      if (t.reading) done();
      else {
        t.unsent += batch.length;
        t.waiting.push(done);
      }
    },
    /** The client reads what the socket held. */
    drain: () => {
      t.unsent = 0;
      for (const done of t.waiting.splice(0)) done();
    },
    close: () => (t.closed = true),
  };
  return t satisfies Transport & { sent: Batch[]; closed: boolean };
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
    const conn = new SubscriberConnection(t, limits, new Flusher(1, undefined, total), total, (r) => {
      drops.push(r);
      conn.close();
    });
    t.reading = false; // the client stops reading: the socket holds what it is handed
    for (let i = 0; i < 5; i++) conn.deliver(Buffer.alloc(100, i));
    await flushed();
    assert.equal(t.sent.length, 1, "one write for the batch");
    assert.equal(t.sent[0]!.data.length, 500, "the packets joined");
    assert.deepEqual(t.sent[0]!.data.subarray(99, 101), Buffer.from([0, 1]), "in order");
    assert.equal(total.inSockets, 500, "unsent in the socket");
    assert.equal(t.unsent, 500);
    for (let i = 0; i < 5; i++) conn.deliver(Buffer.alloc(100)); // 500 unsent + 500 queued: at the bound
    assert.deepEqual([...drops], []);
    conn.deliver(Buffer.alloc(1)); // one more byte than the bound allows
    assert.deepEqual(drops, ["slow"]);
    assert.ok(t.closed);
    await flushed();
    assert.equal(t.sent.length, 1, "nothing more written to a dropped client");
    assert.equal(total.inSockets, 0, "what a dropped client's socket held is let go");
    t.drain(); // the socket's late word on a batch of a closed connection changes nothing
    assert.equal(total.held, 0);
  });

  it("counts a batch held by many sockets once, until the last of them has sent it or closed", async () => {
    const total = new QueueTotal();
    const flusher = new Flusher(1, undefined, total);
    const transports = [fakeTransport(), fakeTransport(), fakeTransport()];
    const conns = transports.map(
      (t) => new SubscriberConnection(t, { maxQueuedBytes: 1e6, maxPacketBytes: 100 }, flusher, total, () => {}),
    );
    for (const t of transports) t.reading = false;
    const packet = Buffer.alloc(10_000, 3);
    total.queued += packet.length; // as the broker counts an event's packet: once
    for (const c of conns) c.deliver(packet);
    await flushed();
    assert.equal(total.queued, 0, "every queue taken by the flush");
    assert.equal(total.inSockets, 10_000, "one batch in three sockets: held once");
    transports[0]!.drain();
    conns[1]!.close();
    assert.equal(total.inSockets, 10_000, "a socket still holds it");
    const at = Date.now();
    assert.ok(conns[2]!.lagMs(at + 500) >= 500, "the oldest unsent batch's age");
    assert.equal(conns[0]!.lagMs(at + 500), 0, "nothing unsent");
    transports[2]!.drain();
    assert.equal(total.held, 0, "the last holder sent it");
    assert.equal(conns[2]!.lagMs(at + 500), 0);
  });

  it("reads the socket's unsent bytes again before dropping a client that caught up", async () => {
    const t = fakeTransport();
    const drops: DropReason[] = [];
    const conn = new SubscriberConnection(t, limits, new Flusher(1), new QueueTotal(), (r) => drops.push(r));
    t.reading = false;
    for (let i = 0; i < 9; i++) conn.deliver(Buffer.alloc(100));
    await flushed();
    assert.equal(t.unsent, 900);
    t.unsent = 0; // the client read it all since
    for (let i = 0; i < 10; i++) conn.deliver(Buffer.alloc(100));
    assert.deepEqual(drops, [], "within the bound once the socket is read again");
  });

  it("joins the queues of subscribers of the same packets once, and hands each socket that one Buffer", async () => {
    const flusher = new Flusher(1);
    const big = Buffer.alloc(30_000, 7);
    const small = Buffer.alloc(10, 1);
    const other = Buffer.alloc(5, 2);
    const transports = [fakeTransport(), fakeTransport(), fakeTransport()];
    const conns = transports.map(
      (t) =>
        new SubscriberConnection(t, { maxQueuedBytes: 1e6, maxPacketBytes: 100 }, flusher, new QueueTotal(), () => {}),
    );
    for (const c of conns) for (const p of [small, small, big, small]) c.deliver(p);
    conns[2]!.deliver(other); // a subscriber of one more topic: a batch of its own
    await flushed();
    const [a, b, c] = transports.map((t) => {
      assert.equal(t.sent.length, 1);
      return t.sent[0]!;
    });
    assert.equal(a, b, "one batch for both");
    assert.equal(a!.data, b!.data, "the very Buffer, joined once");
    assert.deepEqual(a!.data, Buffer.concat([small, small, big, small]));
    assert.notEqual(c, a);
    assert.deepEqual(c!.data, Buffer.concat([small, small, big, small, other]));
    let framed = 0;
    const frame = (batch: Batch) => {
      framed++;
      return [batch.data];
    };
    assert.equal(a!.encoded(frame)[0], b!.encoded(frame)[0]);
    assert.equal(framed, 1, "a transport's framing made once per batch");
  });

  it("waits longer between flushes as the connections written at each grow past the writes-per-second aim", async () => {
    // 20 connections and 1,000 writes/s: 20 ms between flushes, not 1
    const flusher = new Flusher(1, 1000);
    const transports = Array.from({ length: 20 }, () => fakeTransport());
    const conns = transports.map(
      (t) =>
        new SubscriberConnection(t, { maxQueuedBytes: 1e6, maxPacketBytes: 100 }, flusher, new QueueTotal(), () => {}),
    );
    const deliverAll = () => {
      for (const c of conns) c.deliver(Buffer.alloc(10));
    };
    deliverAll();
    await flushed(); // the first flush: 1 ms
    assert.equal(transports[0]!.sent.length, 1);
    deliverAll();
    await flushed();
    assert.equal(transports[0]!.sent.length, 1, "not yet after 10 ms");
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(transports[0]!.sent.length, 2);
  });
});
