import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { decodeBlock, encodeBlock } from "../../../src/codec/block.js";
import { fromHex, toHex } from "../../../src/codec/hex.js";
import { blockIdFromBytes, outputIdFromParts } from "../../../src/codec/ids.js";
import { decodeOutput } from "../../../src/codec/outputs/output.js";
import type { Block, TransactionPayload } from "../../../src/codec/types.js";
import { ed25519KeyPairFromSeed } from "../../../src/crypto/ed25519.js";
import { ConflictReason } from "../../../src/ledger/conflictReason.js";
import { DEV_KEY, DEV_TOKEN_SUPPLY, devGenesisOutput, GENESIS_OUTPUT_ID } from "../../../src/node/devNetwork.js";
import { LedgerNode } from "../../../src/node/node.js";
import { defaultNodeOptions } from "../../../src/node/options.js";
import {
  Bucket,
  decodeBlockMetadata,
  decodeMilestoneRecord,
  decodeOutputRecord,
  decodeSpentRecord,
  idKey,
  indexKey,
} from "../../../src/storage/index.js";
import { basic, buildTransaction, wallet } from "../../helpers/txBuilder.js";

const devWallet = () => {
  const keyPair = ed25519KeyPairFromSeed(fromHex(DEV_KEY.seed, "seed"));
  return { keyPair, address: { type: 0 as const, pubKeyHash: fromHex(DEV_KEY.pubKeyHash, "pkh") } };
};

async function unspentTotal(node: LedgerNode): Promise<bigint> {
  let total = 0n;
  for await (const key of node.store.scanKeys({ prefix: Uint8Array.of(Bucket.Unspent) })) {
    const rec = decodeOutputRecord((await node.store.get(idKey(Bucket.Output, key.subarray(1))))!);
    total += decodeOutput(rec.outputBytes).amount;
  }
  return total;
}

async function submit(
  node: LedgerNode,
  payload: TransactionPayload,
  parents = node.tangle.selectParents(),
): Promise<Uint8Array> {
  const block: Block = { protocolVersion: 2, parents, payload, nonce: 0n };
  const bytes = encodeBlock(block);
  const id = blockIdFromBytes(bytes);
  await node.tangle.storeBlock(id, decodeBlock(bytes), bytes, false);
  return id;
}

describe("milestone confirmation on a real database", () => {
  let dir: string;
  let node: LedgerNode;
  const options = () => ({ ...defaultNodeOptions, dataDir: dir, minPowScore: 0, logLevel: "silent" as const });

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "ledger-node-core-"));
    node = await LedgerNode.open(options());
  });
  after(async () => {
    await node.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("writes the dev genesis: the whole supply unspent for the dev key", async () => {
    assert.equal(node.createdGenesis, true);
    assert.equal(await unspentTotal(node), DEV_TOKEN_SUPPLY);
    const ms1 = await node.coordinator.issueMilestone();
    assert.equal(ms1.index, 1);
    assert.equal(node.tangle.latestMilestone.index, 1);
  });

  it("confirms a value transaction, marks a double spend in the same cone conflicting, keeps the supply", async () => {
    const dev = devWallet();
    const alice = wallet("alice");
    const genesis = {
      outputId: GENESIS_OUTPUT_ID,
      output: devGenesisOutput(),
      bookedMilestoneIndex: 0,
      bookedTimestamp: 0,
    };
    const pay = buildTransaction({
      inputs: [genesis],
      outputs: [
        basic(alice.address, { amount: 1_000_000n }),
        basic(dev.address, { amount: DEV_TOKEN_SUPPLY - 1_000_000n }),
      ],
      unlockers: [dev],
    });
    const double = buildTransaction({
      inputs: [genesis],
      outputs: [basic(alice.address, { amount: DEV_TOKEN_SUPPLY })],
      unlockers: [dev],
    });
    const payBlock = await submit(node, pay.tx);
    const doubleBlock = await submit(node, double.tx, [payBlock]);
    const ms2 = await node.coordinator.issueMilestone();
    assert.equal(ms2.index, 2);

    const meta = async (id: Uint8Array) =>
      decodeBlockMetadata((await node.store.get(idKey(Bucket.BlockMetadata, id)))!);
    const a = await meta(payBlock);
    const b = await meta(doubleBlock);
    assert.deepEqual([a.referencedByMilestoneIndex, a.inclusionState, a.conflictReason], [2, 1, 0]);
    assert.deepEqual(
      [b.referencedByMilestoneIndex, b.inclusionState, b.conflictReason],
      [2, 2, ConflictReason.InputUtxoAlreadySpentInThisMilestone],
    );
    assert.ok(a.whiteFlagIndex < b.whiteFlagIndex);

    const spent = decodeSpentRecord((await node.store.get(idKey(Bucket.Spent, GENESIS_OUTPUT_ID)))!);
    assert.deepEqual(spent.transactionId, pay.ctx.transactionId);
    assert.equal(spent.spentIndex, 2);
    assert.equal(await node.store.has(idKey(Bucket.Unspent, outputIdFromParts(pay.ctx.transactionId, 0))), true);
    assert.equal(await unspentTotal(node), DEV_TOKEN_SUPPLY);

    // a later double spend of the same output conflicts as "already spent"
    const again = await submit(node, double.tx);
    await node.coordinator.issueMilestone();
    const c = await meta(again);
    assert.deepEqual([c.inclusionState, c.conflictReason], [2, ConflictReason.InputUtxoAlreadySpent]);
  });

  it("resumes after a restart at the same ledger index and continues the milestone chain", async () => {
    const before = node.tangle.latestMilestone;
    await node.close();
    node = await LedgerNode.open(options());
    assert.equal(node.createdGenesis, false);
    assert.equal(node.tangle.latestMilestone.index, before.index);
    assert.equal(toHex(node.tangle.latestMilestone.milestoneId), toHex(before.milestoneId));
    const next = await node.coordinator.issueMilestone();
    assert.equal(next.index, before.index + 1);
    const rec = decodeMilestoneRecord((await node.store.get(indexKey(Bucket.MilestoneByIndex, next.index)))!);
    const block = decodeBlock((await node.store.get(idKey(Bucket.Block, rec.blockId)))!);
    assert.equal(block.payload?.type, 7);
    if (block.payload?.type === 7) {
      assert.equal(toHex(block.payload.previousMilestoneId), toHex(before.milestoneId));
      assert.ok(block.payload.timestamp > before.timestamp);
    }
    assert.equal(await unspentTotal(node), DEV_TOKEN_SUPPLY);
  });
});
