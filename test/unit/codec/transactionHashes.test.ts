import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { encodeBlock } from "../../../src/codec/block.js";
import { toHex } from "../../../src/codec/hex.js";
import {
  computeTransactionId,
  essenceSigningHash,
  inputsCommitment,
  inputsCommitmentFromBytes,
} from "../../../src/codec/ids.js";
import { encodeOutput } from "../../../src/codec/outputs/output.js";
import type { TransactionPayload } from "../../../src/codec/types.js";
import { transactionHashesOf } from "../../../src/tangle/tangle.js";
import { Rng } from "../../helpers/random.js";
import { randomBlock } from "../../helpers/randomBlocks.js";
import { randomOutput } from "../../helpers/randomOutputs.js";

describe("hashes taken from serialized bytes", () => {
  it("give the same transaction ID and signing hash as re-encoding, for 500 random transaction blocks", () => {
    const rng = new Rng(4242);
    for (let i = 0; i < 500; i++) {
      const block = randomBlock(rng, "transaction");
      const tx = block.payload as TransactionPayload;
      const hashes = transactionHashesOf(block, encodeBlock(block))!;
      assert.equal(toHex(hashes.transactionId), toHex(computeTransactionId(tx)));
      assert.equal(toHex(hashes.signingHash), toHex(essenceSigningHash(tx.essence)));
    }
  });

  it("give no hashes for blocks without a transaction", () => {
    const rng = new Rng(7);
    assert.equal(transactionHashesOf(randomBlock(rng, "taggedData"), new Uint8Array(0)), undefined);
  });

  it("give the same inputs commitment from output bytes as from outputs", () => {
    const rng = new Rng(9);
    const outputs = Array.from({ length: 5 }, () => randomOutput(rng));
    assert.deepEqual(inputsCommitmentFromBytes(outputs.map(encodeOutput)), inputsCommitment(outputs));
  });
});
