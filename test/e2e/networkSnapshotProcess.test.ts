import assert from "node:assert/strict";
import { copyFile, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { client, DevWallet, NodeProcess, until } from "./networkProcess.js";

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

  const confirmed = async (n: NodeProcess): Promise<number> => (await n.info()).status.confirmedMilestone.index;

  before(async () => {
    work = await mkdtemp(join(tmpdir(), "ledger-node-net-snap-"));
    a = await NodeProcess.create("a", ["--snapshot-interval", "5"]);
    a.start();
  });
  after(async () => {
    await d?.dispose();
    await a.dispose();
    await rm(work, { recursive: true, force: true });
  });

  it("syncs from the snapshot's milestone to A's latest and agrees with A", async () => {
    const addressA = await a.address(); // waits until A answers
    const wallet = new DevWallet(client(a));
    await wallet.pay(1);
    await wallet.pay(2);
    const file = await until(
      async () =>
        (await readdir(join(a.dataDir, "snapshots")).catch(() => [] as string[])).find(
          (f) => f === "full_snapshot_5.bin",
        ),
      30_000,
      "A's snapshot at milestone 5",
    );
    const snapshot = join(work, file);
    await copyFile(join(a.dataDir, "snapshots", file), snapshot);
    await copyFile(join(a.dataDir, "snapshots", `${file}.sha256`), `${snapshot}.sha256`).catch(() => {});
    await wallet.pay(3); // history after the snapshot, which D must fetch over the network

    d = await NodeProcess.create("d", [
      "--network-config",
      join(a.dataDir, "network.json"),
      "--peer",
      addressA,
      "--snapshot",
      snapshot,
    ]);
    const follower = d;
    follower.start();
    await until(
      async () => {
        const [status, target] = [(await follower.info()).status, await confirmed(a)];
        return status.isSynced && status.confirmedMilestone.index >= target - 1 ? true : undefined;
      },
      45_000,
      "D synced with A",
    );
    const upTo = await confirmed(follower);
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
