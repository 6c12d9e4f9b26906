import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { describe, it } from "node:test";
import { blockFromJson, blockToJson, decodeBlock, encodeBlock } from "../../src/codec/block.js";
import { fromHex, toHex } from "../../src/codec/hex.js";
import { computeBlockId, computeTransactionId, essenceSigningHash, networkIdFromName } from "../../src/codec/ids.js";
import { validateUnlocksSyntax } from "../../src/codec/syntactic.js";
import { encodeTransaction } from "../../src/codec/transaction.js";
import { encodeTransactionEssence } from "../../src/codec/transactionEssence.js";
import type { Unlock } from "../../src/codec/types.js";
import { blake2b256 } from "../../src/crypto/blake2b.js";

/**
 * TIP-20 vectors. The TIP's only concrete values are the network IDs of its "Network ID" table
 * and the unlock example; for a whole transaction, the transaction block of TIP-25's
 * `get-block-by-id-transaction-response-example` is used, its bytes and IDs checked against
 * @iota/iota.js (TIP-25 gives JSON only) and frozen here.
 */

const TIP25_TRANSACTION_BLOCK = {
  protocolVersion: 2,
  parents: [
    "0x6c5bc96948813faaf6d5a5f0c6bc453bf2e5343664884aea2873041bdc47c4ca",
    "0x97e2c4fce0f6e1023c19ed634e37a44744e21a743a79e8f1fc16d31dc8f47481",
    "0xc107c5f3d6189954c9b1b8e2fa556db4bcf7ad2da717d328ecf6d9a841a5f37d",
    "0xea19397d2670f904c4d8c8616ef7a0724321512f1c09f8eb2aeb0cc4299e2441",
  ],
  payload: {
    type: 6,
    essence: {
      type: 1,
      networkId: "1337133713371337",
      inputsCommitment: "0x0e6c2998f5177834ecb3bae1596d5056af76e487386eecb19727465b4be86a79",
      inputs: [
        {
          type: 0,
          transactionId: "0x0c78e998f5177834ecb3bae1596d5056af76e487386eecb19727465b4be86a79",
          transactionOutputIndex: 0,
        },
        {
          type: 0,
          transactionId: "0x309b169bfa60c8cf80afd730741862d200405d5df7cabfe9b564361dce1f7036",
          transactionOutputIndex: 0,
        },
        {
          type: 0,
          transactionId: "0xc138ecdc882010245e9574fbc1f1f43cc7c182fa890e46e018365dd49de0f16e",
          transactionOutputIndex: 0,
        },
      ],
      outputs: [
        {
          type: 3,
          amount: "50000000",
          unlockConditions: [
            {
              type: 0,
              address: { type: 0, pubKeyHash: "0xd49931814e6bfbb8e221f1b2936e206e5a6b6abeb9c070f8603814c525c9abe3" },
            },
          ],
        },
      ],
      payload: null,
    },
    unlocks: [
      {
        type: 0,
        signature: {
          type: 0,
          publicKey: "0x40d0c00fd629a5f528e4bcab4333926a90d06613a3f36a325defcdaf4c9e4092",
          signature:
            "0xed4a63a3e1b22c85f9813b00a21c8576ed72c1f5bc939d01fcea7dcd678c2d0d8d80a2499965d8ce5574c9e92aa0d42b72b969bab3a2a35fe7dbc64659a0d703",
        },
      },
      { type: 1, reference: 0 },
      { type: 1, reference: 0 },
    ],
  },
  nonce: "1020884",
};

const TIP25_TRANSACTION_BLOCK_HEX =
  "0x0204" +
  "6c5bc96948813faaf6d5a5f0c6bc453bf2e5343664884aea2873041bdc47c4ca" +
  "97e2c4fce0f6e1023c19ed634e37a44744e21a743a79e8f1fc16d31dc8f47481" +
  "c107c5f3d6189954c9b1b8e2fa556db4bcf7ad2da717d328ecf6d9a841a5f37d" +
  "ea19397d2670f904c4d8c8616ef7a0724321512f1c09f8eb2aeb0cc4299e2441" +
  "36010000" + // payload length 310
  "06000000" + // transaction payload
  "01" + // regular essence
  "c9b000b41dc00400" + // network ID 1337133713371337
  "0300" + // 3 inputs
  "000c78e998f5177834ecb3bae1596d5056af76e487386eecb19727465b4be86a790000" +
  "00309b169bfa60c8cf80afd730741862d200405d5df7cabfe9b564361dce1f70360000" +
  "00c138ecdc882010245e9574fbc1f1f43cc7c182fa890e46e018365dd49de0f16e0000" +
  "0e6c2998f5177834ecb3bae1596d5056af76e487386eecb19727465b4be86a79" + // inputs commitment
  "0100" + // 1 output
  "0380f0fa0200000000" + // basic output, amount 50000000
  "00" + // no native tokens
  "010000d49931814e6bfbb8e221f1b2936e206e5a6b6abeb9c070f8603814c525c9abe3" + // address unlock condition
  "00" + // no features
  "00000000" + // no essence payload
  "0300" + // 3 unlocks
  "0000" +
  "40d0c00fd629a5f528e4bcab4333926a90d06613a3f36a325defcdaf4c9e4092" +
  "ed4a63a3e1b22c85f9813b00a21c8576ed72c1f5bc939d01fcea7dcd678c2d0d8d80a2499965d8ce5574c9e92aa0d42b72b969bab3a2a35fe7dbc64659a0d703" +
  "010000" +
  "010000" +
  "d4930f0000000000"; // nonce 1020884
const TIP25_TRANSACTION_BLOCK_ID = "0x22d5ff747bef12a7bda62089ea18b44be1290b54e665c18c7f7e0188e89f13ff";
const TIP25_TRANSACTION_ID = "0x582b0ddc86d42f78236137b97e7a3d97ac4f8b774545117ad943324bc1f87527";

interface IotaOracle {
  serializeBlock(w: unknown, block: unknown): void;
  deserializeBlock(r: unknown): unknown;
  TransactionHelper: {
    calculateBlockId(block: unknown): string;
    transactionIdFromTransactionPayload(tx: unknown): string;
    getTransactionEssenceHash(essence: unknown): Uint8Array;
  };
}
const require = createRequire(import.meta.url);
const iota = require("@iota/iota.js") as IotaOracle;
const util = require("@iota/util.js") as {
  WriteStream: new () => { finalBytes(): Uint8Array };
  ReadStream: new (b: Uint8Array) => unknown;
};
const wire = (x: unknown): unknown => JSON.parse(JSON.stringify(x));

describe("TIP-20 network IDs", () => {
  it("equal the first 8 bytes of BLAKE2b-256(network name) as u64 LE, per the TIP's table", () => {
    assert.equal(networkIdFromName("iota-mainnet"), 9374574019616453254n);
    assert.equal(networkIdFromName("shimmer"), 14364762045254553490n);
    assert.equal(networkIdFromName("testnet-1"), 1856588631910923207n);
    assert.equal(networkIdFromName("example-mynetwork"), 1967754805504104511n);
  });
});

describe("TIP-20 unlock example", () => {
  it("signature A, signature B, reference to 0 is valid; a reference to the reference is not", () => {
    const sig = (b: number): Unlock => ({
      type: 0,
      signature: { type: 0, publicKey: new Uint8Array(32).fill(b), signature: new Uint8Array(64).fill(b) },
    });
    validateUnlocksSyntax([sig(1), sig(2), { type: 1, reference: 0 }], "unlocks");
    assert.throws(() =>
      validateUnlocksSyntax([sig(1), { type: 1, reference: 0 }, { type: 1, reference: 1 }], "unlocks"),
    );
  });
});

describe("TIP-25 transaction block (TIP-20 transaction payload)", () => {
  it("parses and encodes to the frozen bytes, which iota.js produces too", () => {
    const block = blockFromJson(TIP25_TRANSACTION_BLOCK);
    const bytes = encodeBlock(block);
    assert.equal(toHex(bytes), TIP25_TRANSACTION_BLOCK_HEX);
    const w = new util.WriteStream();
    iota.serializeBlock(w, TIP25_TRANSACTION_BLOCK);
    assert.equal(toHex(w.finalBytes()), TIP25_TRANSACTION_BLOCK_HEX);
  });

  it("decodes and re-encodes byte for byte; iota.js decodes it to our JSON", () => {
    const bytes = fromHex(TIP25_TRANSACTION_BLOCK_HEX, "block");
    const block = decodeBlock(bytes);
    assert.equal(toHex(encodeBlock(block)), TIP25_TRANSACTION_BLOCK_HEX);
    assert.deepEqual(wire(iota.deserializeBlock(new util.ReadStream(bytes))), wire(blockToJson(block)));
  });

  it("has the block ID, transaction ID and essence hash iota.js computes", () => {
    const block = decodeBlock(fromHex(TIP25_TRANSACTION_BLOCK_HEX, "block"));
    assert.equal(toHex(computeBlockId(block)), TIP25_TRANSACTION_BLOCK_ID);
    assert.equal(iota.TransactionHelper.calculateBlockId(TIP25_TRANSACTION_BLOCK), TIP25_TRANSACTION_BLOCK_ID);
    assert.equal(block.payload?.type, 6);
    if (block.payload?.type !== 6) return;
    const tx = block.payload;
    assert.equal(toHex(computeTransactionId(tx)), TIP25_TRANSACTION_ID);
    assert.equal(
      iota.TransactionHelper.transactionIdFromTransactionPayload(TIP25_TRANSACTION_BLOCK.payload),
      TIP25_TRANSACTION_ID,
    );
    // TIP-20: the ID hashes the whole payload (type and unlocks); signatures sign the essence hash
    assert.deepEqual(computeTransactionId(tx), blake2b256(encodeTransaction(tx)));
    assert.deepEqual(essenceSigningHash(tx.essence), blake2b256(encodeTransactionEssence(tx.essence)));
    const essenceJson = { ...TIP25_TRANSACTION_BLOCK.payload.essence, payload: undefined };
    assert.deepEqual(essenceSigningHash(tx.essence), iota.TransactionHelper.getTransactionEssenceHash(essenceJson));
  });
});
