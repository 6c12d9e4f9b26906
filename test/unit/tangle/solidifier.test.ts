import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { LedgerNode } from "../../../src/node/node.js";
import { openTempNode, type TempNode } from "../../helpers/node.js";
import { taggedBlock } from "../../helpers/tangleBuilder.js";

describe("solidifier", () => {
  let t: TempNode;
  let node: LedgerNode;
  before(async () => {
    t = await openTempNode("solid");
    node = t.node;
    await node.coordinator.issueMilestone();
  });
  after(async () => {
    await t.close();
  });

  const make = taggedBlock;

  it("solidifies blocks that arrive before their parents once the parents arrive", async () => {
    const root = node.tangle.latestMilestone.blockId;
    const a = make([root], 1);
    const b = make([a.id], 2);
    const c = make([a.id, b.id], 3);
    const d = make([c.id], 4);
    // arrival order: d, c, b, a
    for (const x of [d, c, b]) {
      assert.equal(await node.tangle.storeBlock(x.id, x.block, x.bytes, false), true);
      assert.equal(await node.tangle.isSolid(x.id), false);
    }
    assert.ok(node.tangle.missingParents().length > 0);
    await node.tangle.storeBlock(a.id, a.block, a.bytes, false);
    for (const x of [a, b, c, d]) assert.equal(await node.tangle.isSolid(x.id), true);
    assert.equal((await node.tangle.getMetadata(d.id))?.solid, true, "solid flag persisted");
    assert.deepEqual(node.tangle.missingParents(), []);
    assert.equal(
      await node.tangle.storeBlock(a.id, a.block, a.bytes, false),
      false,
      "a known block is not stored twice",
    );

    // the next milestone references all four, in TIP-2 order
    const ms = await node.coordinator.issueMilestone();
    const idx = await Promise.all([a, b, c, d].map(async (x) => (await node.tangle.getMetadata(x.id))!));
    assert.ok(idx.every((m) => m.referencedByMilestoneIndex === ms.index));
    const order = idx.map((m) => m.whiteFlagIndex);
    assert.deepEqual(
      [...order].sort((x, y) => x - y),
      order,
      "parents come before children in white-flag order",
    );
  });

  it("keeps a block with an unknown parent unsolid and out of the milestone", async () => {
    const orphan = make([new Uint8Array(32).fill(0xee)], 9);
    await node.tangle.storeBlock(orphan.id, orphan.block, orphan.bytes, false);
    await node.coordinator.issueMilestone();
    assert.equal((await node.tangle.getMetadata(orphan.id))?.referencedByMilestoneIndex, 0);
    assert.equal(await node.tangle.isSolid(orphan.id), false);
  });
});
