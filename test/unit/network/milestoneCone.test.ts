import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { parentsOfBlockBytes as parentsOf } from "../../../src/codec/block.js";
import { toHex } from "../../../src/codec/hex.js";
import { blockIdFromBytes } from "../../../src/codec/ids.js";
import { milestoneCone } from "../../../src/network/index.js";
import { Bucket, encodeU32, NodeStateKey, nodeStateKey } from "../../../src/storage/index.js";
import { taggedData } from "../../helpers/network.js";
import { TangleBuilder } from "../../helpers/tangleBuilder.js";

describe("the cone a node sends for a milestone request", () => {
  let tb: TangleBuilder;
  const referencedBy = new Map<string, number>();
  before(async () => {
    tb = await TangleBuilder.create();
    for (let m = 1; m <= 3; m++) {
      const x = await tb.block(taggedData(m * 10));
      const y = await tb.block(taggedData(m * 10 + 1), [x]);
      await tb.block(taggedData(m * 10 + 2), [x, y]);
      await tb.milestone();
    }
    for (let m = 1; m <= 3; m++) {
      // every block the milestone referenced, from the stored metadata
      for await (const key of tb.node.store.scanKeys({ prefix: Uint8Array.of(Bucket.BlockMetadata) })) {
        const meta = await tb.metadata(key.subarray(1));
        if (meta.referencedByMilestoneIndex === m) referencedBy.set(toHex(key.subarray(1)), m);
      }
    }
  });
  after(() => tb.dispose());

  it("holds exactly the blocks the milestone referenced, parents first, then the milestone block", async () => {
    for (let m = 1; m <= 3; m++) {
      const cone = (await milestoneCone(tb.node.db, m))!;
      const ids = cone.map((b) => toHex(blockIdFromBytes(b)));
      const milestoneBlock = ids.pop()!;
      assert.equal((await tb.metadata(blockIdFromBytes(cone.at(-1)!))).milestone, true);
      assert.notEqual(referencedBy.get(milestoneBlock), m, "the milestone block is referenced by the next one");
      assert.deepEqual(
        [...ids].sort(),
        [...referencedBy.entries()]
          .filter(([, i]) => i === m)
          .map(([id]) => id)
          .sort(),
        `cone ${m}`,
      );
      const seen = new Set<string>();
      for (const bytes of cone) {
        for (const p of parentsOf(bytes)) {
          if (referencedBy.get(toHex(p)) === m) assert.ok(seen.has(toHex(p)), "a parent in the cone comes first");
        }
        seen.add(toHex(blockIdFromBytes(bytes)));
      }
    }
  });

  it("is undefined for index 0, an unknown milestone and one at or below the pruning index", async () => {
    assert.equal(await milestoneCone(tb.node.db, 0), undefined);
    assert.equal(await milestoneCone(tb.node.db, 4), undefined);
    await tb.node.store.put(nodeStateKey(NodeStateKey.PruningIndex), encodeU32(2));
    assert.equal(await milestoneCone(tb.node.db, 2), undefined);
    assert.ok(await milestoneCone(tb.node.db, 3));
  });
});
