import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fromHex, toHex } from "../../../src/codec/hex.js";

/**
 * toHex takes two paths (a lookup table for short inputs, Node's native encoder from 12 bytes
 * on); both must give the same 0x-prefixed lower-case hex, also for views into larger buffers.
 */
describe("hex", () => {
  it("encodes every length from 0 to 80 bytes, whole arrays and offset views, both ways", () => {
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      return seed >>> 24;
    };
    for (let n = 0; n <= 80; n++) {
      const backing = Uint8Array.from({ length: n + 9 }, next);
      for (const bytes of [backing.slice(0, n), backing.subarray(5, 5 + n)]) {
        let expected = "0x";
        for (const b of bytes) expected += b.toString(16).padStart(2, "0");
        assert.equal(toHex(bytes), expected, `length ${n}`);
        assert.deepEqual(fromHex(expected, "x", n), Uint8Array.from(bytes));
      }
    }
  });
});
