import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { toHex } from "../../../src/codec/hex.js";
import { bech32Decode, bech32Encode, blake2b256 } from "../../../src/crypto/index.js";

describe("BLAKE2b-256", () => {
  it("matches the known digests of '' and 'abc'", () => {
    assert.equal(toHex(blake2b256()), "0x0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8");
    assert.equal(
      toHex(blake2b256(new TextEncoder().encode("abc"))),
      "0xbddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319",
    );
  });

  it("hashes the concatenation of its parts", () => {
    const a = Uint8Array.of(1, 2, 3);
    const b = Uint8Array.of(4, 5);
    assert.deepEqual(blake2b256(a, b), blake2b256(Uint8Array.of(1, 2, 3, 4, 5)));
  });
});

describe("bech32", () => {
  it("round-trips 33-byte address data and rejects a corrupted checksum", () => {
    const data = new Uint8Array(33).map((_, i) => i);
    const s = bech32Encode("tst", data);
    assert.ok(s.startsWith("tst1"));
    const back = bech32Decode(s);
    assert.equal(back.hrp, "tst");
    assert.deepEqual(back.data, data);
    const broken = s.slice(0, -1) + (s.endsWith("q") ? "p" : "q");
    assert.throws(() => bech32Decode(broken));
  });
});
