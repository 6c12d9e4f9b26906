import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { FastifyInstance } from "fastify";
import { commitmentId, V3_OUTPUT_TYPES } from "../../../src/api/routes/coreV3.js";
import { fromHex, toHex } from "../../../src/codec/hex.js";
import {
  GENESIS_TRANSACTION_COMMITMENT,
  merkleProofNodeFromJson,
  type OutputIdProof,
  transactionCommitment,
  verifyOutputIdProof,
} from "../../../src/codec/outputIdProof.js";
import { encodeOutput, outputFromJson } from "../../../src/codec/outputs/output.js";
import { merkleLeafHash, merkleRoot } from "../../../src/crypto/merkle.js";
import { devGenesisOutput, GENESIS_OUTPUT_ID } from "../../../src/node/devNetwork.js";
import { buildHistory, type History, TestLedger } from "../../helpers/ledgerFixture.js";
import { basic } from "../../helpers/txBuilder.js";

interface FullOutput {
  output: Record<string, unknown>;
  outputIdProof: {
    slot: number;
    outputIndex: number;
    transactionCommitment: string;
    outputCommitmentProof: unknown;
  };
  metadata: {
    outputId: string;
    blockId: string;
    included: { slot: number; transactionId: string; commitmentId?: string };
    spent?: { slot: number; transactionId: string; commitmentId?: string };
    latestCommitmentId: string;
  };
}

/** The output's bytes as our codec encodes it, after mapping the v3 type back and dropping mana. */
function stardustBytes(v3: Record<string, unknown>): Uint8Array {
  const { type, mana, ...rest } = v3;
  assert.equal(mana, "0");
  const stardustType = Object.entries(V3_OUTPUT_TYPES).find(([, v]) => v === type)?.[0];
  assert.ok(stardustType, `unknown v3 type ${String(type)}`);
  return encodeOutput(outputFromJson({ type: Number(stardustType), ...rest }, "output"));
}

function proofOf(json: FullOutput["outputIdProof"]): OutputIdProof {
  return {
    slot: json.slot,
    outputIndex: json.outputIndex,
    transactionCommitment: fromHex(json.transactionCommitment, "transactionCommitment", 32),
    outputCommitmentProof: merkleProofNodeFromJson(json.outputCommitmentProof, "outputCommitmentProof"),
  };
}

describe("GET /api/core/v3/outputs/:outputId/full", () => {
  let ledger: TestLedger;
  let app: FastifyInstance;
  let h: History;
  const full = async (id: Uint8Array | string): Promise<FullOutput> => {
    const r = await app.inject({
      method: "GET",
      url: `/api/core/v3/outputs/${typeof id === "string" ? id : toHex(id)}/full`,
    });
    assert.equal(r.statusCode, 200, r.body);
    return r.json();
  };

  before(async () => {
    ledger = await TestLedger.open("core-v3");
    ({ app } = await ledger.serve());
    h = await buildHistory(ledger);
  });
  after(async () => {
    await ledger.close();
  });

  it("proves every output of a transaction: the proof rebuilds the Merkle root over its outputs", async () => {
    const tx = h.split.tx;
    const root = merkleRoot(tx.essence.outputs.map(encodeOutput));
    for (let i = 0; i < tx.essence.outputs.length; i++) {
      const id = h.split.outputs[i]!.outputId;
      const r = await full(id);
      const bytes = stardustBytes(r.output);
      assert.equal(toHex(bytes), toHex(encodeOutput(tx.essence.outputs[i]!)), `output ${i} round-trips`);
      const proof = proofOf(r.outputIdProof);
      assert.equal(proof.slot, h.msA.index);
      assert.equal(proof.outputIndex, i);
      assert.equal(toHex(proof.transactionCommitment), toHex(transactionCommitment(tx.essence)));
      const rebuilt = verifyOutputIdProof(proof, bytes, root);
      assert.ok(rebuilt, `output ${i}: the proof does not rebuild the root`);
      assert.equal(toHex(rebuilt), toHex(root));
      assert.equal(r.metadata.outputId, toHex(id));
      assert.equal(r.metadata.blockId, toHex(h.split.blockId));
      assert.deepEqual(r.metadata.included, {
        slot: h.msA.index,
        transactionId: toHex(h.split.transactionId),
        commitmentId: commitmentId(h.msA.milestoneId, h.msA.index),
      });
    }
  });

  it("uses the v3 type codes and a mana string", async () => {
    const types = await Promise.all([0, 3, 4].map(async (i) => (await full(h.split.outputs[i]!.outputId)).output));
    assert.deepEqual(
      types.map((o) => o.type),
      [0, 1, 4],
    );
    assert.ok(types.every((o) => o.mana === "0" && typeof o.amount === "string"));
    const foundry = await full(h.transition.outputs[1]!.outputId);
    assert.equal(foundry.output.type, 3);
    assert.equal(Object.keys(foundry.output).slice(0, 3).join(), "type,amount,mana");
  });

  it("shows a spent output with the spending transaction and commitment", async () => {
    const r = await full(h.split.outputs[0]!.outputId);
    assert.deepEqual(r.metadata.spent, {
      slot: h.msB.index,
      transactionId: toHex(h.transition.transactionId),
      commitmentId: commitmentId(h.msB.milestoneId, h.msB.index),
    });
    const latest = ledger.node.tangle.latestMilestone;
    assert.equal(r.metadata.latestCommitmentId, commitmentId(latest.milestoneId, latest.index));
    assert.equal(r.metadata.latestCommitmentId.length, 2 + 72);
    const unspent = await full(h.split.outputs[1]!.outputId);
    assert.equal(unspent.metadata.spent, undefined);
  });

  it('gives the genesis output the genesis proof: H("genesis") and a single value hash', async () => {
    const r = await full(GENESIS_OUTPUT_ID);
    const bytes = stardustBytes(r.output);
    assert.equal(toHex(bytes), toHex(encodeOutput(devGenesisOutput())));
    assert.equal(r.outputIdProof.transactionCommitment, toHex(GENESIS_TRANSACTION_COMMITMENT));
    assert.deepEqual(r.outputIdProof.outputCommitmentProof, { type: 2, hash: toHex(merkleLeafHash(bytes)) });
    assert.equal(r.outputIdProof.slot, 0);
    assert.ok(verifyOutputIdProof(proofOf(r.outputIdProof), bytes));
    assert.deepEqual(r.metadata.included, {
      slot: 0,
      transactionId: toHex(new Uint8Array(32)),
      commitmentId: toHex(new Uint8Array(36)),
    });
    assert.equal(r.metadata.blockId, toHex(new Uint8Array(32)));
    assert.equal(r.metadata.spent?.transactionId, toHex(h.split.transactionId));
  });

  it("answers 400 for an ID that is not 34 bytes of 0x-hex and 404 for an unknown output", async () => {
    const id = toHex(h.split.outputs[1]!.outputId);
    for (const bad of [id.slice(0, -2), `${id}00`, id.slice(2), `${id.slice(0, -2)}zz`]) {
      const r = await app.inject({ method: "GET", url: `/api/core/v3/outputs/${bad}/full` });
      assert.equal(r.statusCode, 400, bad);
      assert.equal(r.json().error.message, "invalid data provided");
    }
    const r = await app.inject({ method: "GET", url: `/api/core/v3/outputs/0x${"11".repeat(34)}/full` });
    assert.equal(r.statusCode, 404);
    assert.deepEqual(
      { code: r.json().error.code, message: r.json().error.message },
      { code: 404, message: "could not find data" },
    );
  });

  // answers are kept while the latest milestone stays (api/milestoneAnswers.ts): last, as it spends an output
  it("answers the same text again until a milestone moves the ledger, then shows the spending", async () => {
    const remainder = h.split.outputs[5]!;
    const url = (id: string) => `/api/core/v3/outputs/${id}/full`;
    const id = toHex(remainder.outputId);
    const first = await app.inject({ method: "GET", url: url(id) });
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(first.json().metadata.spent, undefined);
    for (const spelling of [id, `0x${id.slice(2).toUpperCase()}`]) {
      const again = await app.inject({ method: "GET", url: url(spelling) });
      assert.equal(again.body, first.body, spelling);
      assert.equal(again.headers["content-type"], first.headers["content-type"]);
    }
    const spend = await ledger.send([remainder], [basic(h.dev.address, { amount: remainder.output.amount })], [h.dev]);
    const ms = await ledger.milestone();
    await ledger.assertIncluded(spend);
    const after = (await full(id)) as FullOutput;
    assert.deepEqual(after.metadata.spent, {
      slot: ms.index,
      transactionId: toHex(spend.transactionId),
      commitmentId: commitmentId(ms.milestoneId, ms.index),
    });
    assert.equal(after.metadata.latestCommitmentId, commitmentId(ms.milestoneId, ms.index));
    // an ID read before the milestone and not since gets the new ledger too
    const other = await full(h.split.outputs[1]!.outputId);
    assert.equal(other.metadata.latestCommitmentId, commitmentId(ms.milestoneId, ms.index));
  });
});
