import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { FastifyInstance } from "fastify";
import { issueApiToken } from "../../src/api/auth.js";
import { buildServer } from "../../src/api/server.js";
import { DEV_KEY, DEV_TOKEN_SUPPLY } from "../../src/node/devNetwork.js";
import type { LedgerNode } from "../../src/node/node.js";
import { closeMinerPool, powScore } from "../../src/pow/index.js";
import { type ClientError, type CoreClient, iota, plain, iotaUtil as util } from "../helpers/iota.js";
import { openTempNode, type TempNode } from "../helpers/node.js";

/**
 * The HTTP server on a real port, driven by an unmodified Stardust client:
 * `@iota/iota.js@2.0.0-rc.4`'s `SingleNodeClient`. The client builds and signs its own
 * transaction with the well-known dev key; the node fills parents and does the PoW.
 */

const GENESIS_OUTPUT = `0x${"00".repeat(34)}`;
const MIN_POW = 100;

describe("the API driven by @iota/iota.js's SingleNodeClient", () => {
  let t: TempNode;
  let node: LedgerNode;
  let app: FastifyInstance;
  let endpoint: string;
  let client: CoreClient;

  const expectClientError = async (p: Promise<unknown>, status: number) => {
    await assert.rejects(p, (e: ClientError) => {
      assert.equal(e.httpStatus, status, e.message);
      assert.equal(Number(e.code), status);
      return true;
    });
  };

  before(async () => {
    t = await openTempNode("client", { minPowScore: MIN_POW, powWorkers: 1 });
    node = t.node;
    app = buildServer(node, "silent");
    const address = await app.listen({ host: "127.0.0.1", port: 0 });
    endpoint = address;
    client = new iota.SingleNodeClient(endpoint);
  });
  after(async () => {
    await app.close();
    await t.close();
    await closeMinerPool();
  });

  it("health(), info(), routes() and tips()", async () => {
    assert.equal(await client.health(), false, "no milestone yet");
    await node.coordinator.issueMilestone();
    assert.equal(await client.health(), true);

    const info = await client.info();
    assert.equal(info.name, "ledger-node");
    assert.equal(info.status.isHealthy, true);
    assert.equal(info.status.latestMilestone.index, 1);
    assert.equal(info.status.confirmedMilestone.index, 1);
    assert.deepEqual(info.supportedProtocolVersions, [2]);
    assert.equal(info.protocol.networkName, "dev");
    assert.equal(info.protocol.bech32Hrp, "tst");
    assert.equal(info.protocol.minPowScore, MIN_POW);
    assert.equal(info.protocol.tokenSupply, DEV_TOKEN_SUPPLY.toString());
    assert.deepEqual(info.protocol.rentStructure, { vByteCost: 100, vByteFactorData: 1, vByteFactorKey: 10 });
    assert.ok(info.features.includes("pow"));

    assert.ok((await client.routes()).routes.includes("core/v2"));
    const { tips } = await client.tips();
    assert.ok(tips.length >= 1);
  });

  it("blockSubmit() of tagged data without parents or nonce: the node fills both", async () => {
    const tag = util.Converter.bytesToHex(new TextEncoder().encode("ledger-node"), true);
    const data = util.Converter.bytesToHex(new TextEncoder().encode("hello"), true);
    const blockId = await client.blockSubmit({ payload: { type: 5, tag, data } });
    assert.match(blockId, /^0x[0-9a-f]{64}$/);

    const block = await client.block(blockId);
    assert.equal(iota.TransactionHelper.calculateBlockId(block), blockId, "iota.js computes the same block ID");
    assert.deepEqual(block.payload, { type: 5, tag, data });
    assert.ok(block.parents.length >= 1);
    assert.notEqual(block.nonce, "0");
    const raw = await client.blockRaw(blockId);
    assert.ok(powScore(raw) >= MIN_POW);
    assert.deepEqual(plain(iota.deserializeBlock(new util.ReadStream(raw))), block);

    const before = await client.blockMetadata(blockId);
    assert.equal(before.isSolid, true);
    assert.equal(before.referencedByMilestoneIndex, undefined);
    assert.equal(before.shouldPromote, false);
    const ms = await node.coordinator.issueMilestone();
    const meta = await client.blockMetadata(blockId);
    assert.equal(meta.referencedByMilestoneIndex, ms.index);
    assert.equal(meta.ledgerInclusionState, "noTransaction");
  });

  it("blockSubmitRaw() of bytes serialized by iota.js", async () => {
    const w = new util.WriteStream();
    iota.serializeBlock(w, {
      protocolVersion: 2,
      parents: (await client.tips()).tips,
      payload: { type: 5, tag: "0x7261", data: "0x" },
      nonce: "0",
    });
    const blockId = await client.blockSubmitRaw(w.finalBytes());
    assert.equal((await client.block(blockId)).payload.tag, "0x7261");
  });

  it("output() of the genesis output, milestone() and milestoneUtxoChanges()", async () => {
    const genesis = await client.output(GENESIS_OUTPUT);
    assert.equal(genesis.output.type, 3);
    assert.equal(genesis.output.amount, DEV_TOKEN_SUPPLY.toString());
    assert.equal(genesis.output.unlockConditions[0].address.pubKeyHash, DEV_KEY.pubKeyHash);
    assert.equal(genesis.metadata.isSpent, false);
    assert.equal(genesis.metadata.outputIndex, 0);
    const raw = await client.outputRaw(GENESIS_OUTPUT);
    assert.deepEqual(plain(iota.deserializeOutput(new util.ReadStream(raw))), genesis.output);

    const ms = await client.milestoneByIndex(1);
    assert.equal(ms.type, 7);
    assert.equal(ms.index, 1);
    const info = await client.info();
    const latest = await client.milestoneById(info.status.latestMilestone.milestoneId);
    assert.equal(latest.index, info.status.latestMilestone.index);
    const rawMs = await client.milestoneByIndexRaw(latest.index);
    assert.deepEqual(plain(iota.deserializeMilestonePayload(new util.ReadStream(rawMs))), latest);
    const changes = await client.milestoneUtxoChangesByIndex(1);
    assert.deepEqual(changes, { index: 1, createdOutputs: [], consumedOutputs: [] });
    assert.deepEqual(await client.milestoneUtxoChangesById(info.status.latestMilestone.milestoneId), {
      index: latest.index,
      createdOutputs: [],
      consumedOutputs: [],
    });
  });

  it("a value transaction from the dev key, built and signed by iota.js, is confirmed", async () => {
    const keyPair = new iota.Ed25519Seed(util.Converter.hexToBytes(DEV_KEY.seed.slice(2))).keyPair();
    const devAddress = util.Converter.bytesToHex(new iota.Ed25519Address(keyPair.publicKey).toAddress(), true);
    assert.equal(devAddress, DEV_KEY.pubKeyHash, "iota.js derives the same address from the dev key");
    const recipient = `0x${"42".repeat(32)}`;
    const genesis = await client.output(GENESIS_OUTPUT);

    const sent = await iota.sendAdvanced(
      client,
      [
        {
          input: { type: 0, transactionId: `0x${"00".repeat(32)}`, transactionOutputIndex: 0 },
          addressKeyPair: keyPair,
          consumingOutput: genesis.output,
        },
      ],
      [
        { address: recipient, addressType: 0, amount: "1000000" },
        { address: devAddress, addressType: 0, amount: (DEV_TOKEN_SUPPLY - 1_000_000n).toString() },
      ],
      { tag: "ledger-node", data: "first payment" },
    );
    const txId = iota.TransactionHelper.transactionIdFromTransactionPayload(sent.block.payload);
    const ms = await node.coordinator.issueMilestone();

    const meta = await client.blockMetadata(sent.blockId);
    assert.equal(meta.referencedByMilestoneIndex, ms.index);
    assert.equal(meta.ledgerInclusionState, "included");

    const spent = await client.outputMetadata(GENESIS_OUTPUT);
    assert.equal(spent.isSpent, true);
    assert.equal(spent.transactionIdSpent, txId);
    assert.equal(spent.milestoneIndexSpent, ms.index);

    const paidId = iota.TransactionHelper.outputIdFromTransactionData(txId, 0);
    const paid = await client.output(paidId);
    assert.equal(paid.output.amount, "1000000");
    assert.equal(paid.output.unlockConditions[0].address.pubKeyHash, recipient);
    assert.equal(paid.metadata.blockId, sent.blockId);
    assert.equal(paid.metadata.milestoneIndexBooked, ms.index);
    assert.equal(paid.metadata.isSpent, false);

    const included = await client.transactionIncludedBlock(txId);
    assert.equal(iota.TransactionHelper.calculateBlockId(included), sent.blockId);
    const changes = await client.milestoneUtxoChangesByIndex(ms.index);
    assert.deepEqual(changes.consumedOutputs, [GENESIS_OUTPUT]);
    assert.deepEqual(changes.createdOutputs, [paidId, iota.TransactionHelper.outputIdFromTransactionData(txId, 1)]);
  });

  it("surfaces errors as ClientError with the HTTP status and code", async () => {
    await expectClientError(client.block(`0x${"ab".repeat(32)}`), 404);
    await expectClientError(client.blockMetadata("0x1234"), 400);
    await expectClientError(client.output(`0x${"ab".repeat(34)}`), 404);
    await expectClientError(client.milestoneByIndex(999), 404);
    await expectClientError(client.peers(), 403);
    // with a token the peers route passes access control (this node has no peers)
    const token = await issueApiToken(node.jwtSecret, "1h");
    const authorized = new iota.SingleNodeClient(endpoint, { headers: { Authorization: `Bearer ${token}` } });
    assert.deepEqual(await authorized.peers(), []);
  });
});
