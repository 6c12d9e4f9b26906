import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  ConnectionBudget,
  type ConnectionBudgetOptions,
  defaultConnectionBudgetOptions,
  type EvictReason,
  type Slot,
} from "../../../src/api/connectionBudget.js";

/** A connection whose idleness the test sets. */
class FakeSlot implements Slot {
  kind: Slot["kind"] = "http";
  readonly openedAt = Date.now();
  idle = 0;
  evicted: EvictReason | undefined;
  constructor(readonly address: string) {}
  idleFor(): number {
    return this.idle;
  }
  evict(reason: EvictReason): void {
    this.evicted = reason;
  }
}

/** A budget of the default options with `options` on top. */
const budgetOf = (options: Partial<ConnectionBudgetOptions>) =>
  new ConnectionBudget({ ...defaultConnectionBudgetOptions, ...options });

describe("connection budget", () => {
  it("makes room with the connection idle the longest, then the greediest address's oldest, else refuses", () => {
    const budget = budgetOf({ maxConnections: 100, minIdleMs: 1_000 });
    const pool = budget.pool({ max: 4, maxPerAddress: 3 });
    const a = [new FakeSlot("a"), new FakeSlot("a"), new FakeSlot("a")];
    const b = new FakeSlot("b");
    for (const s of [...a, b]) assert.ok(pool.admit(s));
    // full: b's connection idle 5 s makes room before a's idle 2 s
    a[1]!.idle = 2_000;
    b.idle = 5_000;
    const c = new FakeSlot("c");
    assert.ok(pool.admit(c));
    assert.equal(b.evicted, "idle");
    assert.equal(a[1]!.evicted, undefined);
    // nothing idle for the minimum: the greediest address (a, 3 slots) gives its idlest, else its oldest
    a[1]!.idle = 500;
    const d = new FakeSlot("d");
    assert.ok(pool.admit(d));
    assert.equal(a[1]!.evicted, "greedy");
    a[2]!.idle = 0;
    const e = new FakeSlot("e");
    assert.ok(pool.admit(e));
    assert.equal(a[0]!.evicted, "greedy", "nothing of a's idle: its oldest");
    assert.equal(pool.size, 4);
    // every address holds as little as the newcomer would: refused
    const pool2 = budget.pool({ max: 2, maxPerAddress: 2 });
    assert.ok(pool2.admit(new FakeSlot("x")));
    assert.ok(pool2.admit(new FakeSlot("y")));
    assert.equal(pool2.admit(new FakeSlot("z")), false);
    assert.equal(budget.stats.refused.http, 1);
  });

  it("takes from the address with the most young idle connections before the greediest one", () => {
    const budget = budgetOf({ maxConnections: 100, minIdleMs: 1_000 });
    const pool = budget.pool({ max: 6, maxPerAddress: 6 });
    // an honest address with 3 busy subscribers; an attacker's 3 sockets reopened 100-300 ms ago
    const honest = [new FakeSlot("h"), new FakeSlot("h"), new FakeSlot("h")];
    const attacker = [new FakeSlot("x"), new FakeSlot("x"), new FakeSlot("x")];
    for (const s of [...honest, ...attacker]) assert.ok(pool.admit(s));
    attacker.forEach((s, i) => {
      s.idle = 100 * (i + 1);
    });
    const newcomer = new FakeSlot("n");
    newcomer.idle = 5;
    assert.ok(pool.admit(newcomer));
    assert.equal(attacker[2]!.evicted, "greedy");
    assert.ok(honest.every((s) => s.evicted === undefined));
  });

  it("refuses on arrival an address whose connections keep being closed, and holds its sockets before closing them", async () => {
    const budget = budgetOf({ maxConnections: 100, churnPerSecond: 1, churnBurst: 3, holdRefusedMs: 50 });
    const pool = budget.pool({ max: 4, maxPerAddress: 4 });
    const attacker = Array.from({ length: 4 }, () => new FakeSlot("x"));
    for (const s of attacker) {
      s.idle = 5_000;
      assert.ok(pool.admit(s), "free slots are never refused");
    }
    // honest newcomers take the attacker's idle slots; its third closed connection uses up its churn
    for (let i = 0; i < 3; i++) assert.ok(pool.admit(new FakeSlot(`honest-${i}`)));
    assert.equal(attacker.filter((s) => s.evicted).length, 3);
    // the attacker reopening is refused on arrival, even where its idle slot could make room
    assert.equal(pool.admit(new FakeSlot("x")), false);
    assert.equal(attacker[3]!.evicted, undefined);
    assert.ok(pool.admit(new FakeSlot("honest-3")), "another address still finds room");

    // its refused socket is held unread, then closed; another address's is closed at once
    const socket = (address: string) => {
      const s = { address, paused: false, destroyed: false, onClose: [] as (() => void)[] };
      return Object.assign(s, {
        pause: () => {
          s.paused = true;
        },
        destroy: () => {
          s.destroyed = true;
          for (const f of s.onClose) f();
        },
        once: (_event: "close", f: () => void) => s.onClose.push(f),
      });
    };
    const held = socket("x");
    pool.turnAway(held, "x");
    assert.ok(held.paused && !held.destroyed);
    const other = socket("y");
    pool.turnAway(other, "y");
    assert.ok(other.destroyed);
    await new Promise((r) => setTimeout(r, 80));
    assert.ok(held.destroyed, "closed after the hold");
  });

  it("at a per-address cap only that address's idle connections make room", () => {
    const budget = budgetOf({ maxConnections: 100, minIdleMs: 1_000 });
    const pool = budget.pool({ max: 10, maxPerAddress: 2 });
    const [a1, a2] = [new FakeSlot("a"), new FakeSlot("a")];
    assert.ok(pool.admit(a1));
    assert.ok(pool.admit(a2));
    assert.equal(pool.admit(new FakeSlot("a")), false, "nothing idle: the newcomer is refused");
    a2.idle = 3_000;
    assert.ok(pool.admit(new FakeSlot("a")));
    assert.equal(a2.evicted, "idle");
    assert.equal(a1.evicted, undefined);
  });

  it("holds every pool within the one total", () => {
    const budget = budgetOf({ maxConnections: 3, minIdleMs: 1_000 });
    const http = budget.pool({ max: 10, maxPerAddress: 10 });
    const mqtt = budget.pool({ max: 10, maxPerAddress: 10 });
    const held = [new FakeSlot("m"), new FakeSlot("m"), new FakeSlot("m")];
    for (const s of held) {
      s.kind = "mqtt";
      assert.ok(mqtt.admit(s));
    }
    // an HTTP newcomer from another address gets in: the address holding the whole budget gives way
    assert.ok(http.admit(new FakeSlot("h")));
    assert.equal(held[0]!.evicted, "greedy");
    assert.deepEqual(budget.openByKind(), { http: 1, websocket: 0, mqtt: 2, p2p: 0 });
    assert.equal(budget.stats.evicted.mqtt, 1);
    // a released slot frees its place
    http.release([...held][1]!); // not in this pool: ignored
    assert.equal(mqtt.size, 2);
  });
});
