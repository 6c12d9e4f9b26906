import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { FastifyInstance } from "fastify";
import { addressToBech32 } from "../../../src/codec/address.js";
import type { Address } from "../../../src/codec/types.js";
import { IndexerErrorCode, isIndexerError, ledgerRankingsAt } from "../../../src/indexer/index.js";
import { DEV_TOKEN_SUPPLY } from "../../../src/node/devNetwork.js";
import type { MilestoneInfo } from "../../../src/tangle/tangle.js";
import { assertError } from "../../helpers/coreHarness.js";
import { TangleBuilder } from "../../helpers/tangleBuilder.js";
import { alice, basic, bob, carol, wallet } from "../../helpers/txBuilder.js";

const V2 = "/api/explorer/v2";

/**
 * The explorer parameters Chronicle takes: `startMilestoneIndex` on an address's ledger updates,
 * `ledgerIndex` on the richest addresses and the token distribution (the ledger as of a past
 * milestone, rolled back from the current balances over the ledger diffs). Each past answer is
 * checked against the answer the route gave without the parameter while that milestone was the
 * latest.
 */
describe("explorer: startMilestoneIndex and ledgerIndex", () => {
  let tb: TangleBuilder;
  let app: FastifyInstance;
  const milestones: MilestoneInfo[] = [];
  /** The answers without `ledgerIndex` after each milestone, by its index. */
  const richestAt = new Map<number, unknown>();
  const distributionAt = new Map<number, unknown>();
  const bech = (a: Address) => addressToBech32(a, tb.node.tangle.protocolParameters.bech32Hrp);

  async function json(url: string) {
    const r = await app.inject(url);
    assert.equal(r.statusCode, 200, `${url}: ${r.body}`);
    return r.json();
  }

  async function milestone() {
    const ms = await tb.milestone();
    milestones.push(ms);
    richestAt.set(ms.index, await json(`${V2}/ledger/richest-addresses?top=1000`));
    distributionAt.set(ms.index, await json(`${V2}/ledger/token-distribution`));
    return ms;
  }

  before(async () => {
    tb = await TangleBuilder.create();
    app = tb.serve();
    await app.ready();
    const dev = tb.devWallet();
    await milestone(); // 1: the genesis ledger
    // 2: the dev key pays alice 1 Mi and bob 20 Mi
    const pay = tb.transaction({
      inputs: [tb.genesis()],
      outputs: [
        basic(alice.address, { amount: 1_000_000n }),
        basic(bob.address, { amount: 20_000_000n }),
        basic(dev.address, { amount: DEV_TOKEN_SUPPLY - 21_000_000n }),
      ],
      unlockers: [dev],
    });
    await tb.block(pay.tx);
    const ms2 = await milestone();
    // 3: alice pays carol everything, bob pays alice 5 Mi
    const booked = (o: (typeof pay.outputs)[number]) => ({
      ...o,
      bookedMilestoneIndex: ms2.index,
      bookedTimestamp: ms2.timestamp,
    });
    const spendAlice = tb.transaction({
      inputs: [booked(pay.outputs[0]!)],
      outputs: [basic(carol.address, { amount: 1_000_000n })],
      unlockers: [alice],
    });
    const spendBob = tb.transaction({
      inputs: [booked(pay.outputs[1]!)],
      outputs: [basic(alice.address, { amount: 5_000_000n }), basic(bob.address, { amount: 15_000_000n })],
      unlockers: [bob],
    });
    await tb.block(spendAlice.tx);
    await tb.block(spendBob.tx);
    await milestone();
    await milestone(); // 4: nothing changes
  });
  after(async () => {
    await tb.dispose();
  });

  it("ranks the ledger as of each past milestone as the route did back then", async () => {
    const latest = milestones.at(-1)!.index;
    for (const ms of milestones) {
      const richest = await json(`${V2}/ledger/richest-addresses?top=1000&ledgerIndex=${ms.index}`);
      assert.deepEqual(richest, richestAt.get(ms.index), `richest at ${ms.index}`);
      const distribution = await json(`${V2}/ledger/token-distribution?ledgerIndex=${ms.index}`);
      assert.deepEqual(distribution, distributionAt.get(ms.index), `distribution at ${ms.index}`);
    }
    // the genesis ledger (milestone 0): the dev key holds the supply
    const genesis = await json(`${V2}/ledger/richest-addresses?ledgerIndex=0`);
    assert.deepEqual(genesis, {
      top: [{ address: bech(tb.devWallet().address), balance: DEV_TOKEN_SUPPLY.toString() }],
      ledgerIndex: 0,
    });
    // the ledger after the first payment differs from the current one: alice 1 Mi then, 5 Mi now
    const paid = milestones[1]!.index;
    const then = (await json(`${V2}/ledger/richest-addresses?ledgerIndex=${paid}`)).top;
    const now = (await json(`${V2}/ledger/richest-addresses?ledgerIndex=${latest}`)).top;
    const of = (rows: { address: string; balance: string }[], a: Address) =>
      rows.find((r) => r.address === bech(a))?.balance;
    assert.equal(of(then, alice.address), "1000000");
    assert.equal(of(now, alice.address), "5000000");
    assert.equal(of(then, carol.address), undefined);
    assert.equal(of(now, carol.address), "1000000");
    // top and ledgerIndex together
    assert.equal((await json(`${V2}/ledger/richest-addresses?top=1&ledgerIndex=${paid}`)).top.length, 1);
  });

  it("refuses a ledger index it cannot answer, with the reason", async () => {
    const latest = milestones.at(-1)!.index;
    assertError(
      await app.inject(`${V2}/ledger/richest-addresses?ledgerIndex=${latest + 1}`),
      400,
      new RegExp(`^ledgerIndex ${latest + 1} is newer than the ledger index ${latest}$`),
    );
    assertError(
      await app.inject(`${V2}/ledger/token-distribution?ledgerIndex=4294967296`),
      400,
      /^ledgerIndex: expected a u32, got "4294967296"$/,
    );
    assertError(
      await app.inject(`${V2}/ledger/token-distribution?ledgerIndex=-1`),
      400,
      /^ledgerIndex: expected a milestone index of at most 10 digits, got "-1"$/,
    );
    assertError(
      await app.inject(`${V2}/ledger/token-distribution?ledger_index=1`),
      400,
      /^unknown query parameter "ledger_index"$/,
    );
  });

  it("starts an address's ledger updates at startMilestoneIndex, inclusive, in either order", async () => {
    const [, ms2, ms3] = milestones;
    const updates = async (query: string) =>
      (await json(`${V2}/ledger/updates/by-address/${bech(alice.address)}?${query}`)).items as {
        milestoneIndex: number;
        isSpent: boolean;
      }[];
    const all = await updates("sort=oldest");
    assert.deepEqual(all.map((u) => [u.milestoneIndex, u.isSpent]).sort(), [
      [ms2!.index, false],
      [ms3!.index, false],
      [ms3!.index, true],
    ]);
    const from = (m: number) => all.filter((u) => u.milestoneIndex >= m);
    const upTo = (m: number) => all.filter((u) => u.milestoneIndex <= m).reverse();
    assert.deepEqual(await updates(`sort=oldest&startMilestoneIndex=${ms3!.index}`), from(ms3!.index));
    assert.deepEqual(await updates(`sort=oldest&startMilestoneIndex=${ms2!.index}`), all);
    assert.deepEqual(await updates(`startMilestoneIndex=${ms2!.index}`), upTo(ms2!.index));
    assert.deepEqual(await updates(`sort=newest&startMilestoneIndex=${ms3!.index}`), upTo(ms3!.index));
    assert.equal(upTo(ms3!.index).length, 3);
    assert.deepEqual(await updates(`sort=newest&startMilestoneIndex=${ms2!.index - 1}`), []);
    assert.deepEqual(await updates(`sort=oldest&startMilestoneIndex=${ms3!.index + 1}`), []);
    // paging on from a start: the cursor names the next item, and wins over the start
    const first = await json(
      `${V2}/ledger/updates/by-address/${bech(alice.address)}?sort=oldest&pageSize=1&startMilestoneIndex=${ms2!.index}`,
    );
    assert.equal(first.items.length, 1);
    assert.match(first.cursor, new RegExp(`^${ms3!.index}\\.0x[0-9a-f]{68}\\.[01]\\.1$`));
    const next = await json(
      `${V2}/ledger/updates/by-address/${bech(alice.address)}?sort=oldest&startMilestoneIndex=0&cursor=${first.cursor}`,
    );
    assert.deepEqual(next.items, [all[1]]);
    assertError(
      await app.inject(`${V2}/ledger/updates/by-address/${bech(alice.address)}?startMilestoneIndex=x`),
      400,
      /^startMilestoneIndex: expected a milestone index of at most 10 digits, got "x"$/,
    );
    assertError(
      await app.inject(`${V2}/ledger/updates/by-address/${bech(alice.address)}?startMilestoneIndex=9999999999`),
      400,
      /^startMilestoneIndex: expected a u32, got "9999999999"$/,
    );
  });

  it("answers 404 for a ledger index below the pruning index, and keeps answering those above", async () => {
    // enough history for the pruner to move (it keeps below max depth + 1 below the ledger)
    const keep = tb.node.tangle.protocolParameters.belowMaxDepth + 1;
    while (milestones.at(-1)!.index < keep + 4) await milestone();
    // prune below the milestone of the second payments: the spent outputs of the first go
    const horizon = milestones[2]!.index;
    assert.equal(await tb.node.pruner.pruneTo(horizon), horizon);
    assertError(
      await app.inject(`${V2}/ledger/richest-addresses?ledgerIndex=${horizon - 1}`),
      404,
      new RegExp(
        `^the ledger as of milestone ${horizon - 1} cannot be rebuilt: milestones below ${horizon} are pruned$`,
      ),
    );
    // a ledger index at or above the horizon is rolled back from what is still kept
    for (const ms of milestones.slice(2, 6)) {
      assert.deepEqual(
        await json(`${V2}/ledger/token-distribution?ledgerIndex=${ms.index}`),
        distributionAt.get(ms.index),
        `distribution at ${ms.index} after pruning`,
      );
    }
    const past = milestones[5]!.index;
    assert.deepEqual(await json(`${V2}/ledger/richest-addresses?top=1000&ledgerIndex=${past}`), richestAt.get(past));
  });
});

describe("explorer: the work of one past ranking is bounded", () => {
  let tb: TangleBuilder;
  before(async () => {
    tb = await TangleBuilder.create();
    const dev = tb.devWallet();
    await tb.milestone();
    // one payment: the genesis output consumed, 3 outputs created
    const pay = tb.transaction({
      inputs: [tb.genesis()],
      outputs: [
        basic(wallet("alice").address, { amount: 1_000_000n }),
        basic(wallet("bob").address, { amount: 2_000_000n }),
        basic(dev.address, { amount: DEV_TOKEN_SUPPLY - 3_000_000n }),
      ],
      unlockers: [dev],
    });
    await tb.block(pay.tx);
    await tb.milestone();
    while (tb.node.tangle.latestMilestone.index < 12) await tb.milestone();
  });
  after(async () => {
    await tb.dispose();
  });

  it("refuses more milestones or outputs than allowed, and more computations waiting than allowed", async () => {
    const store = tb.node.db;
    const latest = tb.node.tangle.latestMilestone.index;
    await assert.rejects(
      ledgerRankingsAt(store, latest - 3, { milestones: 2, outputs: 1000 }),
      (e) =>
        isIndexerError(e, IndexerErrorCode.LedgerIndexOutOfRange) &&
        /is 3 milestones behind the ledger index \d+; rankings go back at most 2$/.test((e as Error).message),
    );
    // back over the payment: 4 outputs created or consumed since the genesis ledger
    await assert.rejects(
      ledgerRankingsAt(store, 0, { milestones: 1000, outputs: 3 }),
      (e) =>
        isIndexerError(e, IndexerErrorCode.LedgerIndexOutOfRange) &&
        /touches more than 3 outputs$/.test((e as Error).message),
    );
    assert.equal((await ledgerRankingsAt(store, 0, { milestones: 1000, outputs: 4 })).ledgerIndex, 0);
    // six past rankings at once: four are computed one after the other, the others are Busy
    const asked = [5, 6, 7, 8, 9, 10].map((i) =>
      ledgerRankingsAt(store, i).then(
        (r) => r.ledgerIndex,
        (e) => (isIndexerError(e, IndexerErrorCode.Busy) ? "busy" : e),
      ),
    );
    assert.deepEqual(await Promise.all(asked), [5, 6, 7, 8, "busy", "busy"]);
    assert.equal((await ledgerRankingsAt(store, 9)).ledgerIndex, 9, "a retry is served");
  });
});
