import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { LedgerNode } from "../../../src/node/node.js";
import { Bucket, decodeBlockMetadata, idKey, type WriteBatch } from "../../../src/storage/index.js";
import { openTempNode, type TempNode } from "../../helpers/node.js";
import { taggedBlock } from "../../helpers/tangleBuilder.js";

/** Intake writes are written behind (Tangle.storeBlock): what a reader and a milestone see. */
describe("write-behind intake", () => {
  let t: TempNode;
  let node: LedgerNode;
  before(async () => {
    t = await openTempNode("intake");
    node = t.node;
    await node.coordinator.issueMilestone();
  });
  after(async () => {
    await t.close();
  });

  let tag = 0;
  const make = (parents: Uint8Array[]) => taggedBlock(parents, ++tag);

  /** Runs `f` with the write of every batch begun meanwhile replaced by `writeOf(realWrite)`. */
  const withBatches = async <T>(writeOf: (write: WriteBatch["write"]) => WriteBatch["write"], f: () => Promise<T>) => {
    const store = node.tangle.store;
    const realBatch = store.batch.bind(store);
    store.batch = () => {
      const batch = realBatch();
      batch.write = writeOf(batch.write.bind(batch));
      return batch;
    };
    try {
      return await f();
    } finally {
      store.batch = realBatch;
    }
  };

  it("answers a block just taken in from memory, before its batch is on disk, and writes it behind", async () => {
    const a = make([node.tangle.latestMilestone.blockId]);
    assert.equal(await node.tangle.storeBlock(a.id, a.block, a.bytes, false), true);
    // same turn of the event loop: the intake batch has not been handed to storage yet
    assert.equal(node.tangle.store.getSync(idKey(Bucket.Block, a.id)), undefined);
    assert.deepEqual(await node.tangle.getBlockBytes(a.id), a.bytes);
    const meta = await node.tangle.getMetadata(a.id);
    assert.equal(meta?.solid, true);
    assert.equal(meta?.referencedByMilestoneIndex, 0);
    assert.equal(await node.tangle.hasBlock(a.id), true);
    assert.equal(await node.tangle.storeBlock(a.id, a.block, a.bytes, false), false, "known, not stored twice");

    await node.tangle.intakeWritten();
    assert.deepEqual(node.tangle.store.getSync(idKey(Bucket.Block, a.id)), a.bytes);
    const stored = decodeBlockMetadata(node.tangle.store.getSync(idKey(Bucket.BlockMetadata, a.id))!);
    assert.deepEqual(stored, { ...meta, solid: false }, "memory says what intake stored, plus solidity");
  });

  it("writes a milestone's batch after the intake writes of its cone, so its metadata wins", async () => {
    const b = make([node.tangle.latestMilestone.blockId]);
    // b's intake batch is slow to write: the milestone is planned and issued meanwhile
    await withBatches(
      (write) => (options) => new Promise((r) => setTimeout(r, 100)).then(() => write(options)),
      () => node.tangle.storeBlock(b.id, b.block, b.bytes, false),
    );
    const ms = await node.coordinator.issueMilestone();
    const meta = decodeBlockMetadata(node.tangle.store.getSync(idKey(Bucket.BlockMetadata, b.id))!);
    assert.equal(meta.referencedByMilestoneIndex, ms.index);
    assert.equal(node.tangle.store.getSync(idKey(Bucket.Unreferenced, b.id)), undefined);
    assert.deepEqual(await node.tangle.getBlockBytes(b.id), b.bytes, "read back from disk once referenced");
    assert.deepEqual(await node.tangle.getMetadata(b.id), meta);
  });

  it("has a milestone block on disk when it is issued, and keeps blocks taken in across a clean stop", async () => {
    const pending = await node.coordinator.storeNextMilestone(); // its batch is never written
    assert.ok(node.tangle.store.getSync(idKey(Bucket.Block, pending.blockId)), "on disk before it is announced");
    const d = make([pending.blockId]);
    await node.tangle.storeBlock(d.id, d.block, d.bytes, false);
    node = await t.reopen();
    assert.equal(node.tangle.latestMilestone.index, pending.plan.index, "the stored milestone is applied at start");
    assert.deepEqual(await node.tangle.getBlockBytes(d.id), d.bytes);
  });

  it("confirms nothing after an intake batch that failed to write", async () => {
    const c = make([node.tangle.latestMilestone.blockId]);
    await withBatches(
      () => () => Promise.reject(new Error("disk full")),
      () => node.tangle.storeBlock(c.id, c.block, c.bytes, false),
    );
    await assert.rejects(node.tangle.intakeWritten(), /disk full/);
    const before = node.tangle.latestMilestone.index;
    await assert.rejects(node.coordinator.issueMilestone(), /disk full/);
    assert.equal(node.tangle.latestMilestone.index, before, "the ledger stays where it was");
  });
});
