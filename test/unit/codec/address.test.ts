import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  addressEquals,
  addressFromBech32,
  addressFromJson,
  addressToBech32,
  addressToJson,
  deserializeAddress,
  serializeAddress,
  serializeAddressBytes,
} from "../../../src/codec/address.js";
import { CodecErrorCode } from "../../../src/codec/errors.js";
import { fromHex, toHex } from "../../../src/codec/hex.js";
import { ReadStream } from "../../../src/codec/readStream.js";
import type { Address } from "../../../src/codec/types.js";
import { WriteStream } from "../../../src/codec/writeStream.js";
import { bech32Encode } from "../../../src/crypto/bech32.js";
import { expectCodecError } from "./expectCodecError.js";

const h = (s: string): Uint8Array => fromHex(`0x${s}`, "test");

/** The examples of TIP-31 "Examples": serialized address and its bech32 string per HRP. */
const TIP31: { name: string; serialized: string; address: Address; bech32: Record<string, string> }[] = [
  {
    name: "Ed25519",
    serialized: "00efdc112efe262b304bcf379b26c31bad029f616ee3ec4aa6345a366e4c9e43a3",
    address: { type: 0, pubKeyHash: h("efdc112efe262b304bcf379b26c31bad029f616ee3ec4aa6345a366e4c9e43a3") },
    bech32: {
      iota: "iota1qrhacyfwlcnzkvzteumekfkrrwks98mpdm37cj4xx3drvmjvnep6xqgyzyx",
      atoi: "atoi1qrhacyfwlcnzkvzteumekfkrrwks98mpdm37cj4xx3drvmjvnep6x8x4r7t",
      smr: "smr1qrhacyfwlcnzkvzteumekfkrrwks98mpdm37cj4xx3drvmjvnep6xhcazjh",
      rms: "rms1qrhacyfwlcnzkvzteumekfkrrwks98mpdm37cj4xx3drvmjvnep6xrlkcfw",
    },
  },
  {
    name: "Alias",
    serialized: "08fe80c2eb7c736da2f7c98ecf135ee9e34e4e076afe6e1dfebc9ec578b8f56d2f",
    address: { type: 8, aliasId: h("fe80c2eb7c736da2f7c98ecf135ee9e34e4e076afe6e1dfebc9ec578b8f56d2f") },
    bech32: {
      iota: "iota1prlgpsht03ekmghhex8v7y67a835uns8dtlxu807hj0v279c74kj76j6rev",
      atoi: "atoi1prlgpsht03ekmghhex8v7y67a835uns8dtlxu807hj0v279c74kj7autzrp",
      smr: "smr1prlgpsht03ekmghhex8v7y67a835uns8dtlxu807hj0v279c74kj7dzrr0a",
      rms: "rms1prlgpsht03ekmghhex8v7y67a835uns8dtlxu807hj0v279c74kj7e9ge5y",
    },
  },
  {
    name: "NFT",
    serialized: "103159b115e27128b6db16db5e61f1aa4c70d84a99be753faa3ee70d9ad9c6a6b7",
    address: { type: 16, nftId: h("3159b115e27128b6db16db5e61f1aa4c70d84a99be753faa3ee70d9ad9c6a6b7") },
    bech32: {
      iota: "iota1zqc4nvg4ufcj3dkmzmd4uc034fx8pkz2nxl820a28mnsmxkec6ntw0vklm7",
      atoi: "atoi1zqc4nvg4ufcj3dkmzmd4uc034fx8pkz2nxl820a28mnsmxkec6ntwgz87pn",
      smr: "smr1zqc4nvg4ufcj3dkmzmd4uc034fx8pkz2nxl820a28mnsmxkec6ntwcu0ld0",
      rms: "rms1zqc4nvg4ufcj3dkmzmd4uc034fx8pkz2nxl820a28mnsmxkec6ntwvmy9kk",
    },
  },
];

describe("addresses: TIP-31 vectors", () => {
  for (const v of TIP31) {
    it(`${v.name}: serialization and bech32 for iota, atoi, smr, rms`, () => {
      assert.equal(toHex(serializeAddressBytes(v.address)), `0x${v.serialized}`);
      const w = new WriteStream();
      serializeAddress(w, v.address);
      assert.equal(toHex(w.finish()), `0x${v.serialized}`);
      assert.deepEqual(deserializeAddress(new ReadStream(h(v.serialized)), "address"), v.address);
      for (const [hrp, text] of Object.entries(v.bech32)) {
        assert.equal(addressToBech32(v.address, hrp), text);
        assert.deepEqual(addressFromBech32(text, hrp, "address"), v.address);
      }
    });
  }

  it("accepts an all-upper-case bech32 string (BIP-173)", () => {
    const v = TIP31[0]!;
    assert.deepEqual(addressFromBech32(v.bech32.smr!.toUpperCase(), "smr", "address"), v.address);
  });
});

describe("addresses: bech32 rejections", () => {
  const ed = TIP31[0]!;
  it("wrong HRP", () => {
    expectCodecError(() => addressFromBech32(ed.bech32.iota!, "smr", "to"), CodecErrorCode.InvalidBech32, "to");
  });
  it("bad checksum", () => {
    const text = ed.bech32.rms!;
    const broken = `${text.slice(0, -1)}${text.endsWith("q") ? "p" : "q"}`;
    expectCodecError(() => addressFromBech32(broken, "rms", "to"), CodecErrorCode.InvalidBech32, "to");
  });
  it("mixed case and non-bech32 characters", () => {
    const text = ed.bech32.rms!;
    expectCodecError(() => addressFromBech32(`R${text.slice(1)}`, "rms", "to"), CodecErrorCode.InvalidBech32, "to");
    expectCodecError(() => addressFromBech32("rms1qb!", "rms", "to"), CodecErrorCode.InvalidBech32, "to");
    expectCodecError(() => addressFromBech32("", "rms", "to"), CodecErrorCode.InvalidBech32, "to");
  });
  it("unknown type byte", () => {
    const data = h(ed.serialized);
    data[0] = 1;
    expectCodecError(
      () => addressFromBech32(bech32Encode("rms", data), "rms", "to"),
      CodecErrorCode.InvalidBech32,
      "to",
    );
  });
  it("wrong length", () => {
    const long = new Uint8Array(34);
    const short = h(ed.serialized).subarray(0, 32);
    expectCodecError(
      () => addressFromBech32(bech32Encode("rms", long), "rms", "to"),
      CodecErrorCode.InvalidBech32,
      "to",
    );
    expectCodecError(
      () => addressFromBech32(bech32Encode("rms", short), "rms", "to"),
      CodecErrorCode.InvalidBech32,
      "to",
    );
  });
});

describe("addresses: binary and JSON", () => {
  it("JSON round trip for each kind", () => {
    assert.deepEqual(addressToJson(TIP31[0]!.address), {
      type: 0,
      pubKeyHash: "0xefdc112efe262b304bcf379b26c31bad029f616ee3ec4aa6345a366e4c9e43a3",
    });
    assert.deepEqual(addressToJson(TIP31[1]!.address), {
      type: 8,
      aliasId: "0xfe80c2eb7c736da2f7c98ecf135ee9e34e4e076afe6e1dfebc9ec578b8f56d2f",
    });
    assert.deepEqual(addressToJson(TIP31[2]!.address), {
      type: 16,
      nftId: "0x3159b115e27128b6db16db5e61f1aa4c70d84a99be753faa3ee70d9ad9c6a6b7",
    });
    for (const v of TIP31) assert.deepEqual(addressFromJson(addressToJson(v.address), "a"), v.address);
  });

  it("rejects an unknown type, truncation and bad JSON", () => {
    const bytes = h(TIP31[0]!.serialized);
    bytes[0] = 2;
    expectCodecError(() => deserializeAddress(new ReadStream(bytes), "a"), CodecErrorCode.UnknownType, "a.type");
    const short = h(TIP31[1]!.serialized).subarray(0, 20);
    expectCodecError(() => deserializeAddress(new ReadStream(short), "a"), CodecErrorCode.Truncated, "a.aliasId");
    expectCodecError(() => addressFromJson({ type: 2, pubKeyHash: "0x00" }, "a"), CodecErrorCode.UnknownType, "a.type");
    expectCodecError(
      () => addressFromJson({ type: 0, aliasId: `0x${"00".repeat(32)}` }, "a"),
      CodecErrorCode.InvalidJson,
      "a.pubKeyHash",
    );
    expectCodecError(
      () => addressFromJson({ type: 8, aliasId: `0x${"00".repeat(31)}` }, "a"),
      CodecErrorCode.InvalidHex,
      "a.aliasId",
    );
    expectCodecError(
      () => addressFromJson({ type: 16, nftId: `0x${"00".repeat(32)}`, extra: 1 }, "a"),
      CodecErrorCode.InvalidJson,
      "a.extra",
    );
  });

  it("addressEquals compares kind and bytes", () => {
    const [ed, alias] = [TIP31[0]!.address, TIP31[1]!.address];
    assert.ok(addressEquals(ed, { type: 0, pubKeyHash: h(TIP31[0]!.serialized.slice(2)) }));
    assert.ok(!addressEquals(ed, alias));
    const sameBytesOtherKind: Address = { type: 16, nftId: h(TIP31[0]!.serialized.slice(2)) };
    assert.ok(!addressEquals(ed, sameBytesOtherKind));
  });
});
