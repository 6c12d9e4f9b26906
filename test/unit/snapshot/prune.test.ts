import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { buildServer } from "../../../src/api/server.js";
import { isSnapshotError } from "../../../src/snapshot/errors.js";
import { SnapshotErrorCode, SnapshotManager } from "../../../src/snapshot/index.js";
import {
  Bucket,
  decodeBlockMetadata,
  decodeOutputRecord,
  decodeU32,
  idKey,
  indexKey,
  NodeStateKey,
  nodeStateKey,
  Repositories,
} from "../../../src/storage/index.js";
import { Pruner } from "../../../src/tangle/prune.js";
import { assertSameLedger, History, nodeFromSnapshot, readLedgerState } from "../../helpers/snapshotHistory.js";
import { basic, wallet } from "../../helpers/txBuilder.js";

/**
 * Pruning below a horizon: milestones, their diffs, the blocks they referenced and the outputs
 * they spent go; the ledger, the proof data of unspent outputs and the entry points later
 * blocks need stay; the node keeps confirming (also after a restart); snapshots below the
 * horizon are refused with Pruned (404) and snapshots above it still start a node.
 */
describe("pruning", () => {
  let h: History;
  let pruner: Pruner;
  let horizon: number;
  let latest: number;
  const milestoneBlocks = new Map<number, Uint8Array>();

  before(async () => {
    h = await History.create("prune", 36, 2);
    latest = h.latest;
    for (let m = 1; m <= latest; m++) {
      const rec = (await h.node.store.get(indexKey(Bucket.MilestoneByIndex, m)))!;
      milestoneBlocks.set(m, rec.slice(32, 64));
    }
    pruner = await Pruner.create({ tangle: h.node.tangle }, { pruneBelow: 16, step: 1, batchSize: 16 });
  });
  after(async () => {
    await pruner.stop();
    await h.dispose();
  });

  it("holds the horizon below a pinned snapshot index", async () => {
    const release = pruner.pin(6);
    assert.equal(await pruner.pruneTo(latest - 16), 6);
    assert.equal(pruner.horizon, 6);
    release();
  });

  it("deletes what milestones below the horizon left and keeps the ledger whole", async () => {
    horizon = await pruner.pruneTo(latest - pruner.keep);
    assert.equal(horizon, latest - 16);
    const store = h.node.store;
    assert.equal(await Repositories.of(store).nodeState.pruningIndex(), horizon);
    for (let m = 1; m <= latest; m++) {
      const kept = m >= horizon;
      assert.equal(await store.has(indexKey(Bucket.MilestoneByIndex, m)), kept, `milestone ${m}`);
      assert.equal(await store.has(indexKey(Bucket.LedgerDiff, m)), kept, `ledger diff ${m}`);
    }
    // no block referenced below the horizon is left, and no output spent below it
    for await (const [, v] of store.scan({ prefix: Uint8Array.of(Bucket.BlockMetadata) })) {
      const ref = decodeBlockMetadata(v).referencedByMilestoneIndex;
      assert.ok(ref === 0 || ref >= horizon, `a block referenced at ${ref} is left`);
    }
    for await (const [, v] of store.scan({ prefix: Uint8Array.of(Bucket.Output) })) {
      const spent = decodeOutputRecord(v).spent;
      assert.ok(spent === undefined || spent.spentIndex >= horizon);
    }
    // the ledger is untouched, and each unspent output's transaction keeps its record
    assertSameLedger(await readLedgerState(store), h.states.get(latest)!, "after pruning");
    for (const id of h.states.get(latest)!.outputs.keys()) {
      const txId = Uint8Array.from(Buffer.from(id.slice(2, 66), "hex"));
      if (txId.every((b) => b === 0)) continue; // the genesis has no transaction
      assert.ok(await store.has(idKey(Bucket.TransactionBlock, txId)), `transaction record of ${id}`);
    }
    // the blocks the kept history points into are entry points now: the block of milestone
    // horizon - 2 was referenced by horizon - 1 (pruned) and is the parent of milestone
    // horizon - 1's block, which milestone horizon references (kept)
    const sep = milestoneBlocks.get(horizon - 2)!;
    assert.ok(h.node.tangle.isSolidEntryPoint(sep));
    assert.equal(decodeU32((await store.get(idKey(Bucket.SolidEntryPoint, sep)))!, "sep"), horizon - 1);
    assert.equal(await store.has(idKey(Bucket.Block, sep)), false);
    // entry points below max depth of the horizon are gone: the genesis' null block among them
    assert.equal(await store.has(idKey(Bucket.SolidEntryPoint, new Uint8Array(32))), false);
  });

  it("answers 404 for pruned milestones and blocks over the API", async () => {
    const app = buildServer(h.node, "silent");
    try {
      const pruned = await app.inject({ method: "GET", url: `/api/core/v2/milestones/by-index/${horizon - 1}` });
      assert.equal(pruned.statusCode, 404);
      const kept = await app.inject({ method: "GET", url: `/api/core/v2/milestones/by-index/${horizon}` });
      assert.equal(kept.statusCode, 200);
      const block = (m: number) => `/api/core/v2/blocks/0x${Buffer.from(milestoneBlocks.get(m)!).toString("hex")}`;
      assert.equal((await app.inject({ method: "GET", url: block(horizon - 2) })).statusCode, 404);
      assert.equal((await app.inject({ method: "GET", url: block(horizon) })).statusCode, 200);
    } finally {
      await app.close();
    }
  });

  it("refuses snapshots below the horizon (Pruned) and writes ones above it that start a node", async () => {
    const m = new SnapshotManager(
      { store: h.node.store, belowMaxDepth: 15, pruner },
      { directory: join(h.dir, "snapshots") },
    );
    await assert.rejects(
      m.createFull(horizon - 1),
      (e: unknown) => isSnapshotError(e) && e.code === SnapshotErrorCode.Pruned,
    );
    const file = await m.createFull(horizon);
    const node = await nodeFromSnapshot(join(h.dir, "node"), { fullPath: file.filePath });
    try {
      assertSameLedger(await readLedgerState(node.store), h.states.get(horizon)!, `from ${horizon}`);
      await node.coordinator.issueMilestone();
    } finally {
      await node.close();
    }
  });

  it("keeps confirming after pruning and after a restart, spending outputs older than the horizon", async () => {
    const oldest = [...h.states.get(latest)!.outputs]
      .filter(([id]) => h.owners.has(id))
      .sort((a, b) => Buffer.from(a[1]).readUInt32LE(32) - Buffer.from(b[1]).readUInt32LE(32))[0]!;
    assert.ok(Buffer.from(oldest[1]).readUInt32LE(32) < horizon, "an output booked below the horizon");
    await h.tb.restart();
    const spend = h.owners.get(oldest[0])!;
    const tx = h.tb.transaction({
      inputs: [spend.input],
      outputs: [basic(wallet("frank").address, { amount: spend.input.output.amount })],
      unlockers: [spend.owner],
    });
    const block = await h.tb.block(tx.tx);
    await h.tb.milestone();
    assert.equal((await h.tb.metadata(block)).inclusionState, 1);
    await h.run(2, 2);
  });

  it("prunes in the background after milestones, a step at a time, while the node confirms", async () => {
    const background = await Pruner.create({ tangle: h.node.tangle }, { pruneBelow: 20, step: 3 });
    const before = background.horizon;
    for (let i = 0; i < 6; i++) {
      const index = await h.step(1);
      background.onConfirmed(index);
    }
    await background.idle();
    const ledgerIndex = h.node.tangle.latestMilestone.index;
    assert.ok(background.horizon > before, "the horizon moved");
    assert.ok(background.horizon <= ledgerIndex - 20, "never closer than pruneBelow");
    const stored = decodeU32((await h.node.store.get(nodeStateKey(NodeStateKey.PruningIndex)))!, "pruningIndex");
    assert.equal(stored, background.horizon);
    assert.equal((await readLedgerState(h.node.store)).total, h.states.get(0)!.total);
    const off = await Pruner.create({ tangle: h.node.tangle }, { pruneBelow: 0 });
    off.onConfirmed(ledgerIndex);
    await off.idle();
    assert.equal(off.horizon, background.horizon);
  });
});
