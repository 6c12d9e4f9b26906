import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { confirmedIndex, waitForSynced } from "../helpers/milestones.js";
import { removeDir, tempDir } from "../helpers/node.js";
import { client, NodeProcess } from "../helpers/nodeProcess.js";
import { DevWallet } from "../helpers/wallet.js";

/**
 * Issue #7's "start a fourth node from a snapshot of A and it syncs", with real processes: A (the
 * coordinator) writes an automatic full snapshot; D starts on an empty data dir with
 * `--snapshot <file> --network-config <A's network.json> --peer <A>`, fetches the milestones
 * after the snapshot from A, reports synced and agrees with A on every milestone and output.
 */
describe("a follower process started from a snapshot of the coordinator (real processes)", () => {
  let a: NodeProcess;
  let d: NodeProcess | undefined;
  let work: string;

  before(async () => {
    work = await tempDir("net-snap");
    a = await NodeProcess.create("a", ["--snapshot-interval", "5"]);
    a.start();
  });
  after(async () => {
    await d?.dispose();
    await a.dispose();
    await removeDir(work);
  });

  it("syncs from the snapshot's milestone to A's latest and agrees with A", async () => {
    const addressA = await a.address(); // waits until A answers
    const wallet = new DevWallet(client(a));
    await wallet.pay(1);
    await wallet.pay(2);
    const snapshot = await a.copySnapshot("full_snapshot_5.bin", work, 30_000);
    await wallet.pay(3); // history after the snapshot, which D must fetch over the network

    d = await NodeProcess.follower("d", a, [addressA], ["--snapshot", snapshot]);
    const follower = d;
    follower.start(["--log-level", "info"]);
    // D's log at info names each step of its start (the snapshot's load, the P2P host, the dial
    // to A, the API's listen): a wait that times out shows how far D got
    await follower.explain(waitForSynced(follower, a, 45_000, "D synced with A"));
    const upTo = await confirmedIndex(follower);
    assert.ok(upTo > 5, `D reached milestone ${upTo}, beyond the snapshot's 5`);
    for (let index = 6; index <= upTo; index++) {
      const [onA, onD] = await Promise.all(
        [a, follower].map((n) => n.json(`/api/core/v2/milestones/by-index/${index}`)),
      );
      assert.deepEqual(onD, onA, `milestone ${index}`);
    }
    for (const id of wallet.created) {
      const onA = await client(a).output(id);
      // spent before the snapshot's milestone: history D never had (a snapshot holds the unspent)
      if (onA.metadata.isSpent && onA.metadata.milestoneIndexSpent <= 5) continue;
      const onD = await client(follower).output(id);
      delete onA.metadata.ledgerIndex;
      delete onD.metadata.ledgerIndex;
      assert.deepEqual(onD, onA, id);
    }
  });
});
