import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { describe, it } from "node:test";
import { blockFromJson, blockToJson, decodeBlock, encodeBlock } from "../../src/codec/block.js";
import { fromHex, toHex } from "../../src/codec/hex.js";
import { computeBlockId } from "../../src/codec/ids.js";
import { validateBlockSyntax } from "../../src/codec/syntactic.js";
import { DEV_PARAMS } from "../helpers/randomBlocks.js";

/**
 * TIP-24 "Example": a block with a tagged data payload (tag "IOTA", data "hello world"),
 * serialized field by field in the TIP. The TIP states no block ID for it; the ID below is
 * BLAKE2b-256 of those bytes, checked against @iota/iota.js's `calculateBlockId` here.
 */
const TIP24_EXAMPLE_HEX =
  "0x" +
  "02" + // protocol version 2
  "02" + // parents count 2
  "210fc7bb818639ac48a4c6afa2f1581a8b9525e20fda68927f2b2ff836f73578" +
  "db0fa54c29f7fd928d92ca43f193dee47f591549f597a811c8fa67ab031ebd9c" +
  "18000000" + // payload length 24
  "05000000" + // payload type 5 (tagged data)
  "04" + // tag length 4
  "494f5441" + // "IOTA"
  "0b000000" + // data length 11
  "68656c6c6f20776f726c64" + // "hello world"
  "ce6d000000000000"; // nonce 28110
const TIP24_EXAMPLE_BLOCK_ID = "0x1a58801fbea0f94796b125669dc293edce794188ca3514f834e2cfaa79c52cf6";

interface IotaBlockOracle {
  TransactionHelper: { calculateBlockId(block: unknown): string };
  deserializeBlock(r: unknown): unknown;
}
const require = createRequire(import.meta.url);
const iota = require("@iota/iota.js") as IotaBlockOracle;
const util = require("@iota/util.js") as { ReadStream: new (b: Uint8Array) => unknown };

describe("TIP-24 example block", () => {
  const bytes = fromHex(TIP24_EXAMPLE_HEX, "tip24");

  it("decodes to the fields the TIP lists and re-encodes byte for byte", () => {
    const block = decodeBlock(bytes);
    assert.equal(block.protocolVersion, 2);
    assert.equal(block.parents.length, 2);
    assert.equal(block.nonce, 28110n);
    assert.equal(block.payload?.type, 5);
    if (block.payload?.type !== 5) return;
    assert.equal(new TextDecoder().decode(block.payload.tag), "IOTA");
    assert.equal(new TextDecoder().decode(block.payload.data), "hello world");
    assert.equal(toHex(encodeBlock(block)), TIP24_EXAMPLE_HEX);
  });

  it("has the TIP-25 JSON form, which parses back to the same bytes", () => {
    const json = blockToJson(decodeBlock(bytes));
    assert.deepEqual(json, {
      protocolVersion: 2,
      parents: [
        "0x210fc7bb818639ac48a4c6afa2f1581a8b9525e20fda68927f2b2ff836f73578",
        "0xdb0fa54c29f7fd928d92ca43f193dee47f591549f597a811c8fa67ab031ebd9c",
      ],
      payload: { type: 5, tag: "0x494f5441", data: "0x68656c6c6f20776f726c64" },
      nonce: "28110",
    });
    assert.equal(toHex(encodeBlock(blockFromJson(json))), TIP24_EXAMPLE_HEX);
    assert.deepEqual(iota.deserializeBlock(new util.ReadStream(bytes)), json);
  });

  it("has block ID BLAKE2b-256(bytes), as iota.js computes it", () => {
    const block = decodeBlock(bytes);
    assert.equal(toHex(computeBlockId(block)), TIP24_EXAMPLE_BLOCK_ID);
    assert.equal(iota.TransactionHelper.calculateBlockId(blockToJson(block)), TIP24_EXAMPLE_BLOCK_ID);
  });

  it("passes syntactic validation, and fails it under another protocol version", () => {
    const block = decodeBlock(bytes);
    validateBlockSyntax(block, DEV_PARAMS, { byteLength: bytes.length });
    assert.throws(() => validateBlockSyntax(block, { ...DEV_PARAMS, protocolVersion: 3 }));
  });
});
