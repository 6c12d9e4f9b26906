import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ConnectionBudget, defaultConnectionBudgetOptions } from "../../../src/api/connectionBudget.js";
import type { Message } from "../../../src/api/mqtt/broker.js";
import { closeOf, connectPacket, metadataTopic, openBroker, sleep, subscribePacket, within } from "./mqttHarness.js";

/**
 * The event API's budgets across clients: subscriptions in total (refused in the SUBACK past
 * it), bytes queued in total (the biggest holders dropped first), connections per address
 * (through the connection budget's pool), and what a client held freed when it leaves.
 */
describe("event API budgets", () => {
  it("refuses subscriptions past the total in the SUBACK, without disconnecting, until the holder leaves", async () => {
    const h = await openBroker({ maxTotalSubscriptions: 3 });
    try {
      const a = await h.client();
      await a.subscribeAsync(["blocks", "milestones", metadataTopic(1)]);
      const b = await h.client();
      const refused = await b.subscribeAsync("blocks").then(
        () => assert.fail("granted past the total"),
        (e: { packet?: { granted: number[] } }) => e.packet!.granted,
      );
      assert.deepEqual(refused, [0x80]);
      assert.ok(b.connected, "a refused subscription is no reason to disconnect");
      assert.equal(h.broker.stats.refusedSubscriptions, 1);
      assert.equal(h.broker.stats.subscriptions, 3);
      await a.endAsync();
      await sleep(50);
      assert.equal(h.broker.stats.subscriptions, 0);
      const granted = await b.subscribeAsync("blocks");
      assert.equal(granted[0]!.qos, 0);
    } finally {
      await h.close();
    }
  });

  it("drops the stopped reader first when the bytes held for all together pass the bound", async () => {
    // greedy stops reading, modest reads: what greedy's socket cannot send piles up past 8 MiB
    const h = await openBroker({ maxTotalQueuedBytes: 8 * 1024 * 1024, maxQueuedBytes: 64 * 1024 * 1024 });
    try {
      const greedy = await h.raw();
      greedy.socket.write(connectPacket({ clientId: "greedy" }));
      greedy.socket.write(subscribePacket(["blocks", "blocks/tagged-data"]));
      const modest = await h.client();
      await modest.subscribeAsync("blocks");
      await within(
        (async () => {
          while (h.broker.stats.subscriptions < 3) await sleep(10);
        })(),
        2_000,
        "three subscriptions",
      );
      greedy.socket.pause();
      const block = Buffer.alloc(100_000, 1);
      for (let round = 0; round < 400 && h.broker.stats.dropped.budget === 0; round++) {
        h.broker.publish("blocks", block);
        h.broker.publish("blocks/tagged-data", block);
        await sleep(2);
      }
      assert.equal(h.broker.stats.dropped.budget, 1);
      assert.ok(modest.connected, "the reader stays");
      assert.equal(h.broker.stats.connected.mqtt, 1);
      assert.ok(h.broker.held().queuedBytes <= 8 * 1024 * 1024);
      assert.ok(h.lines.some((l) => /passed their bound/.test(l)));
    } finally {
      await h.close();
    }
  });

  it("counts events held by many stopped readers once, and drops each reader once it is too far behind", async () => {
    // 32 MiB for all together; 10 readers stop reading, then 24 MB of events go to each of them
    // (loopback's buffers take some 6 MB of them): counted per socket they would hold far more
    // than the bound, held once they are within it
    const h = await openBroker({
      maxTotalQueuedBytes: 32 * 1024 * 1024,
      maxQueuedBytes: 64 * 1024 * 1024,
      flushDelayMs: 1,
      maxLagMs: 1_500,
    });
    try {
      const readers = await Promise.all(Array.from({ length: 10 }, () => h.raw()));
      readers.forEach((r, k) => {
        r.socket.write(connectPacket({ clientId: `r${k}` }));
        r.socket.write(subscribePacket(["blocks"]));
      });
      await within(
        (async () => {
          while (h.broker.stats.subscriptions < 10) await sleep(10);
        })(),
        2_000,
        "ten subscriptions",
      );
      for (const r of readers) r.socket.pause();
      const block = Buffer.alloc(100_000, 9);
      for (let i = 0; i < 240; i++) {
        h.broker.publish("blocks", block);
        if (i % 10 === 9) await sleep(5); // flushed as they go
      }
      await sleep(200);
      const unsent = h.broker.held().queuedBytes;
      assert.equal(h.broker.stats.dropped.budget, 0, "within the bound: the batches are held once");
      assert.ok(unsent > 0 && unsent <= 24_100_000, `held ${unsent} bytes, at most the events published`);
      // nothing of the last 1.5 s was read: each is dropped as too slow, and all it held goes
      // (a paused socket does not see its reset: the broker's count says)
      await within(
        (async () => {
          while (h.broker.stats.dropped.slow < 10) await sleep(20);
        })(),
        5_000,
        "the readers too far behind dropped",
      );
      assert.ok(h.lines.some((l) => /fell too far behind/.test(l)));
      assert.equal(h.broker.held().queuedBytes, 0);
    } finally {
      await h.close();
    }
  });

  it("holds each address to its cap through the pool: an idle connection makes room, a busy one does not", async () => {
    const budget = new ConnectionBudget({ ...defaultConnectionBudgetOptions, minIdleMs: 100 });
    const h = await openBroker({}, undefined, budget.pool({ max: 10, maxPerAddress: 2 }));
    try {
      const a = await h.client();
      await a.subscribeAsync("blocks");
      const b = await h.client();
      await b.subscribeAsync("milestones");
      // both hold subscriptions: of use, so the third connection of the address is refused
      const c = await h.raw();
      await within(c.closed, 2_000, "the third connection of the address closed");
      assert.equal(h.broker.stats.dropped.full, 1);
      assert.equal(budget.stats.refused.mqtt, 1);
      // one that holds nothing and stays silent past minIdleMs makes room for a newcomer
      await b.unsubscribeAsync("milestones");
      await sleep(200);
      const bGone = closeOf(b);
      const d = await h.raw();
      d.socket.write(connectPacket());
      await within(bGone, 2_000, "the idle connection evicted");
      assert.equal(h.broker.stats.dropped.evicted, 1);
      assert.ok(!d.socket.destroyed);
      assert.ok(a.connected);
      assert.equal(h.broker.stats.connected.mqtt, 2);
    } finally {
      await h.close();
    }
  });

  it("reads current states a few at a time, and frees everything a client held when it leaves", async () => {
    let inFlight = 0;
    let peak = 0;
    let reads = 0;
    const current = async (): Promise<Message | undefined> => {
      inFlight++;
      reads++;
      peak = Math.max(peak, inFlight);
      await sleep(5);
      inFlight--;
      return { topic: "x", payload: Buffer.from("state") };
    };
    const h = await openBroker({ currentStateConcurrency: 4 }, current);
    try {
      const raws = await Promise.all(Array.from({ length: 10 }, () => h.raw()));
      raws.forEach((r, k) => {
        r.socket.write(connectPacket({ clientId: `c${k}` }));
        // 500 subscriptions each, some shared between clients
        for (let i = 0; i < 5; i++)
          r.socket.write(
            subscribePacket(
              Array.from({ length: 100 }, (_, j) => metadataTopic(k * 300 + i * 100 + j)),
              i + 1,
            ),
          );
      });
      await within(
        (async () => {
          while (h.broker.stats.subscriptions < 5_000) await sleep(10);
        })(),
        5_000,
        "5,000 subscriptions",
      );
      const held = h.broker.held();
      assert.ok(held.pendingReads > 4_000, `${held.pendingReads} reads pending`);
      assert.ok(held.filters < 5_000, "shared topics are one entry");
      for (const r of raws) r.socket.destroy();
      await within(
        (async () => {
          while (h.broker.held().sessions > 0) await sleep(10);
        })(),
        2_000,
        "every session ended",
      );
      await sleep(50);
      assert.deepEqual(h.broker.held(), {
        sessions: 0,
        subscriptions: 0,
        filters: 0,
        levels: 0,
        pendingReads: 0,
        queuedBytes: 0,
        pooled: 0,
      });
      assert.ok(peak <= 4, `${peak} reads at once`);
      assert.ok(reads < 1_000, `${reads} reads made for clients that left`);
      assert.equal(h.broker.stats.subscriptions, 0);
    } finally {
      await h.close();
    }
  });
});
