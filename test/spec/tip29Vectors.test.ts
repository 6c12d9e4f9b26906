import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { describe, it } from "node:test";
import { fromHex, toHex } from "../../src/codec/hex.js";
import { computeMilestoneId, milestoneEssenceBytes } from "../../src/codec/ids.js";
import { encodeMilestone, milestoneFromJson, milestoneToJson } from "../../src/codec/milestone.js";
import {
  deserializeMilestoneOptions,
  milestoneOptionFromJson,
  milestoneOptionToJson,
  serializeMilestoneOption,
} from "../../src/codec/milestoneOptions.js";
import { decodePayload } from "../../src/codec/payload.js";
import { decodeProtocolParameters, encodeProtocolParameters } from "../../src/codec/protocolParameters.js";
import { ReadStream } from "../../src/codec/readStream.js";
import { validateMilestoneSyntax } from "../../src/codec/syntactic.js";
import type { MilestonePayload } from "../../src/codec/types.js";
import { WriteStream } from "../../src/codec/writeStream.js";
import { blake2b256 } from "../../src/crypto/blake2b.js";
import { DEV_PARAMS } from "../helpers/randomBlocks.js";

/**
 * TIP-29 gives no serialized example, so this milestone is laid out here field by field from
 * the TIP's "Serialized Layout" table (raw writes, independent of the codec), with a
 * protocol parameters option per its own table. The milestone ID is the BLAKE2b-256 of the
 * essence (the bytes between the payload type and the signatures count), as TIP-29 defines it;
 * @iota/iota.js computes the same.
 */

const id = (b: number): Uint8Array => new Uint8Array(32).fill(b);
const params = encodeProtocolParameters(DEV_PARAMS);

function handLaidMilestone(): { bytes: Uint8Array; essenceStart: number; essenceEnd: number } {
  const w = new WriteStream();
  w.u32(7); // Payload Type
  const essenceStart = w.length;
  w.u32(16241); // Index Number
  w.u32(1617959712); // Timestamp
  w.u8(2); // Protocol Version
  w.bytes(id(0xa6)); // Previous Milestone ID
  w.u8(2).bytes(id(0x23)).bytes(id(0x24)); // Parents Count, Parents
  w.bytes(id(0x0e)); // Inclusion Merkle Root
  w.bytes(id(0x9c)); // Applied Merkle Root
  w.u16(3).bytes(Uint8Array.of(1, 2, 3)); // Metadata
  w.u8(1); // Options Count
  w.u8(1).u32(16245).u8(3).u16(params.length).bytes(params); // Protocol Parameters Milestone Option
  const essenceEnd = w.length;
  w.u8(2); // Signatures Count
  w.u8(0).bytes(id(0x72)).bytes(new Uint8Array(64).fill(0xa6)); // Ed25519 Signature
  w.u8(0).bytes(id(0xe4)).bytes(new Uint8Array(64).fill(0x4b));
  return { bytes: w.finish(), essenceStart, essenceEnd };
}

interface IotaOracle {
  milestoneIdFromMilestonePayload(m: unknown): string;
  serializeMilestonePayload(w: unknown, m: unknown): void;
  serializeMilestoneOption(w: unknown, o: unknown): void;
}
const require = createRequire(import.meta.url);
const iota = require("@iota/iota.js") as IotaOracle;
const util = require("@iota/util.js") as { WriteStream: new () => { finalBytes(): Uint8Array } };

describe("TIP-29 milestone payload", () => {
  const { bytes, essenceStart, essenceEnd } = handLaidMilestone();

  it("decodes the table's layout into its fields and re-encodes byte for byte", () => {
    const m = decodePayload(bytes);
    assert.equal(m.type, 7);
    if (m.type !== 7) return;
    assert.equal(m.index, 16241);
    assert.equal(m.timestamp, 1617959712);
    assert.equal(m.protocolVersion, 2);
    assert.deepEqual(m.previousMilestoneId, id(0xa6));
    assert.deepEqual(m.parents, [id(0x23), id(0x24)]);
    assert.deepEqual(m.inclusionMerkleRoot, id(0x0e));
    assert.deepEqual(m.appliedMerkleRoot, id(0x9c));
    assert.deepEqual(m.metadata, Uint8Array.of(1, 2, 3));
    assert.equal(m.options.length, 1);
    const o = m.options[0]!;
    assert.equal(o.type, 1);
    if (o.type !== 1) return;
    assert.equal(o.targetMilestoneIndex, 16245);
    assert.equal(o.protocolVersion, 3);
    assert.deepEqual(decodeProtocolParameters(o.params), DEV_PARAMS);
    assert.equal(m.signatures.length, 2);
    assert.equal(toHex(encodeMilestone(m)), toHex(bytes));
    validateMilestoneSyntax(m, DEV_PARAMS);
  });

  it("has milestone ID = BLAKE2b-256(essence), signatures excluded, as iota.js computes", () => {
    const m = decodePayload(bytes);
    if (m.type !== 7) return assert.fail("not a milestone");
    const essence = bytes.subarray(essenceStart, essenceEnd);
    assert.deepEqual(milestoneEssenceBytes(m), essence);
    assert.deepEqual(computeMilestoneId(m), blake2b256(essence));
    const json = milestoneToJson(m);
    assert.equal(iota.milestoneIdFromMilestonePayload(json), toHex(blake2b256(essence)));
    const w = new util.WriteStream();
    iota.serializeMilestonePayload(w, json);
    assert.equal(toHex(w.finalBytes()), toHex(bytes));
    assert.deepEqual(milestoneFromJson(JSON.parse(JSON.stringify(json)), "milestone"), m);
  });

  it("rejects the layout with the signatures count set to 0", () => {
    const broken = bytes.slice();
    broken[essenceEnd] = 0;
    assert.throws(() => decodePayload(fromHex(toHex(broken), "x")));
  });
});

/**
 * TIP-34 receipts. The TIP has no serialized example; the receipt of TIP-25's
 * `get-receipts-response-example` (JSON, with the option type 0 added) is laid out here by hand
 * from TIP-34's "Receipt Milestone Option" and "Treasury Transaction" tables, and checked
 * against our codec and @iota/iota.js.
 */
const TIP25_RECEIPT = {
  type: 0,
  migratedAt: 1000,
  final: false,
  funds: [
    {
      tailTransactionHash:
        "0xe0ce1933a900d02e0a43e2ba4e922d1a706a36a117ce1eb9ad0a74d39ee722c41b00cd227232efd76f5997e91bf8000000",
      address: { type: 0, pubKeyHash: "0x5eec99d6ee4ba21aa536c3364bbf2b587cb98a7f2565b75d948b10083e2143f8" },
      deposit: "1702000000",
    },
  ],
  transaction: {
    type: 4,
    input: { type: 1, milestoneId: "0x733ed2810f2333e9d6cd702c7d5c8264cd9f1ae454b61e75cf702c451f68611d" },
    output: { type: 2, amount: "1702000000" },
  },
};

function handLaidReceipt(): Uint8Array {
  const hex = (s: string): Uint8Array => Uint8Array.from(Buffer.from(s.slice(2), "hex"));
  const w = new WriteStream();
  w.u8(0); // Milestone Option Type
  w.u32(1000); // Migrated At
  w.u8(0); // Final
  w.u16(1); // Funds Count
  w.bytes(hex(TIP25_RECEIPT.funds[0]!.tailTransactionHash)); // Tail Transaction Hash (49)
  w.u8(0).bytes(hex(TIP25_RECEIPT.funds[0]!.address.pubKeyHash)); // Ed25519 Address
  w.u64(1702000000n); // Amount
  w.u32(4 + 33 + 9); // length of the treasury transaction payload
  w.u32(4); // Payload Type: treasury transaction
  w.u8(1).bytes(hex(TIP25_RECEIPT.transaction.input.milestoneId)); // Treasury Input
  w.u8(2).u64(1702000000n); // Treasury Output
  return w.finish();
}

describe("TIP-34 receipt milestone option", () => {
  it("the TIP-25 receipt encodes to the TIP-34 layout, as iota.js does", () => {
    const option = milestoneOptionFromJson(TIP25_RECEIPT, "receipt");
    const w = new WriteStream();
    serializeMilestoneOption(w, option);
    const expected = toHex(handLaidReceipt());
    assert.equal(toHex(w.finish()), expected);
    const iw = new util.WriteStream();
    iota.serializeMilestoneOption(iw, TIP25_RECEIPT);
    assert.equal(toHex(iw.finalBytes()), expected);
    assert.deepEqual(milestoneOptionToJson(option), TIP25_RECEIPT);
  });

  it("decodes the layout back and passes the receipt's syntactic rules in a milestone", () => {
    const bytes = handLaidReceipt();
    const r = new ReadStream(Uint8Array.of(1, ...bytes));
    const [option] = deserializeMilestoneOptions(r, "options");
    r.expectEnd("options");
    assert.deepEqual(option, milestoneOptionFromJson(TIP25_RECEIPT, "receipt"));
    const m: MilestonePayload = {
      type: 7,
      index: 2,
      timestamp: 1,
      protocolVersion: 2,
      previousMilestoneId: new Uint8Array(32).fill(1),
      parents: [new Uint8Array(32)],
      inclusionMerkleRoot: new Uint8Array(32),
      appliedMerkleRoot: new Uint8Array(32),
      metadata: new Uint8Array(0),
      options: [option!],
      signatures: [{ type: 0, publicKey: new Uint8Array(32), signature: new Uint8Array(64) }],
    };
    validateMilestoneSyntax(m, DEV_PARAMS);
  });
});
