import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { isCodecError } from "../../../src/codec/errors.js";
import { fromHex, toHex, toHexEach, useNativeHex } from "../../../src/codec/hex.js";

/**
 * toHex takes two paths (a lookup table for short inputs, Node's native encoder from 12 bytes
 * on); both must give the same 0x-prefixed lower-case hex, also for views into larger buffers.
 * The native encoder and decoder are used only when the probe at load finds them working, so
 * every test runs twice: with them, and with the portable paths alone.
 */
for (const native of [true, false])
  describe(`hex (${native ? "native" : "portable"} paths)`, () => {
    before(() => {
      assert.equal(useNativeHex(native), native, "Node 20 has the native hex methods");
    });
    after(() => {
      useNativeHex(true);
    });

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
          assert.deepEqual(fromHex(expected.toUpperCase().replace("0X", "0x"), "x", n), Uint8Array.from(bytes));
        }
      }
    });

    it("encodes a list as toHex encodes each item: IDs, views, empty and mixed lengths", () => {
      const backing = Uint8Array.from({ length: 200 }, (_, i) => (i * 37 + 11) & 0xff);
      const lists: Uint8Array[][] = [
        [],
        [backing.subarray(3, 37)],
        Array.from({ length: 100 }, (_, i) => backing.subarray(i, i + 34)),
        [backing.subarray(0, 0), backing.subarray(5, 6), backing.slice(9, 41), backing.subarray(50, 50)],
      ];
      for (const items of lists) assert.deepEqual(toHexEach(items), items.map(toHex), `${items.length} items`);
    });

    it("each decoded array is its own memory, whatever its size", () => {
      for (const n of [12, 34, 4096, 4097, 20_000]) {
        const a = fromHex(`0x${"a1".repeat(n)}`, "a", n);
        const b = fromHex(`0x${"b2".repeat(n)}`, "b", n);
        assert.ok(a.every((x) => x === 0xa1) && b.every((x) => x === 0xb2), `${n} bytes`);
        assert.equal(a.byteOffset, 0);
        assert.equal(a.buffer.byteLength, n);
      }
    });

    it("refuses a bad digit at any position, on the native path and the table path alike", () => {
      for (const n of [4, 34]) {
        const good = `0x${"a1".repeat(n)}`;
        for (let at = 2; at < good.length; at++) {
          for (const bad of ["g", "Z", " ", "\u00e9", "\u4e00"]) {
            const text = good.slice(0, at) + bad + good.slice(at + 1);
            assert.throws(
              () => fromHex(text, "id", n),
              { name: "LedgerNodeError", message: /invalid hex digit/ },
              text,
            );
          }
        }
      }
      assert.throws(
        () => fromHex(`0x${"a1".repeat(33)}\u{1f600}`, "id"),
        (e) => isCodecError(e),
      );
    });
  });
