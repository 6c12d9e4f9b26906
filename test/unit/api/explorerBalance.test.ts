import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { FastifyInstance } from "fastify";
import { addressToBech32 } from "../../../src/codec/address.js";
import { type Address, type Output, UnlockConditionType } from "../../../src/codec/types.js";
import type { ConsumedOutput } from "../../../src/ledger/semantic/types.js";
import { DEV_TOKEN_SUPPLY } from "../../../src/node/devNetwork.js";
import { Bucket } from "../../../src/storage/index.js";
import type { MilestoneInfo } from "../../../src/tangle/tangle.js";
import { TangleBuilder } from "../../helpers/tangleBuilder.js";
import { basic, type Wallet, wallet } from "../../helpers/txBuilder.js";

/**
 * The explorer balance of outputs with an expiration and a storage deposit return (TIP-18), as
 * the SDK's wallet sends small amounts, through the real route over a real node: the recipient
 * holds the output less the deposit it must pay back until the output expires, then the
 * expiration's return address holds it (docs/decisions.md, Explorer).
 */

const V2 = "/api/explorer/v2";
const HOUR = 3600;

/** Moves the node's clock (the next milestones' timestamps) `seconds` ahead, as the dev time route does. */
async function travel(tb: TangleBuilder, seconds: number): Promise<void> {
  const batch = tb.node.store.batch();
  tb.node.clock.setOffset(tb.node.db, batch, tb.node.clock.offsetSeconds + seconds);
  await batch.write({ sync: true });
}

/** Submits a transaction and confirms it with the next milestone; fails unless it is included. */
async function confirm(tb: TangleBuilder, tx: ReturnType<TangleBuilder["transaction"]>): Promise<MilestoneInfo> {
  const blockId = await tb.block(tx.tx);
  const ms = await tb.milestone();
  const meta = await tb.metadata(blockId);
  assert.equal(meta.inclusionState, 1, `not included: conflict reason ${meta.conflictReason}`);
  return ms;
}

const booked = (o: ConsumedOutput, ms: MilestoneInfo): ConsumedOutput => ({
  ...o,
  bookedMilestoneIndex: ms.index,
  bookedTimestamp: ms.timestamp,
});

describe("explorer balance: an expiration and a storage deposit return (TIP-18)", () => {
  let tb: TangleBuilder;
  let app: FastifyInstance;
  const sender = wallet("balance sender");
  const recipient = wallet("balance recipient");
  const third = wallet("balance third");
  const bech = (a: Address) => addressToBech32(a, tb.node.tangle.protocolParameters.bech32Hrp);
  const balance = async (w: Wallet) => {
    const r = await app.inject(`${V2}/balance/${bech(w.address)}`);
    assert.equal(r.statusCode, 200, r.body);
    const { totalBalance, availableBalance } = r.json();
    return { total: totalBalance, available: availableBalance };
  };
  const ranked = async (w: Wallet) => {
    const r = await app.inject(`${V2}/ledger/richest-addresses?top=1000`);
    assert.equal(r.statusCode, 200, r.body);
    return r.json().top.find((t: { address: string }) => t.address === bech(w.address))?.balance;
  };

  before(async () => {
    tb = await TangleBuilder.create();
    app = tb.serve();
    await app.ready();
  });
  after(async () => {
    await tb.dispose();
  });

  it("counts for the recipient less the deposit it owes until expiry, then for the return address; a spend removes it", async () => {
    const dev = tb.devWallet();
    const fund = tb.transaction({
      inputs: [tb.genesis()],
      outputs: [
        basic(sender.address, { amount: 10_000_000n }),
        basic(dev.address, { amount: DEV_TOKEN_SUPPLY - 10_000_000n }),
      ],
      unlockers: [dev],
    });
    const ms1 = await confirm(tb, fund);
    const expireAt = ms1.timestamp + HOUR;
    const expiring = (amount: bigint, deposit: bigint, depositTo: Address): Output =>
      basic(recipient.address, {
        amount,
        unlockConditions: [
          { type: UnlockConditionType.StorageDepositReturn, returnAddress: depositTo, amount: deposit },
          { type: UnlockConditionType.Expiration, returnAddress: sender.address, unixTime: expireAt },
        ],
      });
    const send = tb.transaction({
      inputs: [booked(fund.outputs[0]!, ms1)],
      outputs: [
        // as the SDK's wallet sends a small amount: the deposit and the expiration back to the sender
        expiring(1_000_000n, 400_000n, sender.address),
        // the deposit owed to another address than the expiration's
        expiring(2_000_000n, 500_000n, third.address),
        basic(sender.address, { amount: 7_000_000n }),
      ],
      unlockers: [sender],
    });
    const ms2 = await confirm(tb, send);
    assert.ok(ms2.timestamp < expireAt);

    // before expiry: the recipient holds each output less the deposit it pays back on spending it
    assert.deepEqual(await balance(recipient), { total: "2100000", available: "2100000" });
    assert.deepEqual(await balance(sender), { total: "7000000", available: "7000000" });
    assert.deepEqual(await balance(third), { total: "0", available: "0" });
    // the rankings sum the outputs each address owns, as Chronicle's
    assert.equal(await ranked(recipient), "3000000");
    assert.equal(await ranked(sender), "7000000");

    // after a milestone past the expiration only the sender unlocks them (TIP-18): the first in
    // full (its deposit returns to the sender itself), the second less the deposit owed to third
    await travel(tb, HOUR + 1);
    const ms3 = await tb.milestone();
    assert.ok(ms3.timestamp >= expireAt, `${ms3.timestamp} at or after ${expireAt}`);
    assert.deepEqual(await balance(recipient), { total: "0", available: "0" });
    assert.deepEqual(await balance(sender), { total: "9500000", available: "9500000" });
    assert.deepEqual(await balance(third), { total: "0", available: "0" });
    assert.equal(await ranked(recipient), "3000000", "the rankings do not change");

    // the sender spends both: paid back to third what the second one owes, and gone from every figure
    const reclaim = tb.transaction({
      inputs: [booked(send.outputs[0]!, ms2), booked(send.outputs[1]!, ms2)],
      outputs: [basic(sender.address, { amount: 2_500_000n }), basic(third.address, { amount: 500_000n })],
      unlockers: [sender, sender],
    });
    await confirm(tb, reclaim);
    assert.deepEqual(await balance(recipient), { total: "0", available: "0" });
    assert.deepEqual(await balance(sender), { total: "9500000", available: "9500000" });
    assert.deepEqual(await balance(third), { total: "500000", available: "500000" });
    assert.equal(await ranked(recipient), undefined);
    assert.equal(await ranked(sender), "9500000");
    const left = [];
    for await (const entry of tb.node.store.scanKeys({ prefix: Uint8Array.of(Bucket.AddressConditional) }))
      left.push(entry);
    assert.deepEqual(left, [], "no conditional entry left once the outputs are spent");
  });
});

describe("explorer balance: what one read examines is bounded", () => {
  /** MAX_CONDITIONAL_READ (addressConditionals.ts), written out: the test asks for one more. */
  const BOUND = 10_000;
  /** TIP-20: at most 128 outputs per transaction, one of them the remainder. */
  const PER_TRANSACTION = 127;

  it("answers 503 with the reason beyond it, and reads the return address's expired entries only", async () => {
    const tb = await TangleBuilder.create();
    const app = tb.serve();
    try {
      await app.ready();
      const hrp = tb.node.tangle.protocolParameters.bech32Hrp;
      const dev = tb.devWallet();
      const attacker = wallet("bound attacker");
      const victim = wallet("bound victim");
      const ask = (w: Wallet) => app.inject(`${V2}/balance/${addressToBech32(w.address, hrp)}`);
      const expireAt = Math.floor(Date.now() / 1000) + tb.node.clock.offsetSeconds + HOUR;
      // the attacker sends itself more outputs than one read examines, each naming the victim as
      // expiration return address
      let remainder: ConsumedOutput = tb.genesis();
      let left = BOUND + 1;
      while (left > 0) {
        const n = Math.min(left, PER_TRANSACTION);
        const outputs: Output[] = Array.from({ length: n }, () =>
          basic(attacker.address, {
            unlockConditions: [
              { type: UnlockConditionType.Expiration, returnAddress: victim.address, unixTime: expireAt },
            ],
          }),
        );
        const rest = remainder.output.amount - outputs.reduce((sum, o) => sum + o.amount, 0n);
        outputs.push(basic(dev.address, { amount: rest }));
        const tx = tb.transaction({ inputs: [remainder], outputs, unlockers: [dev] });
        await confirm(tb, tx);
        remainder = tx.outputs[n]!;
        left -= n;
      }

      // the attacker's own balance depends on all of them: not computed, and said so
      const own = await ask(attacker);
      assert.equal(own.statusCode, 503, own.body);
      assert.match(own.json().error.details, new RegExp(`more than ${BOUND} outputs`));
      // none has expired: the victim's read takes none of them
      const early = await ask(victim);
      assert.equal(early.statusCode, 200, early.body);
      assert.equal(early.json().totalBalance, "0");

      await travel(tb, HOUR + 1);
      await tb.milestone();
      const late = await ask(victim);
      assert.equal(late.statusCode, 503, late.body);
      assert.match(late.json().error.details, new RegExp(`more than ${BOUND} outputs`));
      // the rankings are not bounded by it
      assert.equal((await app.inject(`${V2}/ledger/richest-addresses`)).statusCode, 200);
    } finally {
      await tb.dispose();
    }
  });
});
