import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import { describe, it } from "node:test";
import { CURL_STATE_LENGTH, curlP81, curlTransform } from "../../../src/pow/index.js";

describe("Curl-P-81 (scalar)", () => {
  it("squeezes further blocks by transforming the state again", () => {
    const input = Int8Array.from({ length: 243 }, () => randomInt(3) - 1);
    const two = curlP81(input, 486);
    assert.deepEqual(two.subarray(0, 243), curlP81(input));
    const state = new Int8Array(CURL_STATE_LENGTH);
    state.set(input);
    curlTransform(state);
    curlTransform(state);
    assert.deepEqual(two.subarray(243), state.subarray(0, 243));
  });

  it("returns the all-zero state to itself: S(0,0) = -1, S(-1,-1) = 1, S(1,1) = 0, and 81 = 3·27", () => {
    const state = new Int8Array(CURL_STATE_LENGTH);
    curlTransform(state, 1);
    assert.ok(state.every((t) => t === -1));
    curlTransform(state, 1);
    assert.ok(state.every((t) => t === 1));
    curlTransform(state, 79);
    assert.ok(state.every((t) => t === 0));
  });

  it("rejects input that is not whole 243-trit blocks", () => {
    assert.throws(() => curlP81(new Int8Array(10)), RangeError);
    assert.throws(() => curlP81(new Int8Array(0)), RangeError);
  });
});
