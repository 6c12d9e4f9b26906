import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { addressToBech32, ed25519AddressOf } from "../../../src/codec/address.js";
import { bytesEqual, fromHex, toHex } from "../../../src/codec/hex.js";
import { outputIdFromParts } from "../../../src/codec/ids.js";
import { encodeOutput } from "../../../src/codec/outputs/output.js";
import { blake2b256 } from "../../../src/crypto/blake2b.js";
import { ed25519KeyPairFromSeed } from "../../../src/crypto/ed25519.js";
import { networkConfigFromJson, networkConfigToJson } from "../../../src/network/index.js";
import { checkGenesis } from "../../../src/node/checkGenesis.js";
import { DEFAULT_DEV_MNEMONIC, deriveDevAccounts } from "../../../src/node/devAccounts.js";
import { DEV_KEY, devGenesisOutput, devNetworkConfig, GENESIS_OUTPUT_ID } from "../../../src/node/devNetwork.js";
import { NodeErrorCode } from "../../../src/node/errors.js";
import { networkFileFromJson } from "../../../src/node/networkFile.js";

const key = (i: number) => ed25519KeyPairFromSeed(blake2b256(Uint8Array.of(i)));
const address = (i: number, hrp = "myn") => addressToBech32(ed25519AddressOf(blake2b256(key(i).publicKey)), hrp);

// biome-ignore lint/suspicious/noExplicitAny: a network file is JSON, edited field by field
type Json = Record<string, any>;

const good: Json = {
  networkName: "my-net",
  bech32Hrp: "myn",
  tokenSupply: "1000000000",
  protocolVersion: 2,
  minPowScore: 0,
  belowMaxDepth: 15,
  rentStructure: { vByteCost: 100, vByteFactorData: 1, vByteFactorKey: 10 },
  milestoneIntervalMs: 1000,
  allocations: [
    { address: address(10), amount: "600000000" },
    { address: address(11), amount: "400000000" },
  ],
  coordinator: { publicKeys: [1, 2, 3].map((i) => toHex(key(i).publicKey)), threshold: 2 },
};

describe("network files", () => {
  it("make the network's description: genesis outputs 0..n-1 of the zero transaction", () => {
    const { config } = networkFileFromJson(good);
    assert.equal(config.coordinatorThreshold, 2);
    assert.equal(config.genesis.kind, "custom");
    assert.equal(config.genesis.outputs.length, 2);
    assert.equal(toHex(config.genesis.outputs[1]!.outputId), `0x${"00".repeat(32)}0100`);
    checkGenesis(config, "test");
  });

  it("are refused with the field named", () => {
    const edit = (f: (j: Json) => void): Json => {
      const j = structuredClone(good);
      f(j);
      return j;
    };
    const cases: [string, Json][] = [
      ["bech32Hrp", edit((j) => (j.bech32Hrp = "MYN!"))],
      ["allocations[0].address", edit((j) => (j.allocations[0].address = address(10, "tst")))],
      ["allocations[1].address", edit((j) => (j.allocations[1].address = "myn1qqqq"))],
      ["allocations[1].address", edit((j) => (j.allocations[1].address = j.allocations[0].address))],
      ["allocations", edit((j) => (j.tokenSupply = "1000000001"))],
      ["allocations[0].amount", edit((j) => (j.allocations[0].amount = "1"))],
      ["coordinator.publicKeys[2]", edit((j) => (j.coordinator.publicKeys[2] = j.coordinator.publicKeys[0]))],
      ["coordinator.threshold", edit((j) => (j.coordinator.threshold = 4))],
      ["protocolVersion", edit((j) => (j.protocolVersion = 3))],
      ["network.extra", edit((j) => (j.extra = 1))],
      ["tokenSupply", edit((j) => (j.tokenSupply = 5))],
      ["dev", edit((j) => (j.dev = "yes"))],
      ["devAccounts.count", edit((j) => (j.devAccounts = { count: 0, amount: "1000000" }))],
      [
        "devAccounts.mnemonic",
        edit((j) => (j.devAccounts = { count: 1, amount: "1000000", mnemonic: "not a mnemonic at all" })),
      ],
      // the allocations and the dev accounts together must make the supply
      ["allocations", edit((j) => (j.devAccounts = { count: 2, amount: "1000000" }))],
      ["devAccounts.amount", edit((j) => (j.devAccounts = { count: 1, amount: "1" }))],
    ];
    for (const [field, json] of cases) {
      assert.throws(
        () => networkFileFromJson(json, "f.json"),
        (e: Error & { code?: string }) =>
          e.code === NodeErrorCode.InvalidNetworkFile &&
          e.message.includes(`${field}:`) &&
          e.message.startsWith("f.json"),
        field,
      );
    }
  });

  it("fund dev accounts of a mnemonic after the allocations, and say when the network is for builders", () => {
    const json = structuredClone(good);
    json.allocations[0].amount = "598000000";
    json.devAccounts = { count: 2, amount: "1000000" };
    json.dev = true;
    const { config } = networkFileFromJson(json);
    assert.equal(config.dev, true);
    assert.deepEqual(config.devAccounts, { mnemonic: DEFAULT_DEV_MNEMONIC, count: 2, coinType: 4219 });
    // network.json keeps how they were derived
    assert.deepEqual(networkConfigFromJson(networkConfigToJson(config)).devAccounts, config.devAccounts);
    const accounts = deriveDevAccounts({ mnemonic: DEFAULT_DEV_MNEMONIC, count: 2, coinType: 4219 });
    assert.deepEqual(
      config.genesis.outputs.slice(2).map((g) => [toHex(g.outputId), g.output.amount]),
      [2, 3].map((i) => [toHex(outputIdFromParts(new Uint8Array(32), i)), 1_000_000n]),
    );
    config.genesis.outputs.slice(2).forEach((g, i) => {
      const owner = (g.output as { unlockConditions: { address: { pubKeyHash: Uint8Array } }[] }).unlockConditions[0]!;
      assert.ok(bytesEqual(owner.address.pubKeyHash, accounts[i]!.address.pubKeyHash));
    });
    checkGenesis(config, "test");
    assert.equal(networkFileFromJson(good).config.dev, undefined);
  });

  it("have the dev network as a preset with the same genesis ID and bytes", () => {
    const dev = devNetworkConfig(100, fromHex(DEV_KEY.publicKey, "key", 32), 1000);
    assert.equal(dev.genesis.outputs.length, 1);
    assert.ok(bytesEqual(dev.genesis.outputs[0]!.outputId, GENESIS_OUTPUT_ID));
    assert.deepEqual(encodeOutput(dev.genesis.outputs[0]!.output), encodeOutput(devGenesisOutput()));
    checkGenesis(dev, "dev");
    // a follower's file that claims the dev genesis but differs is refused
    const other = networkFileFromJson(good).config;
    assert.throws(
      () => checkGenesis({ ...other, genesis: { ...other.genesis, kind: "dev" } }, "x"),
      /not the dev genesis/,
    );
  });
});
