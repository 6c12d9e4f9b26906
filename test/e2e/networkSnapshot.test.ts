import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { toHex } from "../../src/codec/hex.js";
import { blockIdFromBytes } from "../../src/codec/ids.js";
import { networkConfigPath } from "../../src/network/index.js";
import { importSnapshot, writeFullSnapshot } from "../../src/snapshot/index.js";
import { Bucket, decodeMilestoneRecord, defaultKvStoreOptions, indexKey, KvStore } from "../../src/storage/index.js";
import {
  makeBlock,
  removeNode,
  startCoordinator,
  startNode,
  type TestNode,
  taggedData,
  until,
} from "../helpers/network.js";
import { tempDir } from "../helpers/node.js";
import { wallet } from "../helpers/txBuilder.js";
import { genesisInput, payment } from "../helpers/wallet.js";

/** A follower of `a` on a data dir under `dir` made from the full snapshot `fullPath`, dialling `a`. */
async function followerFromSnapshot(a: TestNode, fullPath: string, dir: string): Promise<TestNode> {
  const store = await KvStore.open({ ...defaultKvStoreOptions, path: join(dir, "node", "db") });
  try {
    await importSnapshot(store, { fullPath, expectedNetworkName: "dev" });
  } finally {
    await store.close();
  }
  return startNode(join(dir, "node"), { networkConfig: networkConfigPath(a.dir), peers: [a.address] });
}

/**
 * Issue #7's fault test "start a fourth node from a snapshot of A and it syncs": a full TIP-35
 * snapshot of the coordinator's ledger at milestone 15 is imported into an empty data dir; the
 * node opened on it with the network config joins as a follower and fetches milestones 16.. by
 * index from the coordinator, reaching the same ledger. In-process nodes: starting a node
 * process from a snapshot file is the snapshot layer's command.
 */
describe("a node started from a snapshot of the coordinator syncs over the network", () => {
  let a: TestNode;
  let d: TestNode | undefined;
  let dir: string;

  before(async () => {
    a = await startCoordinator();
    let input = genesisInput();
    for (let i = 1; i <= 20; i++) {
      const pay = payment(input, wallet(`snap${i}`), 1_000_000n);
      await a.node.submitBlock(await makeBlock(a.node, pay.tx));
      await a.node.submitBlock(await makeBlock(a.node, taggedData(i)));
      input = pay.outputs[1]!;
      await a.node.coordinator.issueMilestone();
    }
    dir = await tempDir("from-snapshot");
  });
  after(async () => {
    if (d) await removeNode(d);
    await removeNode(a);
  });

  // The snapshot layer makes the target milestone's block a solid entry point referenced by the
  // target itself, while the coordinator counts that block in the next milestone's cone: this
  // node's white-flag for milestone 16 then leaves it out and the inclusion Merkle root differs.
  it("imports the snapshot at 15, follows from 16 and ends on the coordinator's ledger", async () => {
    const fullPath = join(dir, "full_snapshot_15.bin");
    await writeFullSnapshot(a.node.store, 15, fullPath);
    d = await followerFromSnapshot(a, fullPath, dir);
    assert.equal(d.node.isCoordinator, false, "the imported coordinator key is not the network's");
    assert.equal(d.node.tangle.latestMilestone.index, 15);
    await until(
      () => {
        const failure = d!.network.confirmer?.failure;
        if (failure) throw failure;
        return d!.node.tangle.latestMilestone.index === 20 || undefined;
      },
      20_000,
      "milestone 20",
    );
    assert.equal(d.network.syncStatus().isSynced, true);
    for (let i = 15; i <= 20; i++) {
      const id = async (n: TestNode): Promise<string> =>
        toHex(decodeMilestoneRecord((await n.node.store.get(indexKey(Bucket.MilestoneByIndex, i)))!).milestoneId);
      const ra: string = await id(a);
      const rd: string = await id(d);
      assert.equal(rd, ra, `milestone ${i}`);
    }
    const unspent = async (n: TestNode) => {
      const ids: string[] = [];
      for await (const key of n.node.store.scanKeys({ prefix: Uint8Array.of(Bucket.Unspent) })) ids.push(toHex(key));
      return ids.sort();
    };
    assert.deepEqual(await unspent(d), await unspent(a));
    // and it keeps following
    await a.node.submitBlock(await makeBlock(a.node, taggedData(99)));
    const ms = await a.node.coordinator.issueMilestone();
    await until(() => d!.node.tangle.latestMilestone.index === ms.index || undefined, 10_000, "the next milestone");
    assert.deepEqual(d.node.tangle.latestMilestone.milestoneId, ms.milestoneId);
  });
});

/**
 * A block may take a block of a snapshot's window as its parent until that block is below max
 * depth. An automatic snapshot written at its own milestone could not know such a child, left
 * its parent out of the solid entry points, and a node started from it never solidified the
 * milestone that referenced the child: it stayed at the snapshot's milestone. Automatic snapshots
 * are written belowMaxDepth + 1 milestones later (snapshot/manager.ts), when every child is known.
 */
describe("an automatic snapshot and a block attached after its milestone", () => {
  let a: TestNode;
  let d: TestNode | undefined;
  let dir: string;
  before(async () => {
    a = await startCoordinator({ snapshotInterval: 5 });
    dir = await tempDir("late-child");
  });
  after(async () => {
    if (d) await removeNode(d);
    await removeNode(a);
  });

  it("lists the late child's parent as an entry point: a node started from it syncs past the snapshot", async () => {
    const issue = () => a.node.coordinator.issueMilestone();
    await issue();
    // B, referenced by milestone 2; blocks on top of it after, so no later milestone names it
    const b = await makeBlock(a.node, taggedData(400));
    await a.node.submitBlock(b);
    await issue();
    for (let i = 3; i <= 5; i++) {
      for (let j = 0; j < 4; j++) await a.node.submitBlock(await makeBlock(a.node, taggedData(400 + 10 * i + j)));
      await issue();
    }
    // whatever milestone 5 started is written before C comes (a snapshot taken at 5 itself
    // would not know C)
    await a.node.snapshots.idle();
    // after milestone 5: C attaches to B, and milestone 6 references it
    const c = await makeBlock(a.node, taggedData(401), [blockIdFromBytes(b)]);
    await a.node.submitBlock(c);
    const six = await issue();
    assert.equal(six.index, 6);
    assert.equal((await a.node.tangle.getMetadata(blockIdFromBytes(c)))?.referencedByMilestoneIndex, 6);
    // milestone 5's snapshot comes with milestone 5 + belowMaxDepth + 1
    const fullPath = join(a.dir, "snapshots", "full_snapshot_5.bin");
    for (let i = 7; i <= 5 + 15 + 1; i++) await issue();
    await a.node.snapshots.idle();
    d = await followerFromSnapshot(a, fullPath, dir);
    assert.equal(d.node.tangle.latestMilestone.index, 5);
    // B again, from a peer (replayed, or gossiped late): an entry point of D's, referenced before
    // D's history starts; taken in, it would be unreferenced on D and in milestone 6's white-flag
    assert.ok(d.node.tangle.isSolidEntryPoint(blockIdFromBytes(b)));
    const again = await d.node.intake.check(b, "peer");
    if (again.kind === "accepted") await d.node.intake.take(again, "peer");
    assert.equal(again.kind, "ignored", "an entry point is not taken in again");
    const latest = a.node.tangle.latestMilestone.index;
    await until(
      () => {
        const failure = d!.network.confirmer?.failure;
        if (failure) throw failure;
        return d!.node.tangle.latestMilestone.index === latest || undefined;
      },
      20_000,
      `D past milestone 6, at ${latest}`,
    );
    assert.deepEqual(d.node.tangle.latestMilestone.milestoneId, a.node.tangle.latestMilestone.milestoneId);
  });
});
