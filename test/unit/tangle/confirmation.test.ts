import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { decodeBlock } from "../../../src/codec/block.js";
import { toHex } from "../../../src/codec/hex.js";
import {
  AddressType,
  InputType,
  MilestoneOptionType,
  type MilestonePayload,
  OutputType,
  PayloadType,
} from "../../../src/codec/types.js";
import { merkleRoot } from "../../../src/crypto/merkle.js";
import { ConflictReason } from "../../../src/ledger/conflictReason.js";
import { DEV_TOKEN_SUPPLY, GENESIS_OUTPUT_ID } from "../../../src/node/devNetwork.js";
import { semanticValidator } from "../../../src/node/node.js";
import {
  Bucket,
  decodeBlockMetadata,
  decodeLedgerDiff,
  decodeMilestoneRecord,
  decodeOutputRecord,
  idKey,
  indexKey,
} from "../../../src/storage/index.js";
import { confirmMilestoneBlock } from "../../../src/tangle/confirmMilestone.js";
import { TangleErrorCode } from "../../../src/tangle/errors.js";
import { TangleBuilder } from "../../helpers/tangleBuilder.js";
import { basic, type Wallet, wallet } from "../../helpers/txBuilder.js";
import { payment } from "../../helpers/wallet.js";

describe("milestone confirmation on a real database", () => {
  let tb: TangleBuilder;
  before(async () => {
    tb = await TangleBuilder.create();
  });
  after(async () => {
    await tb.dispose();
  });

  /** The milestone payload stored for `index`. */
  const milestonePayload = async (index: number): Promise<MilestonePayload> => {
    const rec = decodeMilestoneRecord((await tb.node.store.get(indexKey(Bucket.MilestoneByIndex, index)))!);
    const block = decodeBlock((await tb.node.store.get(idKey(Bucket.Block, rec.blockId)))!);
    assert.equal(block.payload?.type, 7);
    return block.payload as MilestonePayload;
  };

  it("writes the dev genesis: the whole supply unspent for the dev key", async () => {
    assert.equal(tb.node.createdGenesis, true);
    assert.equal(await tb.unspentTotal(), DEV_TOKEN_SUPPLY);
    const ms1 = await tb.milestone();
    assert.equal(ms1.index, 1);
  });

  it("confirms a value transaction, marks a double spend in the same cone conflicting, keeps the supply", async () => {
    const dev = tb.devWallet();
    const alice = wallet("alice");
    const pay = payment(tb.genesis(), alice, 1_000_000n);
    const double = tb.transaction({
      inputs: [tb.genesis()],
      outputs: [basic(alice.address, { amount: DEV_TOKEN_SUPPLY })],
      unlockers: [dev],
    });
    const payBlock = await tb.block(pay.tx);
    const doubleBlock = await tb.block(double.tx, [payBlock]);
    const tagged = await tb.block({ type: 5, tag: Uint8Array.of(1), data: new Uint8Array() }, [doubleBlock]);
    const ms2 = await tb.milestone();
    assert.equal(ms2.index, 2);

    const a = await tb.metadata(payBlock);
    const b = await tb.metadata(doubleBlock);
    const c = await tb.metadata(tagged);
    assert.deepEqual([a.referencedByMilestoneIndex, a.inclusionState, a.conflictReason], [2, 1, 0]);
    assert.deepEqual(
      [b.referencedByMilestoneIndex, b.inclusionState, b.conflictReason],
      [2, 2, ConflictReason.InputUtxoAlreadySpentInThisMilestone],
    );
    assert.deepEqual([c.inclusionState, c.conflictReason], [0, 0]);
    assert.ok(a.whiteFlagIndex < b.whiteFlagIndex && b.whiteFlagIndex < c.whiteFlagIndex);

    const spent = decodeOutputRecord((await tb.node.store.get(idKey(Bucket.Output, GENESIS_OUTPUT_ID)))!).spent!;
    assert.deepEqual(spent.transactionId, pay.transactionId);
    assert.equal(spent.spentIndex, 2);
    assert.equal(await tb.isUnspent(pay.outputs[0]!.outputId), true);
    assert.equal(await tb.unspentTotal(), DEV_TOKEN_SUPPLY);

    // TIP-4/TIP-29: the inclusion root is over every block the milestone referenced, the applied
    // root over the blocks whose transactions were applied, both in white-flag order
    const ms = await milestonePayload(2);
    const referenced: { id: Uint8Array; wf: number }[] = [];
    for await (const [key, value] of tb.node.store.scan({ prefix: Uint8Array.of(Bucket.BlockMetadata) })) {
      const m = decodeBlockMetadata(value);
      if (m.referencedByMilestoneIndex === 2) referenced.push({ id: key.subarray(1), wf: m.whiteFlagIndex });
    }
    referenced.sort((x, y) => x.wf - y.wf);
    assert.deepEqual(
      referenced.map((r) => r.wf),
      referenced.map((_, i) => i),
    );
    assert.deepEqual(ms.inclusionMerkleRoot, merkleRoot(referenced.map((r) => r.id)));
    assert.deepEqual(ms.appliedMerkleRoot, merkleRoot([payBlock]));
    const diff = decodeLedgerDiff((await tb.node.store.get(indexKey(Bucket.LedgerDiff, 2)))!);
    assert.deepEqual(diff.consumed, [GENESIS_OUTPUT_ID]);
    assert.deepEqual(
      diff.created,
      pay.outputs.map((o) => o.outputId),
    );
  });

  it("marks a later spend of a spent output as already spent and one of an unknown output as not found", async () => {
    const dev = tb.devWallet();
    const again = tb.transaction({
      inputs: [tb.genesis()],
      outputs: [basic(dev.address, { amount: DEV_TOKEN_SUPPLY })],
      unlockers: [dev],
    });
    const ghostInput = { ...tb.genesis(), outputId: Uint8Array.from({ length: 34 }, (_, i) => (i < 32 ? 9 : 0)) };
    const ghost = tb.transaction({
      inputs: [ghostInput],
      outputs: [basic(dev.address, { amount: DEV_TOKEN_SUPPLY })],
      unlockers: [dev],
    });
    const againBlock = await tb.block(again.tx);
    const ghostBlock = await tb.block(ghost.tx);
    await tb.milestone();
    assert.deepEqual(
      [(await tb.metadata(againBlock)).inclusionState, (await tb.metadata(againBlock)).conflictReason],
      [2, ConflictReason.InputUtxoAlreadySpent],
    );
    assert.equal((await tb.metadata(ghostBlock)).conflictReason, ConflictReason.InputUtxoNotFound);
    assert.equal(await tb.unspentTotal(), DEV_TOKEN_SUPPLY);
  });

  it("records a transaction signed by the wrong key as conflicting (invalid signature) and leaves the ledger untouched", async () => {
    const alice = wallet("alice");
    const bob = wallet("bob");
    // alice's 1,000,000 from the first transaction (output 0 of milestone 2's diff), signed by bob's key
    const diff = decodeLedgerDiff((await tb.node.store.get(indexKey(Bucket.LedgerDiff, 2)))!);
    const aliceId = diff.created[0]!;
    const input = { outputId: aliceId, output: basic(alice.address, { amount: 1_000_000n }) };
    /** Alice's output paid to bob, signed by `signer`, in a block the next milestone confirms: its metadata. */
    const payBob = async (signer: Wallet) => {
      const pay = tb.transaction({
        inputs: [input],
        outputs: [basic(bob.address, { amount: 1_000_000n })],
        unlockers: [signer],
      });
      const block = await tb.block(pay.tx);
      await tb.milestone();
      return tb.metadata(block);
    };
    const m = await payBob(bob);
    assert.deepEqual([m.inclusionState, m.conflictReason], [2, ConflictReason.InvalidSignature]);
    assert.equal(await tb.isUnspent(aliceId), true);
    // and the rightful owner can still spend it
    assert.equal((await payBob(alice)).inclusionState, 1);
    assert.equal(await tb.isUnspent(aliceId), false);
    assert.equal(await tb.unspentTotal(), DEV_TOKEN_SUPPLY);
  });

  it("resumes after a restart at the same ledger index and continues the milestone chain", async () => {
    const before = tb.node.tangle.latestMilestone;
    await tb.restart();
    assert.equal(tb.node.createdGenesis, false);
    assert.equal(tb.node.tangle.latestMilestone.index, before.index);
    assert.equal(toHex(tb.node.tangle.latestMilestone.milestoneId), toHex(before.milestoneId));
    const next = await tb.milestone();
    assert.equal(next.index, before.index + 1);
    const ms = await milestonePayload(next.index);
    assert.equal(toHex(ms.previousMilestoneId), toHex(before.milestoneId));
    assert.ok(ms.timestamp > before.timestamp);
    assert.equal(await tb.unspentTotal(), DEV_TOKEN_SUPPLY);
  });

  it("applies at start a milestone whose block was stored but whose batch was not (crash in between)", async () => {
    const dev = tb.devWallet();
    const bob = wallet("bob");
    const diff = decodeLedgerDiff((await tb.node.store.get(indexKey(Bucket.LedgerDiff, 2)))!);
    const devChange = {
      outputId: diff.created[1]!,
      output: basic(dev.address, { amount: DEV_TOKEN_SUPPLY - 1_000_000n }),
    };
    const tx = tb.transaction({
      inputs: [devChange],
      outputs: [
        basic(bob.address, { amount: 5_000_000n }),
        basic(dev.address, { amount: DEV_TOKEN_SUPPLY - 6_000_000n }),
      ],
      unlockers: [dev],
    });
    const txBlock = await tb.block(tx.tx);
    const before = tb.node.tangle.latestMilestone;
    const pending = await tb.node.coordinator.storeNextMilestone(); // the batch never happens
    assert.equal(tb.node.tangle.latestMilestone.index, before.index);
    await tb.restart();
    assert.equal(tb.node.tangle.latestMilestone.index, before.index + 1);
    assert.equal(toHex(tb.node.tangle.latestMilestone.milestoneId), toHex(pending.milestoneId));
    assert.equal((await tb.metadata(txBlock)).inclusionState, 1);
    assert.equal(await tb.isUnspent(tx.outputs[0]!.outputId), true);
    assert.equal(await tb.unspentTotal(), DEV_TOKEN_SUPPLY);
    assert.equal((await tb.milestone()).index, before.index + 2);
  });

  it("refuses a received milestone whose timestamp is not after its predecessor's", async () => {
    const latest = tb.node.tangle.latestMilestone;
    const stale: MilestonePayload = {
      ...(await milestonePayload(latest.index)),
      index: latest.index + 1,
      timestamp: latest.timestamp,
      previousMilestoneId: latest.milestoneId,
      parents: [latest.blockId],
    };
    await assert.rejects(confirmMilestoneBlock(tb.node.tangle, new Uint8Array(32), stale, semanticValidator), {
      code: TangleErrorCode.MilestoneMismatch,
      message: /timestamp/,
    });
    assert.equal(tb.node.tangle.latestMilestone.index, latest.index, "nothing written");
  });

  it("refuses a received milestone carrying a receipt (TIP-34): receipts come only from snapshot files", async () => {
    const latest = tb.node.tangle.latestMilestone;
    const withReceipt: MilestonePayload = {
      ...(await milestonePayload(latest.index)),
      index: latest.index + 1,
      timestamp: latest.timestamp + 1,
      previousMilestoneId: latest.milestoneId,
      parents: [latest.blockId],
      options: [
        {
          type: MilestoneOptionType.Receipt,
          migratedAt: 1,
          final: true,
          funds: [
            {
              tailTransactionHash: new Uint8Array(49),
              address: { type: AddressType.Ed25519, pubKeyHash: new Uint8Array(32) },
              deposit: 1_000_000n,
            },
          ],
          transaction: {
            type: PayloadType.TreasuryTransaction,
            input: { type: InputType.Treasury, milestoneId: new Uint8Array(32) },
            output: { type: OutputType.Treasury, amount: 0n },
          },
        },
      ],
    };
    await assert.rejects(confirmMilestoneBlock(tb.node.tangle, new Uint8Array(32), withReceipt, semanticValidator), {
      code: TangleErrorCode.MilestoneMismatch,
      message: /receipt/,
    });
    assert.equal(tb.node.tangle.latestMilestone.index, latest.index, "nothing written");
  });
});
