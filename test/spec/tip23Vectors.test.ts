import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { describe, it } from "node:test";
import { blockFromJson, blockToJson, encodeBlock } from "../../src/codec/block.js";
import { toHex } from "../../src/codec/hex.js";
import { computeBlockId } from "../../src/codec/ids.js";
import { decodePayload, encodePayload, payloadToJson } from "../../src/codec/payload.js";
import { validateTaggedDataSyntax } from "../../src/codec/syntactic.js";

/**
 * TIP-23 tagged data payloads: the payload of the TIP-24 example (its 24 bytes), and the tagged
 * data block of TIP-25's `get-block-by-id-tagged-data-response-example`, whose bytes and block
 * ID are checked against @iota/iota.js (TIP-25 gives JSON only).
 */
const TIP24_PAYLOAD_HEX = "0x05000000" + "04" + "494f5441" + "0b000000" + "68656c6c6f20776f726c64";

const TIP25_TAGGED_DATA_BLOCK = {
  protocolVersion: 2,
  parents: [
    "0x222e88a63e5aca8ef48d3b8749e2fab51d1bc7c34c5604a2933ca2f180b342c9",
    "0xa22137ebe61435c6d0f3e16ad148376778d7bfb36e27329f02c221ec109525a6",
    "0xa6db9d0b3ecb274d90c21e9dde04012b2d13ad8aa0b90e82e7d3b626be67119d",
    "0xfd31d9c926b5d97ae016535d66baee511dfa3b713b61d8eba2ae5c9929e38ca7",
  ],
  payload: {
    type: 5,
    tag: "0x68656c6c6f20776f726c64",
    data:
      "0x5370616d6d696e6720646174612e0a436f756e743a203037323935320a54696d657374616d703a20323032312d30322d3131" +
      "5431303a32333a34392b30313a30300a54697073656c656374696f6e3a203934c2b573",
  },
  nonce: "2102864",
};

interface IotaOracle {
  serializeBlock(w: unknown, block: unknown): void;
  TransactionHelper: { calculateBlockId(block: unknown): string };
}
const require = createRequire(import.meta.url);
const iota = require("@iota/iota.js") as IotaOracle;
const util = require("@iota/util.js") as { WriteStream: new () => { finalBytes(): Uint8Array } };

describe("TIP-23 tagged data", () => {
  it("the TIP-24 example payload decodes, validates and re-encodes byte for byte", () => {
    const p = decodePayload(Uint8Array.from(Buffer.from(TIP24_PAYLOAD_HEX.slice(2), "hex")));
    assert.equal(p.type, 5);
    if (p.type !== 5) return;
    validateTaggedDataSyntax(p);
    assert.deepEqual(payloadToJson(p), { type: 5, tag: "0x494f5441", data: "0x68656c6c6f20776f726c64" });
    assert.equal(toHex(encodePayload(p)), TIP24_PAYLOAD_HEX);
  });

  it("the TIP-25 tagged data block parses, encodes as iota.js does and keeps its JSON", () => {
    const block = blockFromJson(TIP25_TAGGED_DATA_BLOCK);
    const bytes = encodeBlock(block);
    const w = new util.WriteStream();
    iota.serializeBlock(w, TIP25_TAGGED_DATA_BLOCK);
    assert.equal(toHex(bytes), toHex(w.finalBytes()));
    assert.deepEqual(blockToJson(block), TIP25_TAGGED_DATA_BLOCK);
    assert.equal(toHex(computeBlockId(block)), iota.TransactionHelper.calculateBlockId(TIP25_TAGGED_DATA_BLOCK));
  });
});
