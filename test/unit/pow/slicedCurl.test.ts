import assert from "node:assert/strict";
import { randomBytes, randomInt } from "node:crypto";
import { describe, it } from "node:test";
import {
  CURL_HASH_LENGTH,
  CURL_STATE_LENGTH,
  createSlicedCurl,
  curlTransform,
  powHash,
  type SlicedCurl,
  searchNonce,
  simdAvailable,
  trailingZeros,
} from "../../../src/pow/index.js";
import { firstZeroRunLane, laneTrit, setLaneTrit } from "../../../src/pow/slicedCurl.js";

function randomState(): Int8Array {
  return Int8Array.from({ length: CURL_STATE_LENGTH }, () => randomInt(3) - 1);
}

function load(curl: SlicedCurl, states: Int8Array[]): void {
  states.forEach((s, lane) => {
    for (let t = 0; t < CURL_STATE_LENGTH; t++) setLaneTrit(curl.input, curl.words, t, lane, s[t]!);
  });
}

function laneState(buf: Int32Array, curl: SlicedCurl, lane: number, length = CURL_STATE_LENGTH): Int8Array {
  return Int8Array.from({ length }, (_, t) => laneTrit(buf, curl.words, t, lane));
}

describe("bit-sliced Curl-P-81", () => {
  const simd = createSlicedCurl();
  const js = createSlicedCurl({ simd: false });

  it("runs on WebAssembly SIMD here and falls back to 32 JS lanes on request", () => {
    assert.equal(simdAvailable(), true);
    assert.equal(simd.kind, "wasm-simd");
    assert.equal(simd.lanes, 128);
    assert.equal(js.kind, "js");
    assert.equal(js.lanes, 32);
  });

  for (const curl of [simd, js]) {
    it(`${curl.kind}: every lane equals the scalar Curl on random states`, () => {
      for (let round = 0; round < 2; round++) {
        const states = Array.from({ length: curl.lanes }, randomState);
        load(curl, states);
        curl.transform();
        states.forEach((s, lane) => {
          const expected = s.slice();
          curlTransform(expected);
          assert.deepEqual(laneState(curl.output, curl, lane), expected, `lane ${lane}`);
          assert.deepEqual(laneState(curl.input, curl, lane), s, "input is left unchanged");
        });
      }
    });
  }

  it("SIMD and JS give identical planes for identical states", () => {
    const states = Array.from({ length: 32 }, randomState);
    load(simd, [...states, ...Array.from({ length: 96 }, randomState)]);
    load(js, states);
    simd.transform();
    js.transform();
    for (let lane = 0; lane < 32; lane++)
      assert.deepEqual(laneState(simd.output, simd, lane), laneState(js.output, js, lane));
  });

  it("finds the lowest lane whose trailing trits are all zero", () => {
    const buf = new Int32Array(2 * 4 * 10);
    for (let lane = 0; lane < 128; lane++) for (let t = 0; t < 10; t++) setLaneTrit(buf, 4, t, lane, 1);
    assert.equal(firstZeroRunLane(buf, 4, 7, 10), -1);
    for (let t = 7; t < 10; t++) setLaneTrit(buf, 4, t, 77, 0);
    for (let t = 8; t < 10; t++) setLaneTrit(buf, 4, t, 40, 0);
    assert.equal(firstZeroRunLane(buf, 4, 7, 10), 77);
    assert.equal(firstZeroRunLane(buf, 4, 8, 10), 40);
  });
});

describe("nonce search", () => {
  const simd = createSlicedCurl();
  const js = createSlicedCurl({ simd: false });

  it("hashes nonce batch + lane in each lane where upper nonce bytes change, up to the top", () => {
    const digest = randomBytes(32);
    for (const curl of [simd, js]) {
      const lanes = BigInt(curl.lanes);
      // two batches each: the second starts where bytes above the lowest one change
      for (const next of [2n ** 32n, 2n ** 63n + 2n ** 20n, 2n ** 64n - lanes]) {
        const r = searchNonce(curl, digest, CURL_HASH_LENGTH, { start: next - lanes, maxBatches: 2 });
        assert.deepEqual(r, { nonce: null, hashes: 2 * curl.lanes });
        for (const lane of [0, 1, 31, curl.lanes - 1]) {
          const nonce = next + BigInt(lane);
          const hash = laneState(curl.output, curl, lane, CURL_HASH_LENGTH);
          assert.deepEqual(hash, powHash(digest, nonce), `${curl.kind} nonce ${nonce}`);
        }
      }
    }
  });

  it("SIMD and JS return the same, lowest qualifying nonce, confirmed by the scalar scorer", () => {
    for (let i = 0; i < 3; i++) {
      const digest = randomBytes(32);
      const start = BigInt(randomInt(2 ** 40)) * 256n;
      const a = searchNonce(simd, digest, 6, { start });
      const b = searchNonce(js, digest, 6, { start });
      assert.notEqual(a.nonce, null);
      assert.equal(a.nonce, b.nonce);
      const found = a.nonce!;
      assert.ok(trailingZeros(digest, found) >= 6);
      for (let n = start; n < found; n++) assert.ok(trailingZeros(digest, n) < 6, `${n} was skipped`);
    }
  });

  it("stops when asked and at the top of the u64 range", () => {
    const digest = randomBytes(32);
    let polls = 0;
    const stopped = searchNonce(simd, digest, CURL_HASH_LENGTH, { start: 0n, shouldStop: () => ++polls > 3 });
    assert.deepEqual(stopped, { nonce: null, hashes: 3 * 128 });
    const top = searchNonce(simd, digest, CURL_HASH_LENGTH, { start: 2n ** 64n - 1n, maxBatches: 10 });
    assert.deepEqual(top, { nonce: null, hashes: 128 });
  });
});
