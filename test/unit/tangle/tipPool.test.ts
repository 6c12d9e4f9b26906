import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compareBytes } from "../../../src/codec/hex.js";
import { defaultTipPoolOptions, TipPool } from "../../../src/tangle/tipPool.js";

const id = (n: number) => new Uint8Array(32).fill(n);

describe("TipPool", () => {
  it("selects 1..8 unique sorted tips and never more than it holds", () => {
    const pool = new TipPool({ ...defaultTipPoolOptions, belowMaxDepth: 15 });
    for (let i = 1; i <= 20; i++) pool.add(id(i), [], 10, 10);
    for (let round = 0; round < 50; round++) {
      const tips = pool.select(10);
      assert.equal(tips.length, 8);
      assert.equal(new Set(tips.map((t) => t[0])).size, 8);
      const sorted = [...tips].sort(compareBytes);
      assert.deepEqual(tips, sorted);
    }
    const small = new TipPool({ ...defaultTipPoolOptions, belowMaxDepth: 15 });
    small.add(id(1), [], 1, 1);
    assert.deepEqual(small.select(1), [id(1)]);
  });

  it("does not select below-max-depth or semi-lazy tips and drops lazy ones", () => {
    const pool = new TipPool({ ...defaultTipPoolOptions, belowMaxDepth: 15 });
    pool.add(id(1), [], 4, 4); // lmi 20: ocri 16 behind -> below max depth
    pool.add(id(2), [], 11, 11); // 9 behind youngest -> semi-lazy
    pool.add(id(3), [], 19, 18);
    assert.deepEqual(pool.select(20), [id(3)]);
    assert.equal(pool.has(id(1)), false, "a below-max-depth tip leaves the pool");
    assert.equal(pool.has(id(2)), true, "a semi-lazy tip stays (it may gain children)");
  });

  it("retires a tip once it has maxChildren approvers", () => {
    const pool = new TipPool({ ...defaultTipPoolOptions, belowMaxDepth: 15, maxChildren: 2 });
    pool.add(id(1), [], 1, 1);
    pool.add(id(2), [id(1)], 1, 1);
    assert.equal(pool.has(id(1)), true);
    pool.add(id(3), [id(1)], 1, 1);
    assert.equal(pool.has(id(1)), false);
    assert.equal(pool.size, 2);
  });

  it("returns no tips when every tip is lazy", () => {
    const pool = new TipPool({ ...defaultTipPoolOptions, belowMaxDepth: 15 });
    pool.add(id(1), [], 1, 1);
    assert.deepEqual(pool.select(100), []);
  });
});
