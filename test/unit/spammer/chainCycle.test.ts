import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ed25519AddressOf } from "../../../src/codec/address.js";
import { toHex } from "../../../src/codec/hex.js";
import { computeTransactionId, networkIdFromName, outputIdFromParts, outputIdOfInput } from "../../../src/codec/ids.js";
import { encodeOutput } from "../../../src/codec/outputs/output.js";
import { minStorageDeposit } from "../../../src/codec/storageDeposit.js";
import { type Output, OutputType, UnlockConditionType } from "../../../src/codec/types.js";
import { blake2b256 } from "../../../src/crypto/blake2b.js";
import { ed25519KeyPairFromSeed } from "../../../src/crypto/ed25519.js";
import { validateTransaction } from "../../../src/ledger/semantic/index.js";
import { devProtocolParameters } from "../../../src/node/devNetwork.js";
import { ChainCycle, CYCLE_STEPS } from "../../../src/spammer/chainCycle.js";
import { LANE_AMOUNT } from "../../../src/spammer/valueSpam.js";

/**
 * Value spam's chain cycle against the node's own semantic validation (src/ledger, the rules a
 * milestone applies): every step of two rounds is a valid transaction spending what the step
 * before created, and the base tokens end where they started.
 */

const params = devProtocolParameters(0);
const holder = (name: string) => {
  const keyPair = ed25519KeyPairFromSeed(blake2b256(new TextEncoder().encode(name)));
  return { keyPair, address: ed25519AddressOf(blake2b256(keyPair.publicKey)) };
};

describe("ChainCycle", () => {
  it("makes valid transactions for alias, foundry, native tokens and NFT, round after round", () => {
    const a = holder("cycle a");
    const b = holder("cycle b");
    const cycle = new ChainCycle(a, b, networkIdFromName(params.networkName), params.rentStructure, new Uint8Array(3));
    const funding: Output = {
      type: OutputType.Basic,
      amount: LANE_AMOUNT,
      nativeTokens: [],
      unlockConditions: [{ type: UnlockConditionType.Address, address: a.address }],
      features: [],
    };
    const fundingId = outputIdFromParts(blake2b256(new Uint8Array([1])), 0);
    const ledger = new Map<string, Output>([[toHex(fundingId), funding]]);
    cycle.reset({ outputId: fundingId, amount: funding.amount, outputBytes: encodeOutput(funding) });

    const steps: string[] = [];
    for (let n = 0; n < 2 * CYCLE_STEPS.length; n++) {
      const t = cycle.transfer();
      assert.ok(t, "a transfer");
      const inputs = t.transaction.essence.inputs.map((input) => {
        const outputId = outputIdOfInput(input);
        const output = ledger.get(toHex(outputId));
        assert.ok(output, `step ${t.step}: input ${toHex(outputId)} is held`);
        return { outputId, output, bookedMilestoneIndex: 1, bookedTimestamp: 1_700_000_000 };
      });
      const transactionId = computeTransactionId(t.transaction);
      const result = validateTransaction(t.transaction, {
        transactionId,
        inputs,
        milestoneIndex: 2,
        milestoneTimestamp: 1_700_000_010,
        protocolParameters: params,
      });
      assert.deepEqual(result, { ok: true }, `step ${t.step}: ${result.ok ? "" : result.details}`);
      for (const o of t.transaction.essence.outputs) {
        assert.ok(o.amount >= minStorageDeposit(o, params.rentStructure), `step ${t.step}: storage deposit (TIP-19)`);
      }
      for (const i of inputs) ledger.delete(toHex(i.outputId));
      for (const [i, o] of t.transaction.essence.outputs.entries()) {
        ledger.set(toHex(outputIdFromParts(transactionId, i)), o);
      }
      t.apply();
      steps.push(t.step);
    }
    assert.deepEqual(steps, [...CYCLE_STEPS, ...CYCLE_STEPS]);
    // after whole rounds only A's basic output is left, holding what it started with
    assert.equal(ledger.size, 1);
    const [left] = [...ledger.values()];
    assert.equal(left!.type, OutputType.Basic);
    assert.equal(left!.amount, funding.amount);
    assert.deepEqual(cycle.basicOutput?.amount, funding.amount);
  });
});
