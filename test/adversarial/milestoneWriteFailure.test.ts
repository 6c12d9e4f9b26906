import assert from "node:assert/strict";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { toHex } from "../../src/codec/hex.js";
import { TangleErrorCode } from "../../src/tangle/errors.js";
import type { LedgerIndex } from "../../src/tangle/events.js";
import { confirmedIndex, waitForMilestone } from "../helpers/milestones.js";
import { NodeProcess } from "../helpers/nodeProcess.js";
import { TangleBuilder } from "../helpers/tangleBuilder.js";
import { waitFor } from "../helpers/waitFor.js";

/**
 * Fault: the coordinator signed and stored milestone N, then N's batch failed to write (a full
 * disk, an I/O error, a writer throwing). N is the milestone of index N from then on: the
 * coordinator applies that same N again rather than signing a different one (which would split
 * the network: followers that applied the first N could never follow), and stops with a clear
 * reason when it keeps failing; a restart applies N from its stored block (docs/decisions.md,
 * Threats). Storage fails on cue through an index whose writes throw.
 */
describe("fault: a signed milestone whose batch cannot be written", () => {
  let tb: TangleBuilder;
  let failing = 0;
  const faulty: LedgerIndex = {
    name: "a failing disk",
    writeMilestone: () => {
      if (failing > 0) {
        failing--;
        throw new Error("No space left on device");
      }
    },
    catchUp: async () => {},
  };
  before(async () => {
    tb = await TangleBuilder.create();
    tb.node.events.attachIndex(faulty);
    await tb.milestone();
  });
  after(async () => {
    await tb.dispose();
  });

  /** The milestone blocks stored (referenced or not) with index `index`, by hex ID. */
  const milestoneBlocksOf = (index: number) =>
    tb.node.tangle
      .pendingMilestones()
      .filter((p) => p.milestone.index === index)
      .map((p) => toHex(p.blockId));

  it("applies the same milestone N again after a failed write, never a second N", async () => {
    const latest = tb.node.tangle.latestMilestone;
    await tb.block();
    failing = 1;
    await assert.rejects(tb.milestone(), /No space left on device/);
    assert.equal(tb.node.tangle.latestMilestone.index, latest.index, "nothing applied");
    const stored = milestoneBlocksOf(latest.index + 1);
    assert.equal(stored.length, 1, "milestone N is signed and stored");

    await tb.block(); // intake goes on meanwhile
    const applied = await tb.milestone();
    assert.equal(applied.index, latest.index + 1);
    assert.equal(toHex(applied.blockId), stored[0], "the same milestone N, not a new one");
    assert.equal((await tb.milestone()).index, latest.index + 2, "and the chain goes on");
    assert.deepEqual(milestoneBlocksOf(latest.index + 1), [], "N's block referenced by N + 1, no other N");
  });

  it("stops the coordinator with a clear reason when the write keeps failing; a restart applies N", async () => {
    const latest = tb.node.tangle.latestMilestone;
    failing = 3;
    await assert.rejects(tb.milestone(), /No space left on device/);
    await assert.rejects(tb.milestone(), /No space left on device/);
    await assert.rejects(tb.milestone(), {
      code: TangleErrorCode.MilestoneNotApplied,
      message: new RegExp(`milestone ${latest.index + 1} is signed and stored.*restart the node`),
    });
    const stored = milestoneBlocksOf(latest.index + 1);
    assert.equal(stored.length, 1);
    await tb.restart();
    assert.equal(tb.node.tangle.latestMilestone.index, latest.index + 1, "applied at start");
    assert.equal(toHex(tb.node.tangle.latestMilestone.blockId), stored[0]);
    assert.equal((await tb.milestone()).index, latest.index + 2, "and its coordinator goes on");
  });
});

/**
 * The same fault on real processes: a coordinator whose milestone batches fail (storage failing
 * on cue, helpers/failingDisk.ts: only the writes that wait for the disk) after it gossiped
 * milestone N, and a follower that applied N. The coordinator confirms nothing more and signs
 * no other N; restarted with a working disk it applies that same N and goes on, and the
 * follower follows it.
 */
describe("fault: a signed milestone whose batch cannot be written (real processes)", () => {
  let a: NodeProcess;
  let b: NodeProcess;
  let cue: string;
  const runtime = () => ({
    execArgv: ["--import", join(import.meta.dirname, "helpers", "failingDisk.js")],
    env: { LEDGER_NODE_TEST_FAIL_WRITES_WHEN: cue, LEDGER_NODE_TEST_FAIL_SYNC_WRITES_ONLY: "1" },
  });
  const confirmed = confirmedIndex;
  /** The milestone payload of `index` as the node serves it (signatures included). */
  const milestone = async (n: NodeProcess, index: number): Promise<string> =>
    JSON.stringify(await n.json(`/api/core/v2/milestones/by-index/${index}`));

  before(async () => {
    a = await NodeProcess.create("coordinator");
    cue = join(a.dataDir, "..", `${a.name}-${a.apiPort}-disk-fails`);
    a.start([], runtime());
    b = await NodeProcess.follower("follower", a, [await a.address()]);
    b.start();
    await waitFor(async () => ((await b.info()).status.isSynced ? true : undefined), 30_000, "the follower synced");
  });
  after(async () => {
    for (const n of [b, a]) await n?.dispose();
    await rm(cue, { force: true });
  });

  it("never signs a second milestone of one index; restarted, the coordinator applies N and the follower follows", async () => {
    await waitForMilestone(b, 3, 20_000, "a few milestones");
    await writeFile(cue, "");
    // milestone N reaches the follower, the coordinator could not write its batch
    const n = await waitFor(
      async () => {
        const [ca, cb] = [await confirmed(a), await confirmed(b)];
        return cb > ca ? cb : undefined;
      },
      20_000,
      "the follower ahead of the coordinator",
    );
    const signed = await milestone(b, n);
    const health = await a.get("/health");
    assert.equal(health.status, 503);
    assert.match(health.body.error.details, /refuses writes/);
    await new Promise((r) => setTimeout(r, 1_500));
    assert.equal(await confirmed(b), n, "no other milestone reached the follower");

    // a working disk and a restart: N is applied from its stored block, and the chain goes on
    await a.stop();
    await rm(cue);
    a.start();
    await waitForMilestone(a, n, 20_000, "the coordinator at N");
    assert.equal(await milestone(a, n), signed, "the same milestone N");
    await waitForMilestone(b, n + 3, 30_000, "the follower following the coordinator past N", { synced: true });
    for (let index = n; index <= n + 2; index++) assert.equal(await milestone(b, index), await milestone(a, index));
  });
});
