import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isCodecError } from "../../../src/codec/errors.js";
import { toHex } from "../../../src/codec/hex.js";
import {
  buildOutputIdProof,
  GENESIS_TRANSACTION_COMMITMENT,
  genesisOutputIdProof,
  merkleProofNodeFromJson,
  outputIdProofFromStored,
  outputIdProofJson,
  outputLeafHashes,
  storedOutputIdProofs,
  transactionCommitment,
  verifyOutputIdProof,
} from "../../../src/codec/outputIdProof.js";
import { encodeOutput } from "../../../src/codec/outputs/output.js";
import { encodeTransactionEssence } from "../../../src/codec/transactionEssence.js";
import type { BasicOutput, RegularTransactionEssence } from "../../../src/codec/types.js";
import { blake2b256, merkleRoot } from "../../../src/crypto/index.js";

const out = (amount: bigint): BasicOutput => ({
  type: 3,
  amount,
  nativeTokens: [],
  unlockConditions: [{ type: 0, address: { type: 0, pubKeyHash: new Uint8Array(32).fill(7) } }],
  features: [],
});

const essence = (outputs: BasicOutput[]): RegularTransactionEssence => ({
  type: 1,
  networkId: 123n,
  inputs: [{ type: 0, transactionId: new Uint8Array(32).fill(1), transactionOutputIndex: 3 }],
  inputsCommitment: new Uint8Array(32).fill(2),
  outputs,
  payload: { type: 5, tag: Uint8Array.of(1, 2), data: Uint8Array.of(3) },
});

describe("output ID proof (docs/decisions.md, The v3 output read)", () => {
  it("commits to the essence without its outputs", () => {
    const a = essence([out(1_000_000n)]);
    const b = essence([out(2_000_000n), out(3_000_000n)]);
    assert.deepEqual(transactionCommitment(a), transactionCommitment(b), "outputs are left out");
    // networkId ‖ inputs ‖ inputsCommitment ‖ payload = the essence bytes minus type and outputs
    const bytes = encodeTransactionEssence(a);
    const outputsLen = 2 + encodeOutput(a.outputs[0]!).length;
    const start = 1;
    const inputsEnd = 1 + 8 + 2 + 35 + 32;
    const expected = blake2b256(bytes.subarray(start, inputsEnd), bytes.subarray(inputsEnd + outputsLen));
    assert.equal(toHex(transactionCommitment(a)), toHex(expected));
    const c = { ...a, networkId: 124n };
    assert.notDeepEqual(transactionCommitment(c), transactionCommitment(a));
  });

  it("proves every output of transactions with 1..9 outputs against the Merkle root over their bytes", () => {
    for (let n = 1; n <= 9; n++) {
      const outputs = Array.from({ length: n }, (_, i) => out(1_000_000n + BigInt(i)));
      const bytes = outputs.map(encodeOutput);
      const root = merkleRoot(bytes);
      const leaves = outputLeafHashes(bytes);
      const stored = storedOutputIdProofs(transactionCommitment(essence(outputs)), leaves);
      assert.equal(stored.length, n);
      for (let i = 0; i < n; i++) {
        const proof = buildOutputIdProof(5, i, transactionCommitment(essence(outputs)), leaves);
        // the form kept in the output's record reads back as the same proof
        assert.deepEqual(outputIdProofFromStored(5, i, stored[i]!, bytes[i]!), proof);
        assert.throws(() => outputIdProofFromStored(5, i, stored[i]!.subarray(0, stored[i]!.length - 1), bytes[i]!), {
          name: "LedgerNodeError",
        });
        assert.deepEqual(verifyOutputIdProof(proof, bytes[i]!, root), root);
        // another output's bytes do not verify
        if (n > 1) assert.equal(verifyOutputIdProof(proof, bytes[(i + 1) % n]!, root), undefined);
        // JSON round trip of the proof tree
        const json = JSON.parse(outputIdProofJson(proof));
        assert.deepEqual(Object.keys(json), ["slot", "outputIndex", "transactionCommitment", "outputCommitmentProof"]);
        assert.equal(json.slot, 5);
        assert.equal(json.outputIndex, i);
        assert.equal(json.transactionCommitment, toHex(proof.transactionCommitment));
        assert.deepEqual(merkleProofNodeFromJson(json.outputCommitmentProof, "proof"), proof.outputCommitmentProof);
      }
    }
  });

  it("gives outputs without a creating transaction the genesis commitment and a single value hash", () => {
    const bytes = encodeOutput(out(5n));
    const proof = genesisOutputIdProof(0, 0, bytes);
    assert.deepEqual(proof.transactionCommitment, GENESIS_TRANSACTION_COMMITMENT);
    assert.equal(proof.outputCommitmentProof.type, 2);
    assert.ok(verifyOutputIdProof(proof, bytes));
    // an output record without a stored proof gets the same
    assert.deepEqual(outputIdProofFromStored(0, 0, new Uint8Array(0), bytes), proof);
  });

  it("rejects malformed proof JSON with a typed error", () => {
    assert.throws(
      () => merkleProofNodeFromJson({ type: 3, hash: "0x00" }, "p"),
      (e) => isCodecError(e),
    );
    assert.throws(
      () => merkleProofNodeFromJson({ type: 1, hash: "0x00" }, "p"),
      (e) => isCodecError(e),
    );
    assert.throws(() => merkleProofNodeFromJson({ type: 0, l: { type: 1, hash: `0x${"00".repeat(32)}` } }, "p"), {
      name: "LedgerNodeError",
    });
  });
});
