import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { b1t6Encode, b1t6EncodeInto } from "../../../src/pow/index.js";

describe("b1t6", () => {
  it("gives every byte value the 6-trit balanced ternary of its signed value", () => {
    const all = b1t6Encode(Uint8Array.from({ length: 256 }, (_, i) => i));
    for (let b = 0; b < 256; b++) {
      let v = 0;
      for (let k = 5; k >= 0; k--) v = 3 * v + all[6 * b + k]!;
      assert.equal(v, (b << 24) >> 24);
    }
  });

  it("writes at an offset and reports the trits written", () => {
    const dst = new Int8Array(20).fill(7);
    assert.equal(b1t6EncodeInto(dst, 4, Uint8Array.of(1, 255)), 12);
    assert.deepEqual([...dst.subarray(0, 4)], [7, 7, 7, 7]);
    assert.deepEqual([...dst.subarray(4, 16)], [1, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, 0]);
    assert.deepEqual([...dst.subarray(16)], [7, 7, 7, 7]);
  });
});
