import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { NetworkErrorCode } from "../../../src/network/errors.js";
import type { Heartbeat } from "../../../src/network/index.js";
import { ParentRequester } from "../../../src/network/parentRequester.js";
import { CLAIM_TIMEOUTS, SyncManager } from "../../../src/network/syncManager.js";
import { LedgerNodeError } from "../../../src/util/ledgerNodeError.js";

const heartbeat = (solid: number, latest = solid, pruned = 0): Heartbeat => ({
  solidMilestoneIndex: solid,
  prunedMilestoneIndex: pruned,
  latestMilestoneIndex: latest,
  connectedPeers: 1,
  syncedPeers: 1,
});

/** A sync manager over a fake ledger whose fetches are recorded and settled by the test. */
function harness(options: { window?: number; isCoordinator?: boolean } = {}) {
  let t = 1000;
  let ledger = 10;
  const stored = new Set<number>();
  const fetches: { peer: string; index: number; settle: (ok: boolean | "timeout") => void }[] = [];
  const errors: number[] = [];
  const refuted: string[] = [];
  const sync = new SyncManager(
    { syncTolerance: 1, syncWindow: options.window ?? 4, requestDelayMs: 100, retryMs: 50 },
    {
      ledgerIndex: () => ledger,
      isCoordinator: options.isCoordinator ?? false,
      hasMilestone: (i) => stored.has(i),
      fetchCone: (peer, index) =>
        new Promise<void>((resolve, reject) =>
          fetches.push({
            peer,
            index,
            settle: (ok) => (ok === true ? resolve() : reject(ok === "timeout" ? timeout(peer) : new Error("no"))),
          }),
        ),
      onError: (_peer, index) => errors.push(index),
      onClaimRefuted: (peer, index) => refuted.push(`${index}@${peer}`),
    },
    () => t,
  );
  sync.start(60_000);
  return {
    sync,
    fetches,
    errors,
    refuted,
    stored,
    advance: (ms: number) => (t += ms),
    setLedger: (i: number) => (ledger = i),
  };
}

const timeout = (peer: string) => new LedgerNodeError(NetworkErrorCode.Timeout, `no answer from ${peer}`);

const settleAll = async (fetches: { settle: (ok: boolean | "timeout") => void }[], ok: boolean | "timeout") => {
  for (const f of fetches.splice(0)) f.settle(ok);
  await new Promise((r) => setImmediate(r));
};

describe("sync manager", () => {
  it("is synced within the tolerance of the newest milestone received; the coordinator always is", () => {
    const h = harness();
    assert.equal(h.sync.isSynced(), true, "no peers: nothing is known to be newer");
    h.sync.milestoneSeen(11);
    assert.equal(h.sync.isSynced(), true, "one behind: the milestone being confirmed");
    h.sync.milestoneSeen(12);
    assert.equal(h.sync.isSynced(), false);
    assert.equal(h.sync.latestMilestoneIndex(), 12);
    h.sync.stop();
    const coo = harness({ isCoordinator: true });
    coo.sync.onHeartbeat("p", heartbeat(50));
    assert.equal(coo.sync.isSynced(), true);
    assert.equal(coo.fetches.length, 0, "the coordinator never fetches");
    coo.sync.stop();
  });

  it("takes a peer's claim as a hint to ask for it; a claim not delivered is doubted and reported", async () => {
    const h = harness({ window: 4 });
    h.sync.onHeartbeat("liar", heartbeat(0xfffffff0));
    assert.equal(h.sync.isSynced(), true, "a heartbeat alone is no milestone");
    assert.equal(h.sync.latestMilestoneIndex(), 10);
    h.advance(100);
    h.sync.tick();
    assert.ok(
      h.fetches.some((f) => f.index === 0xfffffff0 && f.peer === "liar"),
      "the claim is asked for",
    );
    await settleAll(h.fetches, false);
    assert.deepEqual(h.refuted, ["11@liar"], "reported once: the window's first failure refutes its claim");
    // its claims from there up are ignored: nothing more is asked of it
    h.advance(1000);
    h.sync.onHeartbeat("liar", heartbeat(0xfffffff0));
    h.sync.tick();
    assert.equal(h.fetches.length, 0);
    assert.equal(h.sync.latestMilestoneIndex(), 10);
    // an honest claim: asked for, arrives (the milestone is received), then counts
    h.sync.onHeartbeat("honest", heartbeat(12));
    h.advance(100);
    h.sync.tick();
    assert.deepEqual(
      h.fetches.map((f) => `${f.index}@${f.peer}`),
      ["11@honest", "12@honest"],
    );
    h.sync.milestoneSeen(12);
    await settleAll(h.fetches, true);
    assert.equal(h.sync.isSynced(), false);
    assert.deepEqual(h.refuted, ["11@liar"]);
    h.sync.stop();
  });

  it("gives a slow peer a few timeouts before its claim is doubted, so a lone honest peer does not stall sync", async () => {
    const h = harness({ window: 1 });
    h.sync.onHeartbeat("slow", heartbeat(20));
    for (let i = 1; i < CLAIM_TIMEOUTS; i++) {
      h.advance(100);
      h.sync.tick();
      assert.ok(
        h.fetches.some((f) => f.index === 11),
        `asked again after timeout ${i - 1}`,
      );
      await settleAll(h.fetches, "timeout");
      assert.deepEqual(h.refuted, []);
    }
    // a delivery resets the count
    h.advance(100);
    h.sync.tick();
    await settleAll(h.fetches, true);
    h.stored.add(11);
    h.setLedger(11);
    for (let i = 0; i < CLAIM_TIMEOUTS; i++) {
      h.advance(100);
      h.sync.tick();
      await settleAll(h.fetches, "timeout");
    }
    assert.deepEqual(h.refuted, ["12@slow"], "doubted after CLAIM_TIMEOUTS timeouts in a row");
    h.sync.stop();
  });

  it("asks for the window above the ledger from peers that have it, the newest index only after a delay", async () => {
    const h = harness({ window: 4 });
    h.sync.onHeartbeat("old", heartbeat(11, 11));
    h.sync.onHeartbeat("new", heartbeat(30, 30, 11));
    // 11 only "old" has unpruned; 12..14 only "new" has; the window ends at 14
    assert.deepEqual(
      h.fetches.map((f) => `${f.index}@${f.peer}`),
      ["11@old", "12@new", "13@new", "14@new"],
    );
    await settleAll(h.fetches, true);
    assert.equal(h.fetches.length, 0, "fetched, not yet confirmed: not asked again at once");
    h.setLedger(14);
    h.sync.tick();
    assert.deepEqual(
      h.fetches.map((f) => f.index),
      [15, 16, 17, 18],
    );
    await settleAll(h.fetches, true);
    // near the top, the newest index (30) waits the delay after it was first announced
    h.setLedger(29);
    h.sync.tick();
    assert.deepEqual(
      h.fetches.map((f) => f.index),
      [],
    );
    h.advance(100);
    h.sync.tick();
    assert.deepEqual(
      h.fetches.map((f) => f.index),
      [30],
    );
    h.sync.stop();
  });

  it("waits before asking for a freshly announced newest milestone, and retries a failed index elsewhere", async () => {
    const h = harness({ window: 8 });
    h.sync.onHeartbeat("p1", heartbeat(11));
    h.sync.onHeartbeat("p2", heartbeat(12));
    assert.deepEqual(
      h.fetches.map((f) => f.index),
      [11],
      "12 was announced just now: gossip may bring it",
    );
    h.advance(150);
    h.sync.tick();
    assert.deepEqual(
      h.fetches.map((f) => `${f.index}@${f.peer}`),
      ["11@p1", "12@p2"],
    );
    h.fetches[0]!.settle(false);
    h.fetches.shift();
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(h.errors, [11]);
    assert.equal(h.fetches.length, 1, "not asked again before the retry delay");
    h.advance(60);
    h.sync.tick();
    assert.deepEqual(
      h.fetches.map((f) => `${f.index}@${f.peer}`),
      ["12@p2", "11@p2"],
      "asked from another peer",
    );
    h.sync.stop();
  });
});

describe("parent requests", () => {
  it("asks for a missing parent after the delay, from peers in turn, with growing pauses, at most N times", async () => {
    let t = 0;
    let missing = [`0x${"11".repeat(32)}`];
    let synced = true;
    const asked: string[] = [];
    const requester = new ParentRequester(
      { delayMs: 100, attempts: 3, concurrency: 8 },
      {
        missingParents: () => missing,
        peers: () => ["p1", "p2"],
        isSynced: () => synced,
        fetchBlock: async (peer) => {
          asked.push(peer);
          throw new Error("not found");
        },
        onError: () => {},
      },
      () => t,
    );
    const step = async (ms: number) => {
      t += ms;
      requester.tick();
      await new Promise((r) => setImmediate(r));
    };
    await step(0);
    assert.deepEqual(asked, [], "gossip gets a chance first");
    await step(100);
    assert.deepEqual(asked, ["p1"]);
    await step(100);
    assert.deepEqual(asked, ["p1"], "after a failure the pause doubles (200 ms)");
    await step(100);
    assert.deepEqual(asked, ["p1", "p2"]);
    synced = false;
    await step(1000);
    assert.deepEqual(asked, ["p1", "p2"], "no requests while behind: cones fill the gaps");
    synced = true;
    await step(1000);
    await step(10_000);
    assert.deepEqual(asked, ["p1", "p2", "p1"], "three attempts, then given up");
    missing = [];
    await step(0);
    assert.equal(requester.waitingFor(), 0);
  });
});
