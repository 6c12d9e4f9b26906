import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { decodeBlock } from "../../../src/codec/block.js";
import { toHex } from "../../../src/codec/hex.js";
import { type Block, type MilestonePayload, PayloadType } from "../../../src/codec/types.js";
import { networkConfigPath } from "../../../src/network/index.js";
import { type LedgerNode, semanticValidator } from "../../../src/node/node.js";
import { confirmMilestoneBlock } from "../../../src/tangle/confirmMilestone.js";
import { UNCONFIRMABLE_MARGIN } from "../../../src/tangle/tangle.js";
import { type UnconfirmableEntry, unconfirmableBlocks } from "../../../src/tangle/unconfirmable.js";
import { ledgerState, makeBlock, taggedData } from "../../helpers/network.js";
import { openNode, removeDir, tempDir } from "../../helpers/node.js";

const entry = (key: string, parentKeys: string[], arrivalIndex: number, milestone = false): UnconfirmableEntry => ({
  key,
  parentKeys,
  arrivalIndex,
  milestone,
});
const held = (...entries: UnconfirmableEntry[]) => new Map(entries.map((e) => [e.key, e]));

describe("unconfirmable blocks: which are dropped", () => {
  it("drops an old block with every block approving it, whatever order they were admitted in", () => {
    // the child was admitted first (it waited for its parent) and is young itself
    const blocks = held(entry("child", ["old"], 9), entry("grandchild", ["child", "x"], 9), entry("old", ["r"], 1));
    assert.deepEqual([...unconfirmableBlocks(blocks, 2)].sort(), ["child", "grandchild", "old"]);
  });

  it("keeps a held milestone's past cone, however old its blocks", () => {
    const blocks = held(
      entry("m", ["a", "b"], 30, true),
      entry("a", ["c"], 0),
      entry("c", ["referenced"], 0),
      entry("b", ["referenced"], 0),
      entry("lazy", ["referenced"], 0),
      entry("onLazy", ["lazy", "a"], 30),
    );
    assert.deepEqual([...unconfirmableBlocks(blocks, 5)].sort(), ["lazy", "onLazy"]);
  });

  it("drops nothing when nothing is old enough", () => {
    assert.equal(unconfirmableBlocks(held(entry("a", [], 6), entry("b", ["a"], 9)), 5).size, 0);
  });
});

/**
 * A follower that receives a milestone's cone long before it can confirm it (catching up from
 * far behind, or re-admitting everything at a restart) still confirms it to the coordinator's
 * roots: the cone is not dropped as unconfirmable while the milestone is held.
 */
describe("unconfirmable blocks: a follower catching up keeps the cone of a held milestone", () => {
  const COUNT = 15 + UNCONFIRMABLE_MARGIN + 3; // the dev network's below-max-depth, and past it
  let coordinator: LedgerNode;
  const dirs: string[] = [];
  /** The coordinator's blocks in the order it made them: a tagged block, then its milestone. */
  const made: { id: Uint8Array; bytes: Uint8Array; block: Block }[] = [];
  const dir = async (name: string) => {
    const d = await tempDir(`unconfirmable-${name}`);
    dirs.push(d);
    return d;
  };
  const openFollower = async (d: string) => openNode(d, { networkConfig: networkConfigPath(dirs[0]!) });
  const store = async (node: LedgerNode, b: (typeof made)[number]) =>
    node.tangle.storeBlock(b.id, b.block, b.bytes, b.block.payload?.type === PayloadType.Milestone);
  const confirmAll = async (node: LedgerNode) => {
    for (const b of made) {
      if (b.block.payload?.type !== PayloadType.Milestone) continue;
      if (b.block.payload.index <= node.tangle.latestMilestone.index) continue;
      assert.equal(await node.tangle.isSolid(b.id), true, `milestone ${b.block.payload.index} solid`);
      await confirmMilestoneBlock(node.tangle, b.id, b.block.payload as MilestonePayload, semanticValidator);
    }
  };

  before(async () => {
    coordinator = await openNode(await dir("coo"));
    for (let i = 0; i < COUNT; i++) {
      const { blockId } = await coordinator.submitBlock(await makeBlock(coordinator, taggedData(i)));
      const ms = await coordinator.coordinator.issueMilestone();
      for (const id of [blockId, ms.blockId]) {
        const bytes = (await coordinator.tangle.getBlockBytes(id))!;
        made.push({ id, bytes, block: decodeBlock(bytes) });
      }
    }
  });
  after(async () => {
    await coordinator.close();
    for (const d of dirs) await removeDir(d);
  });

  it("a cone that came before every milestone, at ledger index 0", async () => {
    const follower = await openFollower(await dir("early"));
    try {
      const lastTagged = made[made.length - 2]!;
      await store(follower, lastTagged); // gossiped while the follower was still at 0
      for (const b of made) if (b !== lastTagged) await store(follower, b);
      await confirmAll(follower);
      assert.equal(follower.tangle.latestMilestone.index, COUNT);
      assert.deepEqual(await ledgerState(follower), await ledgerState(coordinator));
      assert.equal(toHex(follower.tangle.latestMilestone.blockId), toHex(made[made.length - 1]!.id));
    } finally {
      await follower.close();
    }
  });

  it("every block re-admitted at a restart before any milestone is confirmed", async () => {
    const d = await dir("restart");
    const first = await openFollower(d);
    for (const b of made) await store(first, b);
    await first.close();
    const follower = await openFollower(d);
    try {
      // the solid milestones found at start are applied before the node opens (components.ts)
      await confirmAll(follower);
      assert.equal(follower.tangle.latestMilestone.index, COUNT);
      assert.deepEqual(await ledgerState(follower), await ledgerState(coordinator));
    } finally {
      await follower.close();
    }
  });
});
