import assert from "node:assert/strict";
import { randomBytes, randomInt } from "node:crypto";
import { describe, it } from "node:test";
import { toHex } from "../../../src/codec/hex.js";
import {
  isPowError,
  PowErrorCode,
  powCurlInput,
  powDigest,
  powScore,
  readNonce,
  scoreForZeros,
  targetTrailingZeros,
  withNonce,
} from "../../../src/pow/index.js";
import { NodePowProvider, OraclePow } from "./oracle.js";

describe("TIP-12 score", () => {
  it("agrees exactly with @iota/pow-node.js on random blocks and nonces", () => {
    for (let i = 0; i < 150; i++) {
      const block = randomBytes(randomInt(8, 1500));
      assert.equal(powScore(block), OraclePow.score(block), toHex(block));
    }
  });

  it("agrees with @iota/pow-node.js on blocks that provider mined", async () => {
    // small targets (6-7 zeros): the provider hashes with scalar JavaScript
    const provider = new NodePowProvider(2);
    for (const [length, target] of [
      [16, 40],
      [64, 10],
      [300, 2],
      [1200, 0.5],
      [4000, 0.5],
    ] as const) {
      const block = randomBytes(length);
      const nonce = BigInt(await provider.pow(block, target));
      const mined = withNonce(block, nonce);
      const ours = powScore(mined);
      assert.equal(ours, OraclePow.score(mined));
      assert.ok(ours >= target, `score ${ours} < ${target} at length ${length}`);
    }
  });

  it("finds the fewest zeros that reach a target, like the oracle's closed form", () => {
    for (let i = 0; i < 500; i++) {
      const length = randomInt(8, 40000);
      const target = Math.random() * 10 ** randomInt(0, 6);
      const z = targetTrailingZeros(target, length);
      assert.ok(scoreForZeros(z, length) >= target);
      if (z > 0) assert.ok(scoreForZeros(z - 1, length) < target);
      // (a target below one zero's score: the closed form says -1, a count cannot be below 0)
      assert.equal(z, Math.max(0, OraclePow.calculateTargetZeros(new Uint8Array(length), target)));
    }
    // within rounding of a power of 3 the closed form falls one short; the loop does not
    const [length, target] = [32677, 5.4211524925788845];
    assert.equal(OraclePow.calculateTargetZeros(new Uint8Array(length), target), 11);
    assert.ok(scoreForZeros(11, length) < target);
    assert.equal(targetTrailingZeros(target, length), 12);
    // exact powers of three need no extra zero
    assert.equal(targetTrailingZeros(3 ** 5, 1), 5);
    assert.equal(targetTrailingZeros(0, 100), 0);
    assert.equal(targetTrailingZeros(1e300, 100), 244);
  });

  it("writes and reads the nonce as a u64 little-endian in the last 8 bytes", () => {
    const block = withNonce(new Uint8Array(12), 0x0102030405060708n);
    assert.equal(toHex(block), "0x000000000807060504030201");
    assert.equal(readNonce(block), 0x0102030405060708n);
    assert.equal(readNonce(withNonce(block, (1n << 64n) - 1n)), (1n << 64n) - 1n);
  });

  it("rejects blocks without a nonce, bad digests and out-of-range nonces with codes", () => {
    const code = (f: () => unknown) => assert.throws(f, (e: unknown) => isPowError(e, PowErrorCode.InvalidInput));
    code(() => powScore(new Uint8Array(7)));
    code(() => powDigest(new Uint8Array(3)));
    code(() => powCurlInput(new Uint8Array(31), 0n));
    code(() => powCurlInput(new Uint8Array(32), -1n));
    code(() => withNonce(new Uint8Array(8), 1n << 64n));
  });
});
