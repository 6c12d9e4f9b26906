import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { describe, it } from "node:test";
import { blockToJson } from "../../../src/codec/block.js";
import { CodecErrorCode, isCodecError } from "../../../src/codec/errors.js";
import { toHex } from "../../../src/codec/hex.js";
import {
  aliasIdFromOutputId,
  computeBlockId,
  computeFoundryId,
  computeMilestoneId,
  computeTransactionId,
  essenceSigningHash,
  formatOutputId,
  inputsCommitment,
  milestoneEssenceBytes,
  networkIdFromName,
  nftIdFromOutputId,
  outputIdFromParts,
  outputIdOfInput,
  parseBlockId,
  parseOutputId,
  splitOutputId,
  utxoInputOfOutputId,
} from "../../../src/codec/ids.js";
import { encodeMilestone, milestoneToJson } from "../../../src/codec/milestone.js";
import { outputToJson } from "../../../src/codec/outputs/output.js";
import { transactionToJson } from "../../../src/codec/transaction.js";
import { transactionEssenceToJson } from "../../../src/codec/transactionEssence.js";
import type { MilestonePayload } from "../../../src/codec/types.js";
import { blake2b256 } from "../../../src/crypto/blake2b.js";
import { Rng } from "../../helpers/random.js";
import { randomBlock, randomMilestone, randomTransaction } from "../../helpers/randomBlocks.js";
import { randomOutput } from "../../helpers/randomOutputs.js";

// @iota/iota.js ships no typings reachable under NodeNext resolution; the helpers used are typed here.
interface IotaHelpers {
  TransactionHelper: {
    calculateBlockId(block: unknown): string;
    transactionIdFromTransactionPayload(tx: unknown): string;
    getTransactionEssenceHash(essence: unknown): Uint8Array;
    outputIdFromTransactionData(transactionId: string, index: number): string;
    inputFromOutputId(outputId: string): { transactionId: string; transactionOutputIndex: number };
    resolveIdFromOutputId(outputId: string): string;
    constructTokenId(aliasId: string, serialNumber: number, tokenSchemeType: number): string;
    getInputsCommitment(outputs: unknown[]): string;
    networkIdFromNetworkName(name: string): string;
  };
  milestoneIdFromMilestonePayload(payload: unknown): string;
}
const iota = createRequire(import.meta.url)("@iota/iota.js") as IotaHelpers;
const H = iota.TransactionHelper;
const wire = (x: unknown): unknown => JSON.parse(JSON.stringify(x));

describe("identifiers", () => {
  it("network IDs match the TIP-20 table and iota.js", () => {
    const table: [string, bigint][] = [
      ["iota-mainnet", 9374574019616453254n],
      ["shimmer", 14364762045254553490n],
      ["testnet-1", 1856588631910923207n],
      ["example-mynetwork", 1967754805504104511n],
    ];
    for (const [name, id] of table) assert.equal(networkIdFromName(name), id);
    assert.equal(networkIdFromName("dev").toString(), H.networkIdFromNetworkName("dev"));
  });

  it("block, transaction, essence and milestone IDs equal iota.js's", () => {
    for (let i = 0; i < 20; i++) {
      const block = randomBlock(new Rng(100 + i), undefined, { iotaCompatible: true });
      assert.equal(toHex(computeBlockId(block)), H.calculateBlockId(wire(blockToJson(block))));
      const tx = randomTransaction(new Rng(200 + i), 8000, { iotaCompatible: true });
      assert.equal(toHex(computeTransactionId(tx)), H.transactionIdFromTransactionPayload(wire(transactionToJson(tx))));
      assert.deepEqual(
        essenceSigningHash(tx.essence),
        H.getTransactionEssenceHash(wire(transactionEssenceToJson(tx.essence))),
      );
      const ms = randomMilestone(new Rng(300 + i), 8000, { iotaCompatible: true });
      assert.equal(toHex(computeMilestoneId(ms)), iota.milestoneIdFromMilestonePayload(wire(milestoneToJson(ms))));
    }
  });

  it("the milestone essence is the payload without its type and signatures (TIP-29)", () => {
    const ms: MilestonePayload = randomMilestone(new Rng(5));
    const payload = encodeMilestone(ms);
    const essence = milestoneEssenceBytes(ms);
    assert.deepEqual(essence, payload.subarray(4, 4 + essence.length));
    assert.equal(payload.length - 4 - essence.length, 1 + 97 * ms.signatures.length);
    assert.deepEqual(computeMilestoneId(ms), blake2b256(essence));
    // signatures do not change the ID
    const unsigned: MilestonePayload = { ...ms, signatures: [] };
    assert.deepEqual(computeMilestoneId(unsigned), computeMilestoneId(ms));
  });

  it("output IDs: transaction ID ‖ u16 LE index, parsed and formatted", () => {
    const txId = new Uint8Array(32).map((_, i) => i);
    const id = outputIdFromParts(txId, 0x0102);
    assert.equal(id.length, 34);
    assert.equal(toHex(id.subarray(32)), "0x0201");
    assert.equal(toHex(id), H.outputIdFromTransactionData(toHex(txId), 0x0102));
    assert.equal(formatOutputId(txId, 0x0102), toHex(id));
    assert.deepEqual(splitOutputId(id), { transactionId: txId, outputIndex: 0x0102 });
    const input = utxoInputOfOutputId(id);
    assert.deepEqual(input, { type: 0, transactionId: txId, transactionOutputIndex: 0x0102 });
    assert.deepEqual(outputIdOfInput(input), id);
    assert.deepEqual(H.inputFromOutputId(toHex(id)).transactionOutputIndex, 0x0102);
    assert.deepEqual(parseOutputId(toHex(id)), id);
    assert.throws(
      () => parseOutputId(toHex(txId), "q.outputId"),
      (e: unknown) => {
        return isCodecError(e) && e.code === CodecErrorCode.InvalidHex && e.data.field === "q.outputId";
      },
    );
    assert.throws(
      () => outputIdFromParts(txId, 65536),
      (e) => isCodecError(e),
    );
    assert.deepEqual(parseBlockId(toHex(txId)), txId);
  });

  it("alias, NFT and foundry IDs equal iota.js's", () => {
    const rng = new Rng(77);
    for (let i = 0; i < 10; i++) {
      const id = outputIdFromParts(rng.bytes(32), rng.int(0, 127));
      assert.equal(toHex(aliasIdFromOutputId(id)), H.resolveIdFromOutputId(toHex(id)));
      assert.equal(toHex(nftIdFromOutputId(id)), H.resolveIdFromOutputId(toHex(id)));
      const aliasId = rng.bytes(32);
      const serial = rng.int(0, 0xffffffff);
      const foundry = computeFoundryId(aliasId, serial, 0);
      assert.equal(foundry.length, 38);
      assert.equal(foundry[0], 8);
      assert.equal(toHex(foundry), H.constructTokenId(toHex(aliasId), serial, 0));
    }
  });

  it("inputs commitment equals iota.js's", () => {
    const rng = new Rng(88);
    for (let i = 0; i < 10; i++) {
      const outputs = Array.from({ length: rng.int(1, 5) }, () => randomOutput(rng));
      assert.equal(
        toHex(inputsCommitment(outputs)),
        H.getInputsCommitment(wire(outputs.map(outputToJson)) as unknown[]),
      );
    }
  });
});
