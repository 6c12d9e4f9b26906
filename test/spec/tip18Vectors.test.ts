import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fromHex, toHex } from "../../src/codec/hex.js";
import { foundryId } from "../../src/codec/outputs/foundryOutput.js";
import { decodeOutput, encodeOutput, outputFromJson, outputToJson } from "../../src/codec/outputs/output.js";
import { validateOutput } from "../../src/codec/outputs/validateOutput.js";
import type { FoundryOutput } from "../../src/codec/types.js";

/**
 * TIP-18 gives its outputs as field tables and carries no serialized examples, so these vectors
 * are written field by field from those tables (type codes, field order, little-endian widths,
 * length prefixes), using the example addresses of TIP-31. Each decodes to the TIP-25 JSON
 * listed beside it, re-encodes byte for byte, and is syntactically valid on the dev network.
 */

const ED = "efdc112efe262b304bcf379b26c31bad029f616ee3ec4aa6345a366e4c9e43a3";
const ALIAS = "fe80c2eb7c736da2f7c98ecf135ee9e34e4e076afe6e1dfebc9ec578b8f56d2f";
const NFT = "3159b115e27128b6db16db5e61f1aa4c70d84a99be753faa3ee70d9ad9c6a6b7";
const edJson = { type: 0, pubKeyHash: `0x${ED}` };
const aliasJson = { type: 8, aliasId: `0x${ALIAS}` };
const nftJson = { type: 16, nftId: `0x${NFT}` };
/** Foundry ID of serial number 1 under the TIP-31 alias: alias address || u32 1 || scheme 0. */
const FOUNDRY_1 = `08${ALIAS}0100000000`;
const u256 = (hexLe: string): string => hexLe.padEnd(64, "0");

interface Vector {
  name: string;
  fields: [string, string][];
  json: unknown;
}

const VECTORS: Vector[] = [
  {
    name: "basic output with every unlock condition and feature it allows",
    fields: [
      ["Output Type (3)", "03"],
      ["Amount (u64 1000000)", "40420f0000000000"],
      ["Native Tokens Count", "01"],
      ["  Token ID (foundry ID)", FOUNDRY_1],
      ["  Amount (u256 1000)", u256("e803")],
      ["Unlock Conditions Count", "04"],
      ["  Address Unlock Condition (0), Ed25519 address", `0000${ED}`],
      ["  Storage Deposit Return (1), NFT address", `0110${NFT}`],
      ["    Return Amount (u64 42600)", "68a6000000000000"],
      ["  Timelock (2), Unix Time 1700000000", "0200f15365"],
      ["  Expiration (3), alias address", `0308${ALIAS}`],
      ["    Unix Time 1800000000", "00d2496b"],
      ["Features Count", "03"],
      ["  Sender Feature (0), Ed25519 address", `0000${ED}`],
      ["  Metadata Feature (2), (u16)'hello'", "0205006865 6c6c6f"],
      ["  Tag Feature (3), (u8)'tag1'", "030474616731"],
    ],
    json: {
      type: 3,
      amount: "1000000",
      nativeTokens: [{ id: `0x${FOUNDRY_1}`, amount: "0x3e8" }],
      unlockConditions: [
        { type: 0, address: edJson },
        { type: 1, returnAddress: nftJson, amount: "42600" },
        { type: 2, unixTime: 1700000000 },
        { type: 3, returnAddress: aliasJson, unixTime: 1800000000 },
      ],
      features: [
        { type: 0, address: edJson },
        { type: 2, data: "0x68656c6c6f" },
        { type: 3, tag: "0x74616731" },
      ],
    },
  },
  {
    name: "alias output with state metadata, features and immutable features",
    fields: [
      ["Output Type (4)", "04"],
      ["Amount (u64 1000000)", "40420f0000000000"],
      ["Native Tokens Count", "00"],
      ["Alias ID", ALIAS],
      ["State Index (u32 7)", "07000000"],
      ["State Metadata (u16)0x010203", "0300010203"],
      ["Foundry Counter (u32 1)", "01000000"],
      ["Unlock Conditions Count", "02"],
      ["  State Controller Address (4), Ed25519 address", `0400${ED}`],
      ["  Governor Address (5), NFT address", `0510${NFT}`],
      ["Features Count", "01"],
      ["  Metadata Feature (2), (u16)0xff", "020100ff"],
      ["Immutable Features Count", "01"],
      ["  Issuer Feature (1), Ed25519 address", `0100${ED}`],
    ],
    json: {
      type: 4,
      amount: "1000000",
      aliasId: `0x${ALIAS}`,
      stateIndex: 7,
      stateMetadata: "0x010203",
      foundryCounter: 1,
      unlockConditions: [
        { type: 4, address: edJson },
        { type: 5, address: nftJson },
      ],
      features: [{ type: 2, data: "0xff" }],
      immutableFeatures: [{ type: 1, address: edJson }],
    },
  },
  {
    name: "foundry output holding its own tokens",
    fields: [
      ["Output Type (5)", "05"],
      ["Amount (u64 1000000)", "40420f0000000000"],
      ["Native Tokens Count", "01"],
      ["  Token ID (this foundry's ID)", FOUNDRY_1],
      ["  Amount (u256 100)", u256("64")],
      ["Serial Number (u32 1)", "01000000"],
      ["Token Scheme Type (0, simple)", "00"],
      ["  Minted Tokens (u256 100)", u256("64")],
      ["  Melted Tokens (u256 0)", u256("")],
      ["  Maximum Supply (u256 1000)", u256("e803")],
      ["Unlock Conditions Count", "01"],
      ["  Immutable Alias Address (6), alias address", `0608${ALIAS}`],
      ["Features Count", "00"],
      ["Immutable Features Count", "01"],
      ["  Metadata Feature (2), (u16)0xabcd", "020200abcd"],
    ],
    json: {
      type: 5,
      amount: "1000000",
      nativeTokens: [{ id: `0x${FOUNDRY_1}`, amount: "0x64" }],
      serialNumber: 1,
      tokenScheme: { type: 0, mintedTokens: "0x64", meltedTokens: "0x0", maximumSupply: "0x3e8" },
      unlockConditions: [{ type: 6, address: aliasJson }],
      immutableFeatures: [{ type: 2, data: "0xabcd" }],
    },
  },
  {
    name: "NFT output with issuer and immutable metadata",
    fields: [
      ["Output Type (6)", "06"],
      ["Amount (u64 1000000)", "40420f0000000000"],
      ["Native Tokens Count", "00"],
      ["NFT ID", NFT],
      ["Unlock Conditions Count", "01"],
      ["  Address Unlock Condition (0), alias address", `0008${ALIAS}`],
      ["Features Count", "00"],
      ["Immutable Features Count", "02"],
      ["  Issuer Feature (1), Ed25519 address", `0100${ED}`],
      ["  Metadata Feature (2), (u16)0xdeadbeef", "020400deadbeef"],
    ],
    json: {
      type: 6,
      amount: "1000000",
      nftId: `0x${NFT}`,
      unlockConditions: [{ type: 0, address: aliasJson }],
      immutableFeatures: [
        { type: 1, address: edJson },
        { type: 2, data: "0xdeadbeef" },
      ],
    },
  },
  {
    name: "treasury output",
    fields: [
      ["Output Type (2)", "02"],
      ["Amount (u64 2779530283277761)", "c15d2dd3f7df0900"],
    ],
    json: { type: 2, amount: "2779530283277761" },
  },
];

const DEV = {
  tokenSupply: 2779530283277761n,
  rentStructure: { vByteCost: 100, vByteFactorData: 1, vByteFactorKey: 10 },
};

describe("TIP-18 outputs written from the field tables", () => {
  for (const v of VECTORS) {
    it(v.name, () => {
      const hex = `0x${v.fields.map(([, h]) => h.replace(/\s/g, "")).join("")}`;
      const bytes = fromHex(hex, "vector");
      const output = decodeOutput(bytes);
      assert.deepEqual(outputToJson(output), v.json);
      assert.equal(toHex(encodeOutput(output)), hex);
      assert.deepEqual(outputFromJson(v.json, "output"), output);
      validateOutput(output, DEV, "output");
    });
  }

  it("the foundry's own ID is the token ID it holds", () => {
    const f = decodeOutput(fromHex(`0x${VECTORS[2]!.fields.map(([, h]) => h).join("")}`, "v")) as FoundryOutput;
    assert.equal(toHex(foundryId(f)), `0x${FOUNDRY_1}`);
    assert.equal(toHex(f.nativeTokens[0]!.id), `0x${FOUNDRY_1}`);
  });
});
