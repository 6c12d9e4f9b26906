import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import {
  closeMinerPool,
  isPowError,
  MinerPool,
  mine,
  PowErrorCode,
  powDigest,
  powScore,
  withNonce,
} from "../../../src/pow/index.js";

/** Waits until no thread of `pool` has work left; fails the test if that never happens. */
async function idle(pool: MinerPool): Promise<void> {
  for (let i = 0; i < 500 && pool.busy > 0; i++) await sleep(10);
  assert.equal(pool.busy, 0, "threads still busy");
}

function rejectsWith(p: Promise<unknown>, code: PowErrorCode): Promise<void> {
  return assert.rejects(p, (e: unknown) => isPowError(e, code));
}

describe("miner", () => {
  const pool = new MinerPool();
  after(() => pool.close());

  it("mines blocks of several sizes to their target score", async () => {
    for (const [length, target, workers] of [
      [16, 1000, 2],
      [300, 100, 2],
      [2000, 40, 1],
    ] as const) {
      const block = randomBytes(length);
      const nonce = await pool.mine(powDigest(block), target, length, { workers });
      const score = powScore(withNonce(block, nonce));
      assert.ok(score >= target, `score ${score} < ${target}`);
    }
    await idle(pool);
  });

  it("serves concurrent calls", async () => {
    const blocks = [randomBytes(100), randomBytes(200), randomBytes(300)];
    const nonces = await Promise.all(blocks.map((b) => pool.mine(powDigest(b), 100, b.length, { workers: 2 })));
    blocks.forEach((b, i) => {
      assert.ok(powScore(withNonce(b, nonces[i]!)) >= 100);
    });
    await idle(pool);
  });

  it("rejects with Aborted when cancelled and leaves no thread working", async () => {
    const controller = new AbortController();
    // about 3^88 hashes: never found
    const pending = pool.mine(randomBytes(32), 1e40, 100, { workers: 2, signal: controller.signal });
    await sleep(100);
    assert.equal(pool.busy, 2);
    controller.abort();
    await rejectsWith(pending, PowErrorCode.Aborted);
    await idle(pool);
    // the pool still works afterwards
    const block = randomBytes(64);
    assert.ok(powScore(withNonce(block, await pool.mine(powDigest(block), 10, 64, { workers: 2 }))) >= 10);
    await idle(pool);
  });

  it("rejects an already aborted signal without starting work", async () => {
    const controller = new AbortController();
    controller.abort();
    await rejectsWith(
      pool.mine(randomBytes(32), 1e40, 100, { workers: 2, signal: controller.signal }),
      PowErrorCode.Aborted,
    );
    assert.equal(pool.busy, 0);
  });

  it("rejects workers: 0 as PoW disabled, and invalid arguments with their codes", async () => {
    await rejectsWith(pool.mine(randomBytes(32), 100, 100, { workers: 0 }), PowErrorCode.Disabled);
    await rejectsWith(pool.mine(randomBytes(32), 100, 100, { workers: -1 }), PowErrorCode.InvalidWorkers);
    await rejectsWith(pool.mine(randomBytes(32), 100, 100, { workers: 1.5 }), PowErrorCode.InvalidWorkers);
    await rejectsWith(pool.mine(randomBytes(31), 100, 100, { workers: 1 }), PowErrorCode.InvalidInput);
    await rejectsWith(pool.mine(randomBytes(32), 100, 4, { workers: 1 }), PowErrorCode.InvalidInput);
    await rejectsWith(pool.mine(randomBytes(32), 1e200, 100, { workers: 1 }), PowErrorCode.UnreachableTarget);
  });

  it("returns nonce 0 at once for a target every hash meets", async () => {
    assert.equal(await pool.mine(randomBytes(32), 0.001, 100, { workers: 1 }), 0n);
  });

  it("rejects running calls with PoolClosed when its pool is closed", async () => {
    const own = new MinerPool();
    const rejected = rejectsWith(own.mine(randomBytes(32), 1e40, 100, { workers: 1 }), PowErrorCode.PoolClosed);
    await own.close();
    await rejected;
    await rejectsWith(own.mine(randomBytes(32), 1, 100, { workers: 1 }), PowErrorCode.PoolClosed);
  });
});

describe("mine (shared pool)", () => {
  after(() => closeMinerPool());

  it("mines through the process-wide pool", async () => {
    const block = randomBytes(300);
    const nonce = await mine(powDigest(block), 200, block.length, { workers: 2 });
    assert.ok(powScore(withNonce(block, nonce)) >= 200);
  });

  it("rejects workers: 0 with the Disabled code the API maps to 503", async () => {
    await rejectsWith(mine(randomBytes(32), 200, 300, { workers: 0 }), PowErrorCode.Disabled);
  });
});
