import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ReadStream } from "../../../src/codec/readStream.js";
import { WriteStream } from "../../../src/codec/writeStream.js";

/**
 * ReadStream assembles little-endian integers from bytes (no DataView): every width must agree
 * with DataView's reading at the edges of its range, from any offset, and `view` must alias
 * the input while `bytesN` copies it.
 */
describe("ReadStream", () => {
  const u64Edges = [
    0n,
    1n,
    0xffn,
    0xffff_ffffn,
    0x1_0000_0000n,
    2n ** 53n - 1n,
    2n ** 53n,
    2n ** 53n + 1n,
    2n ** 64n - 1n,
  ];

  it("reads u16, u32 and u64 as DataView does, at odd offsets too", () => {
    const rnd = (n: number) => Math.floor(Math.random() * n);
    const u32s = [0, 1, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff, ...Array.from({ length: 50 }, () => rnd(2 ** 32))];
    const u64s = [
      ...u64Edges,
      ...Array.from({ length: 50 }, () => (BigInt(rnd(2 ** 32)) << 32n) | BigInt(rnd(2 ** 32))),
    ];
    for (const pad of [0, 1, 3]) {
      const w = new WriteStream(16);
      for (let i = 0; i < pad; i++) w.u8(0xee);
      for (const v of u32s) w.u16(v & 0xffff).u32(v);
      for (const v of u64s) w.u64(v);
      const bytes = w.finish();
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      const r = new ReadStream(bytes);
      for (let i = 0; i < pad; i++) r.u8("pad");
      let at = pad;
      for (const v of u32s) {
        assert.equal(r.u16("u16"), view.getUint16(at, true));
        assert.equal(r.peekU32("peek"), v);
        assert.equal(r.u32("u32"), v);
        at += 6;
      }
      for (const v of u64s) {
        assert.equal(r.u64("u64"), v);
        assert.equal(view.getBigUint64(at, true), v);
        at += 8;
      }
      r.expectEnd("all");
    }
  });

  it("aliases with view and copies with bytesN", () => {
    const bytes = Uint8Array.of(1, 2, 3, 4);
    const r = new ReadStream(bytes);
    const aliased = r.view(2, "a");
    const copied = r.bytesN(2, "b");
    bytes[0] = 9;
    bytes[2] = 9;
    assert.deepEqual([...aliased], [9, 2]);
    assert.deepEqual([...copied], [3, 4]);
  });

  it("names the field of a truncated read", () => {
    assert.throws(() => new ReadStream(Uint8Array.of(1, 2, 3)).u32("thing.count"), {
      name: "LedgerNodeError",
      message: /thing\.count/,
    });
    assert.throws(() => new ReadStream(Uint8Array.of(1)).view(2, "thing.id"), { message: /thing\.id/ });
  });
});
