import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { decodeBlock, encodeBlock } from "../../src/codec/block.js";
import { compareBytes, toHex } from "../../src/codec/hex.js";
import { DEV_TOKEN_SUPPLY } from "../../src/node/devNetwork.js";
import type { LedgerNode } from "../../src/node/node.js";
import { SnapshotManager } from "../../src/snapshot/index.js";
import { Bucket, decodeMilestoneRecord, idKey, indexKey } from "../../src/storage/index.js";
import {
  assertSameLedger,
  History,
  nodeFromSnapshot,
  readLedgerState,
  submitTransaction,
} from "../helpers/snapshotHistory.js";
import { basic, wallet } from "../helpers/txBuilder.js";

/**
 * The snapshot round trip: a node confirms transactions over 24 milestones; snapshots are taken
 * at an older and at the latest index (and a delta on top of the older one); a second node
 * starts from each file and must hold, output for output, record for record, the ledger the
 * first node held at that index, the same milestone, and go on from there: accept blocks on
 * the solid entry points and, holding the coordinator key, confirm the next milestone.
 */
describe("snapshot round trip between two nodes", () => {
  let h: History;
  let manager: SnapshotManager;
  const OLD = 9;
  const DELTA = 17;
  let latest: number;
  const paths: Record<string, string> = {};
  const opened: LedgerNode[] = [];

  before(async () => {
    h = await History.create("roundtrip", 24, 3);
    latest = h.latest;
    manager = h.snapshots();
    paths.old = (await manager.createFull(OLD)).filePath;
    const delta = await manager.createDelta(DELTA);
    assert.equal(delta.fullIndex, OLD);
    assert.equal(delta.fullFilePath, paths.old);
    paths.delta = delta.deltaFilePath;
    paths.atDelta = (await manager.createFull(DELTA)).filePath;
    paths.latest = (await manager.createFull(latest)).filePath;
  });
  after(async () => {
    for (const n of opened) await n.close();
    await h.dispose();
  });

  const start = async (name: string, files: { fullPath: string; deltaPath?: string }) => {
    const node = await nodeFromSnapshot(join(h.dir, name), files, h.node.secrets.coordinatorSeeds[0]);
    opened.push(node);
    return node;
  };

  /** The second node agrees with the first at `index`: ledger, milestone, entry points. */
  const assertStartsAt = async (node: LedgerNode, index: number) => {
    assertSameLedger(await readLedgerState(node.store), h.states.get(index)!, `ledger at ${index}`);
    assert.equal((await readLedgerState(node.store)).total, DEV_TOKEN_SUPPLY);
    const mine = decodeMilestoneRecord((await h.node.store.get(indexKey(Bucket.MilestoneByIndex, index)))!);
    const latestThere = node.tangle.latestMilestone;
    assert.equal(latestThere.index, index);
    assert.equal(toHex(latestThere.milestoneId), toHex(mine.milestoneId));
    assert.equal(toHex(latestThere.blockId), toHex(mine.blockId), "the milestone's block was rebuilt from the file");
    assert.equal(latestThere.timestamp, mine.timestamp);
    // the milestone's block, rebuilt from the file: stored, solid on the entry points, and not
    // referenced yet (the next milestone takes it into its cone, as on the first node)
    const bytes = await node.store.get(idKey(Bucket.Block, mine.blockId));
    assert.deepEqual(bytes, await h.node.store.get(idKey(Bucket.Block, mine.blockId)));
    for (const p of decodeBlock(bytes!).parents)
      assert.ok(node.tangle.isSolidEntryPoint(p), "its parents are entry points");
    assert.ok(await node.tangle.isSolid(mine.blockId));
    assert.equal((await node.tangle.getMetadata(mine.blockId))?.referencedByMilestoneIndex, 0);
  };

  /** Spends an output unspent at `index` on `node`, on the entry points, and confirms it there. */
  const continuesFrom = async (node: LedgerNode, index: number) => {
    const [id] = [...h.states.get(index)!.outputs.keys()].filter((k) => h.owners.has(k));
    const spend = h.owners.get(id!)!;
    const erin = wallet("erin");
    const amount = spend.input.output.amount;
    const tx = await submitTransaction(node, [spend], [basic(erin.address, { amount })]);
    // a block on the other entry points (blocks of the first node's history the second never saw)
    const seps: Uint8Array[] = [];
    for await (const key of node.store.scanKeys({ prefix: Uint8Array.of(Bucket.SolidEntryPoint) })) {
      seps.push(key.slice(1));
    }
    const onSeps = seps.slice(-8).sort(compareBytes);
    const tagged = await node.submitBlock(
      encodeBlock({
        protocolVersion: 2,
        parents: onSeps,
        payload: { type: 5, tag: Uint8Array.of(7), data: new Uint8Array() },
        nonce: 0n,
      }),
    );
    assert.ok(await node.tangle.isSolid(tagged.blockId), "a block on the entry points is solid");
    const previous = node.tangle.latestMilestone.blockId;
    const ms = await node.coordinator.issueMilestone();
    assert.equal((await node.tangle.getMetadata(tagged.blockId))?.referencedByMilestoneIndex, index + 1);
    assert.equal((await node.tangle.getMetadata(previous))?.referencedByMilestoneIndex, index + 1);
    assert.equal(ms.index, index + 1);
    const meta = await node.tangle.getMetadata(tx.blockId);
    assert.equal(meta?.referencedByMilestoneIndex, index + 1);
    assert.equal(meta?.inclusionState, 1, "the transaction is included");
    assert.equal(await node.store.has(idKey(Bucket.Unspent, spend.input.outputId)), false);
    assert.equal((await readLedgerState(node.store)).total, DEV_TOKEN_SUPPLY);
  };

  it("starts a node from the full snapshot at an older index and continues its chain", async () => {
    const node = await start("from-old", { fullPath: paths.old! });
    await assertStartsAt(node, OLD);
    await continuesFrom(node, OLD);
  });

  it("starts a node from the full snapshot at the latest index and continues its chain", async () => {
    const node = await start("from-latest", { fullPath: paths.latest! });
    await assertStartsAt(node, latest);
    await continuesFrom(node, latest);
  });

  it("a delta on top of a full snapshot equals a full snapshot at the delta's index", async () => {
    const merged = await start("from-delta", { fullPath: paths.old!, deltaPath: paths.delta! });
    const full = await start("from-full-at-delta", { fullPath: paths.atDelta! });
    await assertStartsAt(merged, DELTA);
    await assertStartsAt(full, DELTA);
    assertSameLedger(await readLedgerState(merged.store), await readLedgerState(full.store), "delta vs full");
    // the delta also brings the history between the two: milestones, their diffs and blocks
    for (let m = OLD + 1; m <= DELTA; m++) {
      for (const bucket of [Bucket.MilestoneByIndex, Bucket.LedgerDiff]) {
        assert.deepEqual(await merged.store.get(indexKey(bucket, m)), await h.node.store.get(indexKey(bucket, m)));
      }
      const blockId = decodeMilestoneRecord(
        (await merged.store.get(indexKey(Bucket.MilestoneByIndex, m - 1)))!,
      ).blockId;
      assert.equal((await merged.tangle.getMetadata(blockId))?.referencedByMilestoneIndex, m, `block of ${m - 1}`);
    }
    await continuesFrom(merged, DELTA);
  });

  it("a node started from a snapshot writes snapshots of its own that start a third node", async () => {
    const second = await start("second", { fullPath: paths.old! });
    await continuesFrom(second, OLD);
    const own = new SnapshotManager(
      { store: second.store, belowMaxDepth: 15 },
      { directory: join(h.dir, "second-snapshots") },
    );
    const file = await own.createFull(OLD + 1);
    const third = await start("third", { fullPath: file.filePath });
    assertSameLedger(await readLedgerState(third.store), await readLedgerState(second.store), "third vs second");
    assert.equal(third.tangle.latestMilestone.index, OLD + 1);
    await third.coordinator.issueMilestone();
  });
});
