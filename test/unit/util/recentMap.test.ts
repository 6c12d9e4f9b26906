import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RecentMap } from "../../../src/util/recentMap.js";

describe("RecentMap", () => {
  it("keeps the last `capacity` insertions, the oldest leaving first", () => {
    const m = new RecentMap<string, number>(3);
    for (let i = 0; i < 10; i++) m.set(`k${i}`, i);
    assert.equal(m.size, 3);
    assert.deepEqual(
      ["k6", "k7", "k8", "k9"].map((k) => m.get(k)),
      [undefined, 7, 8, 9],
    );
  });

  it("updates a present key in place, without evicting another", () => {
    const m = new RecentMap<string, number>(2);
    m.set("a", 1);
    m.set("b", 2);
    m.set("a", 3);
    assert.equal(m.get("a"), 3);
    assert.equal(m.get("b"), 2);
    m.set("c", 4); // the oldest insertion, "a", leaves
    assert.equal(m.has("a"), false);
    assert.equal(m.get("c"), 4);
  });

  it("holds its bound over many insertions", () => {
    const m = new RecentMap<number, number>(1000);
    for (let i = 0; i < 250_000; i++) m.set(i, i);
    assert.equal(m.size, 1000);
    assert.equal(m.get(249_000), 249_000);
    assert.equal(m.get(248_999), undefined);
  });
});
