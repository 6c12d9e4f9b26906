import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { LedgerNode } from "../../../src/node/node.js";
import type { IntakeVerdict } from "../../../src/tangle/intake.js";
import { openTempNode, type TempNode } from "../../helpers/node.js";
import { taggedBlock } from "../../helpers/tangleBuilder.js";

/**
 * A block's duplicate lookup on disk (intake.ts `judge`) is skipped when one of its parents
 * awaits a milestone (`Tangle.heldIfStored`): such a block, if stored, is held in memory. These
 * cases check that every duplicate is still found, with and without the disk, across a restart.
 */
describe("the duplicate lookup on disk", () => {
  let t: TempNode;
  let node: LedgerNode;
  /** Disk lookups the intake made (`Tangle.isStored`) since the node was (re)opened. */
  let diskLookups = 0;
  const watch = (n: LedgerNode) => {
    diskLookups = 0;
    const isStored = n.tangle.isStored.bind(n.tangle);
    n.tangle.isStored = (blockId) => {
      diskLookups++;
      return isStored(blockId);
    };
    return n;
  };
  /** A block a milestone references (the first milestone's, referenced by the second). */
  let referenced: Uint8Array;
  before(async () => {
    t = await openTempNode("duplicate-lookup");
    node = watch(t.node);
    referenced = (await node.coordinator.issueMilestone()).blockId;
    await node.coordinator.issueMilestone();
  });
  after(async () => {
    await t.close();
  });

  let tag = 0;
  const make = (parents: Uint8Array[]) => taggedBlock(parents, ++tag);
  const verdictOf = async (bytes: Uint8Array): Promise<IntakeVerdict["kind"] | string> => {
    const v = await node.intake.submit(bytes, "peer");
    return v.kind === "ignored" ? v.reason : v.kind;
  };

  it("asks the disk for a block whose parents milestones reference, not for one whose parent awaits one", async () => {
    const a = make([referenced]);
    diskLookups = 0;
    assert.equal(await verdictOf(a.bytes), "accepted");
    assert.equal(diskLookups, 1, "its parent is referenced: asked on disk");
    const b = make([a.id]);
    assert.equal(await verdictOf(b.bytes), "accepted");
    assert.equal(diskLookups, 1, "its parent awaits a milestone: new unless held, the disk not asked");
    assert.equal(await verdictOf(b.bytes), "duplicate", "held: found in memory");
    assert.equal(await verdictOf(a.bytes), "duplicate");
    assert.equal(diskLookups, 1);
  });

  it("finds blocks no milestone references across a restart without the disk: they are taken in again", async () => {
    const c = make([node.tangle.latestMilestone.blockId]);
    const d = make([c.id]);
    assert.equal(await verdictOf(c.bytes), "accepted");
    assert.equal(await verdictOf(d.bytes), "accepted");
    await node.tangle.intakeWritten();
    node = watch(await t.reopen());
    assert.equal(node.tangle.awaitsMilestone(d.id), true);
    assert.equal(await verdictOf(d.bytes), "duplicate");
    assert.equal(await verdictOf(c.bytes), "duplicate");
    assert.equal(diskLookups, 0);
  });

  it("finds referenced blocks no longer held on disk", async () => {
    const e = make([node.tangle.latestMilestone.blockId]);
    const f = make([e.id]);
    const g = make([e.id, f.id]);
    for (const x of [e, f, g]) assert.equal(await verdictOf(x.bytes), "accepted");
    await node.coordinator.issueMilestone();
    assert.equal(node.tangle.awaitsMilestone(g.id), false);
    // a restart forgets the recently referenced blocks: only the disk knows these now
    node = watch(await t.reopen());
    assert.equal(node.tangle.holds(g.id), false);
    for (const x of [g, f, e]) assert.equal(await verdictOf(x.bytes), "duplicate");
    assert.equal(diskLookups, 3);
    // a new child of g, whose parent is referenced, is new after its lookup
    const h = make([g.id]);
    assert.equal(await verdictOf(h.bytes), "accepted");
    assert.equal(diskLookups, 4);
  });
});
