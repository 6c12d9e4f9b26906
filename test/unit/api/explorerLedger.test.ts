import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { FastifyInstance } from "fastify";
import { addressToBech32, serializeAddressBytes } from "../../../src/codec/address.js";
import { toHex } from "../../../src/codec/hex.js";
import { decodeOutput } from "../../../src/codec/outputs/output.js";
import { type Address, UnlockConditionType } from "../../../src/codec/types.js";
import { ownerAddress, unspentRecords } from "../../../src/indexer/index.js";
import { DEV_TOKEN_SUPPLY, GENESIS_OUTPUT_ID } from "../../../src/node/devNetwork.js";
import { Bucket } from "../../../src/storage/index.js";
import type { MilestoneInfo } from "../../../src/tangle/tangle.js";
import { TangleBuilder } from "../../helpers/tangleBuilder.js";
import { alice, basic, bob, carol, type Wallet, wallet } from "../../helpers/txBuilder.js";

const V2 = "/api/explorer/v2";

describe("explorer: balances and ledger updates", () => {
  let tb: TangleBuilder;
  let app: FastifyInstance;
  let dev: Wallet;
  let ms1: MilestoneInfo;
  let ms2: MilestoneInfo;
  let payIds: string[];
  let aliceSpendIds: string[];
  const bech = (a: Address) => addressToBech32(a, tb.node.tangle.protocolParameters.bech32Hrp);

  before(async () => {
    tb = await TangleBuilder.create();
    app = tb.serve();
    await app.ready();
    dev = tb.devWallet();
    const pay = tb.transaction({
      inputs: [tb.genesis()],
      outputs: [
        basic(alice.address, { amount: 1_000_000n }),
        basic(bob.address, {
          amount: 2_000_000n,
          unlockConditions: [{ type: UnlockConditionType.Timelock, unixTime: 4_000_000_000 }],
        }),
        basic(bob.address, {
          amount: 3_000_000n,
          unlockConditions: [{ type: UnlockConditionType.Expiration, returnAddress: dev.address, unixTime: 1000 }],
        }),
        basic(dev.address, { amount: DEV_TOKEN_SUPPLY - 6_000_000n }),
      ],
      unlockers: [dev],
    });
    await tb.block(pay.tx);
    ms1 = await tb.milestone();
    const spend = tb.transaction({
      inputs: [{ ...pay.outputs[0]!, bookedMilestoneIndex: ms1.index, bookedTimestamp: ms1.timestamp }],
      outputs: [basic(carol.address, { amount: 1_000_000n })],
      unlockers: [alice],
    });
    await tb.block(spend.tx);
    ms2 = await tb.milestone();
    assert.ok(await tb.isUnspent(spend.outputs[0]!.outputId));
    payIds = pay.outputs.map((o) => toHex(o.outputId));
    aliceSpendIds = spend.outputs.map((o) => toHex(o.outputId));
  });
  after(async () => {
    await tb.dispose();
  });

  async function balance(a: Address) {
    const r = await app.inject(`${V2}/balance/${bech(a)}`);
    assert.equal(r.statusCode, 200, r.body);
    return r.json();
  }

  it("answers total and available balances", async () => {
    assert.deepEqual(await balance(alice.address), {
      totalBalance: "0",
      availableBalance: "0",
      ledgerIndex: ms2.index,
    });
    // one output timelocked beyond the milestone (held, not available), one whose expiration
    // passed (the dev key's now, TIP-18: in neither figure)
    assert.deepEqual(await balance(bob.address), {
      totalBalance: "2000000",
      availableBalance: "0",
      ledgerIndex: ms2.index,
    });
    assert.deepEqual(await balance(carol.address), {
      totalBalance: "1000000",
      availableBalance: "1000000",
      ledgerIndex: ms2.index,
    });
    // the dev key's own outputs and bob's expired one, which only the dev key unlocks now
    const d = await balance(dev.address);
    assert.equal(d.totalBalance, (DEV_TOKEN_SUPPLY - 3_000_000n).toString());
    assert.equal(d.availableBalance, d.totalBalance);
    assert.deepEqual(await balance(wallet("nobody").address), {
      totalBalance: "0",
      availableBalance: "0",
      ledgerIndex: ms2.index,
    });
  });

  it("keeps the balance buckets equal to the ledger", async () => {
    // each owner's total, summed from the ledger itself
    const scanned = new Map<string, { address: Uint8Array; total: bigint }>();
    for await (const { record } of unspentRecords(tb.node.db)) {
      const output = decodeOutput(record.outputBytes);
      const owner = ownerAddress(output);
      if (!owner) continue;
      const address = serializeAddressBytes(owner);
      const e = scanned.get(toHex(address)) ?? { address, total: 0n };
      e.total += output.amount;
      scanned.set(toHex(address), e);
    }
    const richest = (await app.inject(`${V2}/ledger/richest-addresses?top=1000`)).json();
    assert.equal(richest.top.length, scanned.size);
    for (const e of scanned.values()) {
      const row = richest.top.find(
        (t: { address: string }) =>
          t.address ===
          addressToBech32({ type: 0, pubKeyHash: e.address.slice(1) }, tb.node.tangle.protocolParameters.bech32Hrp),
      );
      assert.equal(row?.balance, e.total.toString());
    }
  });

  it("lists a milestone's ledger updates across pages", async () => {
    const want = [
      ...payIds.map((id, i) => ({
        address: bech([alice.address, bob.address, bob.address, dev.address][i]!),
        outputId: id,
        isSpent: false,
      })),
      { address: bech(dev.address), outputId: toHex(GENESIS_OUTPUT_ID), isSpent: true },
    ];
    for (const size of [1, 2, 1000]) {
      const seen = [];
      let r = await app.inject(`${V2}/ledger/updates/by-milestone/${toHex(ms1.milestoneId)}?pageSize=${size}`);
      for (;;) {
        assert.equal(r.statusCode, 200, r.body);
        const body = r.json();
        assert.equal(body.milestoneIndex, ms1.index);
        assert.ok(body.items.length <= size);
        seen.push(...body.items);
        if (body.cursor === null) break;
        r = await app.inject(`${V2}/ledger/updates/by-milestone/${toHex(ms1.milestoneId)}?cursor=${body.cursor}`);
      }
      assert.deepEqual(seen, want);
    }
  });

  it("lists an address's ledger updates, newest or oldest first, across pages", async () => {
    const oldest = [
      { milestoneIndex: ms1.index, outputId: payIds[0], isSpent: false },
      { milestoneIndex: ms2.index, outputId: payIds[0], isSpent: true },
    ];
    for (const [sort, want] of [
      ["oldest", oldest],
      ["newest", [...oldest].reverse()],
    ] as const) {
      for (const size of [1, 2, 1000]) {
        const seen = [];
        const url = `${V2}/ledger/updates/by-address/${bech(alice.address)}`;
        let r = await app.inject(`${url}?pageSize=${size}&sort=${sort}`);
        for (;;) {
          assert.equal(r.statusCode, 200, r.body);
          const body = r.json();
          assert.equal(body.address, bech(alice.address));
          assert.ok(body.items.length <= size);
          seen.push(...body.items);
          if (body.cursor === null) break;
          r = await app.inject(`${url}?cursor=${body.cursor}&sort=${sort}`);
        }
        assert.deepEqual(seen, want);
      }
    }
    const carolUpdates = (await app.inject(`${V2}/ledger/updates/by-address/${bech(carol.address)}`)).json();
    assert.deepEqual(carolUpdates.items, [{ milestoneIndex: ms2.index, outputId: aliceSpendIds[0], isSpent: false }]);
    const byDefault = (await app.inject(`${V2}/ledger/updates/by-address/${bech(alice.address)}`)).json();
    assert.deepEqual(byDefault.items, [...oldest].reverse());
  });

  it("answers the richest addresses and the token distribution", async () => {
    const r = await app.inject(`${V2}/ledger/richest-addresses?top=2`);
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual(r.json(), {
      top: [
        { address: bech(dev.address), balance: (DEV_TOKEN_SUPPLY - 6_000_000n).toString() },
        { address: bech(bob.address), balance: "5000000" },
      ],
      ledgerIndex: ms2.index,
    });
    assert.equal((await app.inject(`${V2}/ledger/richest-addresses`)).json().top.length, 3);
    const d = await app.inject(`${V2}/ledger/token-distribution`);
    assert.equal(d.statusCode, 200, d.body);
    const body = d.json();
    assert.equal(body.ledgerIndex, ms2.index);
    const devDigits = (DEV_TOKEN_SUPPLY - 6_000_000n).toString().length;
    assert.deepEqual(body.distribution, [
      { addressCount: 2, totalBalance: "6000000", range: { start: 1_000_000, end: 10_000_000 } },
      {
        addressCount: 1,
        totalBalance: (DEV_TOKEN_SUPPLY - 6_000_000n).toString(),
        range: { start: 10 ** (devDigits - 1), end: 10 ** devDigits },
      },
    ]);
  });

  it("answers 404 for an unknown milestone and 400 for bad input", async () => {
    const unknown = await app.inject(`${V2}/ledger/updates/by-milestone/0x${"ab".repeat(32)}`);
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.json().error.message, "could not find data");
    const a = bech(alice.address);
    const m = toHex(ms1.milestoneId);
    for (const url of [
      `${V2}/balance/notbech32`,
      `${V2}/balance/${addressToBech32(alice.address, "zzz")}`,
      `${V2}/balance/${a}?foo=1`,
      `${V2}/ledger/updates/by-milestone/0x1234`,
      `${V2}/ledger/updates/by-milestone/${m}?pageSize=0`,
      `${V2}/ledger/updates/by-milestone/${m}?cursor=abc`,
      `${V2}/ledger/updates/by-milestone/${m}?foo=1`,
      `${V2}/ledger/updates/by-address/${a}?sort=up`,
      `${V2}/ledger/updates/by-address/${a}?cursor=1.1`,
      `${V2}/ledger/updates/by-address/${a}?pageSize=ten`,
      `${V2}/ledger/updates/by-address/bad`,
      `${V2}/ledger/richest-addresses?top=0`,
      `${V2}/ledger/richest-addresses?top=x`,
      `${V2}/ledger/token-distribution?top=1`,
    ]) {
      const r = await app.inject(url);
      assert.equal(r.statusCode, 400, url);
      assert.equal(r.json().error.message, "invalid data provided");
    }
  });
});

describe("explorer: balances before the first milestone", () => {
  it("answers from the ledger itself while the balance buckets are not built", async () => {
    const tb = await TangleBuilder.create();
    const app = tb.serve();
    try {
      await app.ready();
      const hrp = tb.node.tangle.protocolParameters.bech32Hrp;
      const r = await app.inject(`${V2}/balance/${addressToBech32(tb.devWallet().address, hrp)}`);
      assert.equal(r.statusCode, 200, r.body);
      assert.deepEqual(r.json(), {
        totalBalance: DEV_TOKEN_SUPPLY.toString(),
        availableBalance: DEV_TOKEN_SUPPLY.toString(),
        ledgerIndex: 0,
      });
      const top = (await app.inject(`${V2}/ledger/richest-addresses?top=1`)).json();
      assert.equal(top.top[0].balance, DEV_TOKEN_SUPPLY.toString());
      await tb.milestone();
      const after = (await app.inject(`${V2}/ledger/richest-addresses`)).json();
      assert.deepEqual(after.top, top.top);
      assert.equal(after.ledgerIndex, 1);
    } finally {
      await tb.dispose();
    }
  });
});

describe("explorer: ledger-wide rankings", () => {
  it("scans the balances once per milestone, whatever the number of requests", async () => {
    const tb = await TangleBuilder.create();
    const app = tb.serve();
    try {
      await app.ready();
      await tb.milestone();
      // every read of the balance bucket, counted on the node's own store
      const store = tb.node.store;
      const scan = store.scan.bind(store);
      let scans = 0;
      store.scan = (options) => {
        if (options.prefix[0] === Bucket.AddressBalance) scans++;
        return scan(options);
      };
      const ask = () =>
        Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            app.inject(`${V2}/ledger/${i % 2 ? "richest-addresses" : "token-distribution"}`),
          ),
        );
      for (const r of await ask()) assert.equal(r.statusCode, 200, r.body);
      for (const r of await ask()) assert.equal(r.json().ledgerIndex, 1);
      assert.equal(scans, 1, "one scan for twenty requests at milestone 1");
      await tb.milestone();
      for (const r of await ask()) assert.equal(r.json().ledgerIndex, 2);
      assert.equal(scans, 2, "and one more at milestone 2");
    } finally {
      await tb.dispose();
    }
  });
});
