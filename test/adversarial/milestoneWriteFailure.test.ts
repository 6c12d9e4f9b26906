import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { toHex } from "../../src/codec/hex.js";
import { TangleErrorCode } from "../../src/tangle/errors.js";
import type { LedgerIndex } from "../../src/tangle/events.js";
import { TangleBuilder } from "../helpers/tangleBuilder.js";

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
