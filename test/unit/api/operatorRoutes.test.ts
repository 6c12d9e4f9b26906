import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { FastifyInstance } from "fastify";
import { issueApiToken } from "../../../src/api/auth.js";
import { pruneTarget } from "../../../src/api/routes/control.js";
import { fromHex, toHex } from "../../../src/codec/hex.js";
import { merkleProofNodeFromJson, verifyOutputIdProof } from "../../../src/codec/outputIdProof.js";
import { encodeOutput, outputFromJson } from "../../../src/codec/outputs/output.js";
import { merkleRoot } from "../../../src/crypto/merkle.js";
import { DEV_TOKEN_SUPPLY } from "../../../src/node/devNetwork.js";
import { readSnapshotHeader } from "../../../src/snapshot/fileReader.js";
import { SnapshotType } from "../../../src/snapshot/format.js";
import { isTangleError, TangleErrorCode } from "../../../src/tangle/errors.js";
import type { MilestoneInfo } from "../../../src/tangle/tangle.js";
import { assertError } from "../../helpers/coreHarness.js";
import { GENESIS, type SentTransaction, TestLedger } from "../../helpers/ledgerFixture.js";
import { alice, basic, bob } from "../../helpers/txBuilder.js";
import { devWallet } from "../../helpers/wallet.js";

const CORE = "/api/core/v2";
const PRUNE = `${CORE}/control/database/prune`;

/**
 * The operator routes of the core API that have no place elsewhere: receipts and the treasury
 * (a network without migration, answered as Hornet answers it) and database pruning on request
 * through the background pruner.
 */
describe("receipts and treasury", () => {
  let ledger: TestLedger;
  let app: FastifyInstance;
  before(async () => {
    ledger = await TestLedger.open("treasury");
    await ledger.milestone();
    ({ app } = await ledger.serve());
  });
  after(async () => {
    await ledger.close();
  });

  it("lists no receipts, for any migratedAt index: 200 with an empty list", async () => {
    for (const url of [`${CORE}/receipts`, `${CORE}/receipts/0`, `${CORE}/receipts/1`, `${CORE}/receipts/4294967295`]) {
      const r = await app.inject(url);
      assert.equal(r.statusCode, 200, `${url}: ${r.body}`);
      assert.deepEqual(r.json(), { receipts: [] });
    }
    assertError(await app.inject(`${CORE}/receipts/4294967296`), 400, /^migratedAt: 4294967296 exceeds u32$/);
    assertError(
      await app.inject(`${CORE}/receipts/-1`),
      400,
      /^migratedAt: expected a milestone index of at most 10 digits, got "-1"$/,
    );
  });

  it("answers the empty treasury, the one the node's snapshots carry", async () => {
    const r = await app.inject(`${CORE}/treasury`);
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual(r.json(), { milestoneId: `0x${"00".repeat(32)}`, amount: "0" });
    const token = await issueApiToken(ledger.node.jwtSecret);
    const snap = await app.inject({
      method: "POST",
      url: `${CORE}/control/snapshot/create`,
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      payload: JSON.stringify({ index: 1 }),
    });
    assert.equal(snap.statusCode, 200, snap.body);
    const header = await readSnapshotHeader(snap.json().filePath);
    assert.equal(header.type, SnapshotType.Full);
    if (header.type !== SnapshotType.Full) return;
    assert.equal(toHex(header.treasuryOutputMilestoneId), r.json().milestoneId);
    assert.equal(header.treasuryOutputAmount.toString(), r.json().amount);
  });
});

describe("POST /api/core/v2/control/database/prune", () => {
  let ledger: TestLedger;
  let app: FastifyInstance;
  let token: string;
  let paid: SentTransaction;
  let spend: SentTransaction;
  let ms1: MilestoneInfo;

  const prune = (body: unknown, auth = true) =>
    app.inject({
      method: "POST",
      url: PRUNE,
      headers: { "content-type": "application/json", ...(auth ? { authorization: `Bearer ${token}` } : {}) },
      payload: typeof body === "string" ? body : JSON.stringify(body),
    });
  const ledgerIndex = () => ledger.node.tangle.latestMilestone.index;

  before(async () => {
    ledger = await TestLedger.open("prune");
    const dev = devWallet();
    // milestone 1 creates an output that stays unspent (alice's) and one spent at milestone 2 (bob's)
    paid = await ledger.send(
      [GENESIS],
      [
        basic(alice.address, { amount: 1_000_000n }),
        basic(bob.address, { amount: 2_000_000n }),
        basic(dev.address, { amount: DEV_TOKEN_SUPPLY - 3_000_000n }),
      ],
      [dev],
    );
    ms1 = await ledger.milestone();
    await ledger.assertIncluded(paid);
    const bobs = { ...paid.outputs[1]!, bookedMilestoneIndex: ms1.index, bookedTimestamp: ms1.timestamp };
    spend = await ledger.send([bobs], [basic(dev.address, { amount: 2_000_000n })], [bob]);
    await ledger.milestone();
    await ledger.assertIncluded(spend);
    while (ledgerIndex() < 30) await ledger.milestone();
    ({ app, token } = await ledger.serve());
  });
  after(async () => {
    await ledger.close();
  });

  it("is protected by default and refuses what would break the node, with the reason", async () => {
    assertError(await prune({ depth: 20 }, false), 403, /Bearer/);
    const L = ledgerIndex();
    const refusals: [unknown, RegExp][] = [
      [{}, /^give exactly one of index \(the new pruning index\) or depth \(milestones to keep\)$/],
      [{ index: 5, depth: 20 }, /^give exactly one of index/],
      [{ depth: 15 }, /^depth 15 keeps fewer than the 16 milestones below the ledger index the node needs/],
      [{ depth: L }, new RegExp(`^depth ${L} keeps the whole history: the ledger index is ${L}$`)],
      [{ index: L + 1 }, new RegExp(`^index ${L + 1} is above the ledger index ${L}$`)],
      [{ index: L - 15 }, new RegExp(`^index ${L - 15} keeps fewer than the 16 milestones .* at most ${L - 16}$`)],
      [{ index: 0 }, /^index: must be >= 1$/],
      [{ index: "5" }, /^index: expected an integer, got "5"$/],
      [{ depth: -1 }, /^depth: must be >= 0$/],
      [{ index: 5, targetDatabaseSize: "1GB" }, /^targetDatabaseSize: unknown field$/],
      ["[5]", /^body: expected an object, got an array$/],
      ["{", /JSON/],
    ];
    for (const [body, reason] of refusals) assertError(await prune(body), 400, reason);
    assert.equal(ledger.node.pruner.horizon, 0, "nothing was pruned");
  });

  it("prunes by depth: the blocks and spent outputs of pruned milestones go, unspent outputs keep their proofs", async () => {
    const L = ledgerIndex();
    const r = await prune({ depth: 20 });
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual(r.json(), { index: L - 20 });
    const info = (await app.inject(`${CORE}/info`)).json();
    assert.equal(info.status.pruningIndex, L - 20);
    // milestone 1's transaction block, milestone 1 and bob's spent output are gone
    assertError(await app.inject(`${CORE}/blocks/${toHex(paid.blockId)}`), 404);
    assertError(await app.inject(`${CORE}/blocks/${toHex(spend.blockId)}`), 404);
    assertError(await app.inject(`${CORE}/milestones/by-index/${ms1.index}`), 404);
    assertError(await app.inject(`${CORE}/milestones/by-index/${L - 21}`), 404);
    assert.equal((await app.inject(`${CORE}/milestones/by-index/${L - 20}`)).statusCode, 200);
    assertError(await app.inject(`${CORE}/outputs/${toHex(paid.outputs[1]!.outputId)}`), 404);
    // alice's output, created at milestone 1, still reads with the proof of its ID
    const full = await app.inject(`/api/core/v3/outputs/${toHex(paid.outputs[0]!.outputId)}/full`);
    assert.equal(full.statusCode, 200, full.body);
    const { output, outputIdProof, metadata } = full.json();
    assert.equal(outputIdProof.slot, ms1.index);
    assert.equal(metadata.included.slot, ms1.index);
    const { type: _, mana: __, ...rest } = output;
    const bytes = encodeOutput(outputFromJson({ type: 3, ...rest }, "output"));
    const root = merkleRoot(paid.tx.essence.outputs.map(encodeOutput));
    const proof = {
      slot: outputIdProof.slot,
      outputIndex: outputIdProof.outputIndex,
      transactionCommitment: fromHex(outputIdProof.transactionCommitment, "transactionCommitment", 32),
      outputCommitmentProof: merkleProofNodeFromJson(outputIdProof.outputCommitmentProof, "proof"),
    };
    assert.equal(toHex(verifyOutputIdProof(proof, bytes, root)!), toHex(root));
    // the node confirms on over the new solid entry points
    await ledger.milestone();
    assert.equal(ledgerIndex(), L + 1);
  });

  it("prunes by index to that pruning index; at or below it there is nothing to prune", async () => {
    const horizon = ledger.node.pruner.horizon;
    const r = await prune({ index: horizon + 2 });
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual(r.json(), { index: horizon + 2 });
    assertError(
      await prune({ index: horizon + 2 }),
      400,
      new RegExp(`^nothing to prune: milestones below ${horizon + 2} are pruned already \\(target ${horizon + 2}\\)$`),
    );
    assertError(await prune({ index: 1 }), 400, /^nothing to prune/);
  });

  it("answers 503 while a snapshot being written holds the data, and runs one requested pruning at a time", async () => {
    const horizon = ledger.node.pruner.horizon;
    const release = ledger.node.pruner.pin(horizon + 1);
    try {
      assertError(
        await prune({ index: horizon + 3 }),
        503,
        new RegExp(
          `^pruned below ${horizon + 1} only: a snapshot being written needs the milestones from ${horizon + 1} on`,
        ),
      );
    } finally {
      release();
    }
    const first = ledger.node.pruner.request(horizon + 2);
    await assert.rejects(ledger.node.pruner.request(horizon + 3), (e) => isTangleError(e, TangleErrorCode.PruningBusy));
    assert.equal(await first, horizon + 2);
    assert.equal(await ledger.node.pruner.request(horizon + 3), horizon + 3);
  });

  it("checks the request shape in one function", () => {
    const at = { ledgerIndex: 100, pruningIndex: 10, belowMaxDepth: 15 };
    assert.equal(pruneTarget({ depth: 16 }, at), 84);
    assert.equal(pruneTarget({ index: 84 }, at), 84);
    assert.equal(pruneTarget({ index: 11 }, at), 11);
    assert.throws(() => pruneTarget({ index: 85 }, at), /keeps fewer than the 16 milestones/);
    assert.throws(() => pruneTarget({ index: 10 }, at), /nothing to prune/);
    assert.throws(() => pruneTarget({ depth: 90 }, at), /nothing to prune/);
  });
});
