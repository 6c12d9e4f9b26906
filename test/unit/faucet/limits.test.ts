import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RateLimiter } from "../../../src/faucet/rateLimiter.js";
import { type FaucetInput, planBatch } from "../../../src/faucet/transaction.js";

/** The faucet's pure parts: token buckets per key, and how one transaction's batch is cut. */

describe("RateLimiter", () => {
  it("lets a key take its burst at once, then one more per refill interval", () => {
    let now = 0;
    const limiter = new RateLimiter({ requests: 10, periodMs: 60_000, burst: 3 }, 100, () => now);
    for (let i = 0; i < 3; i++) assert.equal(limiter.take("a"), true, `request ${i}`);
    assert.equal(limiter.take("a"), false);
    assert.equal(limiter.allows("a"), false);
    assert.equal(limiter.waitMs("a"), 6_000, "one token per 6 s");
    // another key is not affected
    assert.equal(limiter.take("b"), true);
    now += 5_999;
    assert.equal(limiter.take("a"), false);
    now += 1;
    assert.equal(limiter.take("a"), true);
    assert.equal(limiter.take("a"), false);
    // a long pause refills no more than the burst
    now += 10 * 60_000;
    for (let i = 0; i < 3; i++) assert.equal(limiter.take("a"), true);
    assert.equal(limiter.take("a"), false);
  });

  it("one request per period: a refused request takes nothing", () => {
    let now = 1_000;
    const limiter = new RateLimiter({ requests: 1, periodMs: 300_000, burst: 1 }, 100, () => now);
    assert.equal(limiter.take("addr"), true);
    for (let i = 0; i < 5; i++) {
      now += 1_000;
      assert.equal(limiter.take("addr"), false);
    }
    now = 1_000 + 300_000;
    assert.equal(limiter.take("addr"), true);
  });

  it("keeps at most maxKeys keys and forgets buckets that are full again", () => {
    let now = 0;
    const limiter = new RateLimiter({ requests: 1, periodMs: 1_000, burst: 1 }, 50, () => now);
    for (let i = 0; i < 10_000; i++) limiter.take(`client-${i}`);
    assert.ok(limiter.size <= 50, `${limiter.size} keys`);
    // the most recent keys are still limited
    assert.equal(limiter.take("client-9999"), false);
    now += 1_000;
    limiter.take("late");
    assert.equal(limiter.size, 1, "every other bucket was full again");
  });
});

const input = (n: number, amount: bigint): FaucetInput => ({
  outputId: new Uint8Array(34).fill(n),
  amount,
  outputBytes: Uint8Array.of(n),
});

describe("planBatch", () => {
  const amount = 1_000n;
  const deposit = 100n;

  it("pays every request from the fewest leading inputs, the rest a remainder", () => {
    const plan = planBatch([input(1, 2_500n), input(2, 5_000n), input(3, 9_000n)], 4, amount, deposit);
    assert.ok(plan);
    assert.equal(plan.served, 4);
    assert.deepEqual(
      plan.inputs.map((i) => i.outputId[0]),
      [1, 2],
    );
    assert.equal(plan.remainder, 3_500n);
  });

  it("an exact sum leaves no remainder", () => {
    const plan = planBatch([input(1, 3_000n), input(2, 1n << 40n)], 3, amount, deposit);
    assert.deepEqual([plan?.served, plan?.inputs.length, plan?.remainder], [3, 1, 0n]);
  });

  it("a remainder below the storage deposit takes one more input", () => {
    const plan = planBatch([input(1, 2_050n), input(2, 500n)], 2, amount, deposit);
    assert.deepEqual([plan?.served, plan?.inputs.length, plan?.remainder], [2, 2, 550n]);
  });

  it("pays fewer requests when the inputs fall short, or when no input can lift a small remainder", () => {
    assert.deepEqual(planBatch([input(1, 2_500n)], 5, amount, deposit)?.served, 2);
    // 3 requests leave 50 and there is no other input: 2 requests, 1,050 back
    const plan = planBatch([input(1, 3_050n)], 3, amount, deposit);
    assert.deepEqual([plan?.served, plan?.remainder], [2, 1_050n]);
  });

  it("never uses more inputs than a transaction may have (TIP-20: 128)", () => {
    const many = Array.from({ length: 200 }, (_, i) => input(i, 100n));
    const plan = planBatch(many, 100, amount, deposit);
    assert.ok(plan);
    // 128 inputs of 100 hold 12,800: 12 requests of 1,000, from the first 120 inputs exactly
    assert.equal(plan.served, 12);
    assert.equal(plan.inputs.length, 120);
    assert.equal(plan.remainder, 0n);
  });

  it("undefined when not one request can be paid", () => {
    assert.equal(planBatch([input(1, 999n)], 1, amount, deposit), undefined);
    assert.equal(planBatch([], 3, amount, deposit), undefined);
  });
});
