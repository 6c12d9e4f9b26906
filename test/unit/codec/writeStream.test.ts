import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { toHex } from "../../../src/codec/hex.js";
import { WriteStream } from "../../../src/codec/writeStream.js";

/**
 * WriteStream hands its scratch memory to the next stream when it finishes: what a finished
 * stream returned never changes afterwards, streams open at the same time (nested encoding)
 * never share memory, and growth past the first size keeps every byte.
 */
describe("WriteStream", () => {
  it("returns copies that later streams do not overwrite", () => {
    const first = new WriteStream(8).u32(0x11223344).u32(0x55667788).finish();
    const second = new WriteStream(8).u32(0xaabbccdd).u32(0xeeff0011).finish();
    assert.equal(toHex(first), "0x4433221188776655");
    assert.equal(toHex(second), "0xddccbbaa1100ffee");
  });

  it("keeps nested streams apart", () => {
    const outer = new WriteStream(16).u8(1);
    const inner = new WriteStream(16).u8(2).u8(3);
    outer.u8(4);
    const innerBytes = inner.finish();
    const again = new WriteStream(16).u8(9).u8(9).u8(9); // takes the memory inner handed back
    outer.bytes(innerBytes).u8(5);
    assert.equal(toHex(outer.finish()), "0x0104020305");
    assert.equal(toHex(innerBytes), "0x0203");
    assert.equal(toHex(again.finish()), "0x090909");
  });

  it("grows past its first size and keeps every byte", () => {
    const w = new WriteStream(4);
    const bytes = Uint8Array.from({ length: 5000 }, (_, i) => i & 0xff);
    for (let i = 0; i < bytes.length; i += 7) w.bytes(bytes.subarray(i, i + 7));
    assert.deepEqual(w.finish(), bytes);
    assert.equal(new WriteStream(4).finish().length, 0);
  });
});
