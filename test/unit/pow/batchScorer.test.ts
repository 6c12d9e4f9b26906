import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { BatchScorer, createSlicedCurl, minerPool, powDigest, powScore, withNonce } from "../../../src/pow/index.js";

function randomBlock(seed: number, length: number): Uint8Array {
  let x = seed >>> 0 || 1;
  return Uint8Array.from({ length }, () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x & 0xff;
  });
}

describe("BatchScorer", () => {
  for (const simd of [true, false]) {
    it(`scores like powScore, ${simd ? "SIMD" : "JS"} lanes, batches of 1, partial and over-full`, async () => {
      const scorer = new BatchScorer(createSlicedCurl({ simd }));
      for (const n of [1, 5, 200]) {
        const blocks = Array.from({ length: n }, (_, i) => randomBlock(n * 1000 + i + 1, 40 + ((i * 37) % 400)));
        const scores = await Promise.all(blocks.map((b) => scorer.score(b)));
        assert.deepEqual(scores, blocks.map(powScore));
      }
    });
  }

  it("gives mined blocks their real, high scores", async () => {
    const scorer = new BatchScorer();
    const blocks = [];
    for (let i = 0; i < 4; i++) {
      const raw = randomBlock(77 + i, 120);
      const nonce = await minerPool().mine(powDigest(raw), 1000, raw.length, { workers: 1 });
      blocks.push(withNonce(raw, nonce));
    }
    const scores = await Promise.all(blocks.map((b) => scorer.score(b)));
    assert.deepEqual(scores, blocks.map(powScore));
    for (const s of scores) assert.ok(s >= 1000);
  });
});
