import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MemoryRelease } from "../../../src/util/memoryRelease.js";

describe("memory release", () => {
  it("collects once after the threshold is let go, not before, and at most once per interval", async () => {
    const release = new MemoryRelease(100, 20, 10_000);
    release.released(60);
    await new Promise((r) => setTimeout(r, 60));
    assert.equal(release.collections, 0, "below the threshold");
    release.released(40);
    release.released(500); // a mass release schedules one collection
    await new Promise((r) => setTimeout(r, 60));
    assert.equal(release.collections, 1);
    release.released(1_000);
    await new Promise((r) => setTimeout(r, 60));
    assert.equal(release.collections, 1, "the next waits for the interval");
    release.close();
  });

  it("gives the heap back", async () => {
    const release = new MemoryRelease(1, 10, 0);
    let garbage: string[][] | undefined = Array.from({ length: 200 }, (_, i) =>
      Array.from({ length: 1_000 }, (_, j) => `block-metadata/0x${i}-${j}-${"0".repeat(60)}`),
    );
    const held = process.memoryUsage().heapUsed;
    assert.equal(garbage.length, 200);
    garbage = undefined;
    release.released(1);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(release.collections, 1);
    const after = process.memoryUsage().heapUsed;
    assert.ok(after < held - 10 * 1024 * 1024, `heap ${held} → ${after} bytes`);
  });
});
