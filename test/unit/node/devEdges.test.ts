import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { addressToBech32, ed25519AddressOf } from "../../../src/codec/address.js";
import { LATEST_CLOCK, MAX_TIMESTAMP } from "../../../src/tangle/nodeClock.js";
import {
  assertError,
  CORE,
  DEV,
  genesisPayment,
  type Harness,
  inject,
  json,
  openHarness,
  post,
  postTransaction,
} from "../../helpers/coreHarness.js";
import { waitFor } from "../../helpers/waitFor.js";

/**
 * Edges of the dev tools (docs/decisions.md, A node for builders) found in review: each test
 * is the smallest request sequence that showed a wrong answer.
 */

describe("the clock at the largest milestone timestamp", () => {
  let h: Harness;
  before(async () => {
    h = await openHarness({ milestones: "manual", minPowScore: 0 });
    await h.node.startNow();
  });
  after(() => h.close());

  it("issues a milestone at the largest u32 timestamp, then none: the one at the limit stays the latest", async () => {
    // the dev route stops a year short of the limit, so that milestones can follow
    assertError(await post(h, `${DEV}/time`, { timestamp: MAX_TIMESTAMP }), 400, /is too far/);
    assertError(await post(h, `${DEV}/time`, { timestamp: LATEST_CLOCK + 1 }), 400, /is too far/);
    // a clock at the limit all the same (a database that came with it): moved as the route moves it
    const batch = h.node.store.batch();
    h.node.clock.setOffset(h.node.db, batch, MAX_TIMESTAMP - Math.floor(Date.now() / 1000));
    await batch.write({ sync: true });
    // a second passes: the clock runs past the largest timestamp, and the milestone stops there
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const [last] = json<{ milestones: { index: number; timestamp: number }[] }>(
      await post(h, `${DEV}/milestones`),
    ).milestones;
    assert.equal(last!.timestamp, MAX_TIMESTAMP);
    // the next one would need MAX_TIMESTAMP + 1: refused, nothing issued
    assertError(await post(h, `${DEV}/milestones`), 400, /timestamp/);
    assert.equal(h.node.tangle.latestMilestone.index, last!.index);
    const stored = json<{ index: number; timestamp: number }>(
      await inject(h.app, `${CORE}/milestones/by-index/${last!.index}`),
    );
    assert.equal(stored.timestamp, MAX_TIMESTAMP, "the stored milestone says what the node says");
    assert.equal((await inject(h.app, `${CORE}/milestones/by-index/${last!.index + 1}`)).statusCode, 404);
  });
});

describe("reads after a revert", () => {
  let h: Harness;
  before(async () => {
    h = await openHarness({ milestones: "manual", minPowScore: 0, devAccounts: 0 });
    await h.node.startNow();
  });
  after(() => h.close());

  it("rank the ledger the node is back at, not the one it undid at the same milestone index", async () => {
    const saved = json<{ id: string; milestoneIndex: number }>(await post(h, `${DEV}/state`));
    const paid = randomBytes(32);
    const bech32 = addressToBech32(ed25519AddressOf(paid), "tst");
    assert.equal((await postTransaction(h.app, genesisPayment(paid, 5_000_000n))).statusCode, 201);
    await post(h, `${DEV}/milestones`, { count: 2 });
    const paidAt = saved.milestoneIndex + 1;
    const ranked = async (ledgerIndex?: number) => {
      const query = ledgerIndex === undefined ? "" : `&ledgerIndex=${ledgerIndex}`;
      const res = await inject(h.app, `/api/explorer/v2/ledger/richest-addresses?top=10${query}`);
      assert.equal(res.statusCode, 200, res.body);
      return json<{ top: { address: string }[] }>(res).top.some((e) => e.address === bech32);
    };
    // read once: the current ledger and a past one are ranked
    assert.equal(await ranked(), true);
    assert.equal(await ranked(paidAt), true);

    assert.equal((await post(h, `${DEV}/state/${saved.id}/revert`)).statusCode, 200);
    await post(h, `${DEV}/milestones`, { count: 2 });
    assert.equal(h.node.tangle.latestMilestone.index, paidAt + 1, "back at the same index, without the payment");
    assert.equal(await ranked(), false, "the current ledger's rankings");
    assert.equal(await ranked(paidAt), false, "a past ledger's rankings");
  });
});

describe("the faucet with auto milestones", () => {
  let h: Harness;
  before(async () => {
    h = await openHarness({ milestones: "auto", minPowScore: 0 });
    await h.node.startNow();
  });
  after(() => h.close());

  it("pays a request without another block to start a milestone", async () => {
    const address = addressToBech32(ed25519AddressOf(randomBytes(32)), "tst");
    const res = await post(h, "/api/faucet/v1/enqueue", { address });
    assert.equal(res.statusCode, 202, res.body);
    await waitFor(
      async () =>
        json<{ totalBalance: string }>(await inject(h.app, `/api/explorer/v2/balance/${address}`)).totalBalance !== "0",
      5000,
      "the faucet's payment confirmed",
    );
  });
});

describe("reads while milestones follow each other", () => {
  let h: Harness;
  before(async () => {
    h = await openHarness({ milestones: "manual", minPowScore: 0 });
    await h.node.startNow();
  });
  after(() => h.close());

  it("answer the dev accounts every time, and a balance with 200 or 503, never 500", async () => {
    const statuses = { accounts: new Map<number, number>(), balance: new Map<number, number>() };
    const count = (m: Map<number, number>, s: number) => m.set(s, (m.get(s) ?? 0) + 1);
    const dev = "tst1qpxrmtryqql8gmg6z8tt486tyq35uvmz054lxrvaw9fukqax370pjnfzjf8";
    let issuing = true;
    const milestones = Promise.all(Array.from({ length: 20 }, () => post(h, `${DEV}/milestones`, { count: 5 }))).then(
      () => (issuing = false),
    );
    const reader = async () => {
      while (issuing) {
        count(statuses.accounts, (await inject(h.app, `${DEV}/accounts`)).statusCode);
        count(statuses.balance, (await inject(h.app, `/api/explorer/v2/balance/${dev}`)).statusCode);
      }
    };
    await Promise.all([milestones, ...Array.from({ length: 8 }, reader)]);
    assert.deepEqual([...statuses.accounts.keys()], [200], JSON.stringify([...statuses.accounts]));
    assert.ok(!statuses.balance.has(500), JSON.stringify([...statuses.balance]));
  });
});

describe("a revert on a node whose network runs", () => {
  let h: Harness;
  before(async () => {
    h = await openHarness({ milestones: "manual", minPowScore: 0, p2pPort: 0, p2pHost: "127.0.0.1" });
    await h.node.startNow();
    await h.node.startNetwork();
  });
  after(() => h.close());

  it("listens again on the port it listened on, so peers dialling its address find it", async () => {
    const before = h.node.network!.listenAddresses();
    assert.ok(before.length > 0);
    const saved = json<{ id: string }>(await post(h, `${DEV}/state`));
    assert.equal((await post(h, `${DEV}/state/${saved.id}/revert`)).statusCode, 200);
    assert.deepEqual(h.node.network!.listenAddresses(), before);
    assert.equal((await post(h, `${DEV}/reset`)).statusCode, 200);
    assert.deepEqual(h.node.network!.listenAddresses(), before);
  });
});
