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

  it("finds the few non-lazy tips among many lazy ones, and draws every non-lazy tip alike", () => {
    const idOf = (n: number) => {
      const b = new Uint8Array(32);
      new DataView(b.buffer).setUint32(0, n, false);
      return b;
    };
    const pool = new TipPool({ ...defaultTipPoolOptions, belowMaxDepth: 15 });
    for (let i = 0; i < 1000; i++) pool.add(idOf(i), [], 11, 11); // semi-lazy at lmi 20
    for (const n of [5000, 5001, 5002]) pool.add(idOf(n), [], 19, 19);
    const picked = pool.select(20).map((t) => new DataView(t.buffer).getUint32(0, false));
    assert.deepEqual(picked, [5000, 5001, 5002], "every non-lazy tip, though random draws mostly miss them");
    assert.equal(pool.size, 1003, "semi-lazy tips stay");

    const even = new TipPool({ ...defaultTipPoolOptions, belowMaxDepth: 15, maxParents: 2 });
    for (let i = 0; i < 10; i++) even.add(idOf(i), [], 10, 10);
    const counts = new Array<number>(10).fill(0);
    for (let round = 0; round < 5000; round++) {
      for (const t of even.select(10)) counts[new DataView(t.buffer).getUint32(0, false)]!++;
    }
    // 10,000 picks over 10 tips: each near 1,000 (a skewed draw would leave some far off)
    for (const c of counts) assert.ok(c > 850 && c < 1150, `picks per tip ${counts.join(",")}`);
  });

  it("counts non-lazy and semi-lazy tips as Hornet does, leaving out those below max depth and dropping none", () => {
    const pool = new TipPool({ ...defaultTipPoolOptions, belowMaxDepth: 15 });
    pool.add(id(1), [], 4, 4); // lmi 20: ocri 16 behind -> below max depth
    pool.add(id(2), [], 11, 11); // 9 behind youngest -> semi-lazy
    pool.add(id(3), [], 19, 6); // oldest 14 behind -> semi-lazy
    pool.add(id(4), [], 19, 18);
    pool.add(id(5), [], 20, 20);
    assert.deepEqual(pool.counts(20), { nonLazy: 2, semiLazy: 2 });
    assert.equal(pool.size, 5, "counting drops nothing");
    assert.deepEqual(pool.counts(11), { nonLazy: 5, semiLazy: 0 }, "against an older milestone all are fresh");
  });

  it("returns no tips when every tip is lazy", () => {
    const pool = new TipPool({ ...defaultTipPoolOptions, belowMaxDepth: 15 });
    pool.add(id(1), [], 1, 1);
    assert.deepEqual(pool.select(100), []);
  });
});
