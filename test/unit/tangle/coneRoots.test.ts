import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Block } from "../../../src/codec/types.js";
import type { LedgerNode } from "../../../src/node/node.js";
import { type ConeRootEntry, recomputeConeRoots } from "../../../src/tangle/coneRoots.js";
import { openTempNode, type TempNode } from "../../helpers/node.js";
import { taggedBlock } from "../../helpers/tangleBuilder.js";

describe("recomputeConeRoots (URTS cone root indexes)", () => {
  const block = (milestoneIndex?: number): Block =>
    milestoneIndex === undefined
      ? { protocolVersion: 2, parents: [], nonce: 0n }
      : ({
          protocolVersion: 2,
          parents: [],
          nonce: 0n,
          payload: { type: 7, index: milestoneIndex },
        } as unknown as Block);
  const entry = (key: string, parentKeys: string[], solid = true, b = block()): ConeRootEntry => ({
    key,
    blockId: new Uint8Array(32),
    block: b,
    parentKeys,
    solid,
    ycri: 1,
    ocri: 1,
    coneRootPass: 0,
    settledParents: 0,
    settledOcri: Number.MAX_SAFE_INTEGER,
  });

  it("roots each unreferenced block at the milestones its parents were referenced by, through unreferenced parents", () => {
    // c's parents: b (unreferenced) and the entry point "sep" (3); b's parent a, a's parent "r5" (referenced by 5)
    const map = new Map<string, ConeRootEntry>();
    // children first: the walk must reach the parents before it settles a child
    for (const e of [
      entry("c", ["b", "sep"]),
      entry("b", ["a"]),
      entry("a", ["r5"]),
      entry("unsolid", ["a"], false),
      entry("m", ["a"], true, block(9)),
      entry("old", ["gone"]),
    ]) {
      map.set(e.key, e);
    }
    const referencedAt = (k: string) => ({ r5: 5, sep: 3 })[k];
    const updated: string[] = [];
    recomputeConeRoots(map, 1, referencedAt, (e) => updated.push(e.key));
    const roots = (k: string) => [map.get(k)!.ycri, map.get(k)!.ocri];
    assert.deepEqual(roots("a"), [5, 5]);
    assert.deepEqual(roots("b"), [5, 5]);
    assert.deepEqual(roots("c"), [5, 3], "youngest of 5 and 3, oldest of them");
    assert.deepEqual(roots("unsolid"), [1, 1], "an unsolid block is left alone");
    assert.deepEqual(roots("m"), [1, 1], "a milestone block roots at its own index");
    assert.deepEqual(roots("old"), [1, 1], "a parent no longer held keeps the stored value");
    assert.deepEqual(updated.sort(), ["a", "b", "c"]);
    // a later pass with a parent referenced again higher: indexes only move up
    recomputeConeRoots(
      map,
      2,
      (k) => ({ r5: 7, sep: 3 })[k],
      () => {},
    );
    assert.deepEqual(roots("c"), [7, 3]);
  });
  it("counts a parent referenced before the block became solid when memory has forgotten it", () => {
    // e: parent 0 referenced by 2 (settled when e became solid, no longer in memory), parent 1
    // unreferenced and referenced since by 20; f: the same, but its parent 0 was referenced after
    // f became solid (not settled) and is forgotten too
    const fresh = entry("fresh", ["r20"]);
    const e = { ...entry("e", ["gone", "fresh"]), ocri: 2, settledParents: 0b01, settledOcri: 2 };
    const f = { ...entry("f", ["gone", "fresh"]), ocri: 10 };
    const map = new Map<string, ConeRootEntry>([fresh, e, f].map((x) => [x.key, x]));
    recomputeConeRoots(
      map,
      1,
      (k) => ({ r20: 20 })[k],
      () => {},
    );
    assert.deepEqual([map.get("fresh")!.ycri, map.get("fresh")!.ocri], [20, 20]);
    assert.equal(map.get("e")!.ocri, 2, "its settled parent still roots it at 2");
    assert.equal(map.get("e")!.ycri, 20);
    assert.equal(map.get("f")!.ocri, 10, "an index forgotten is not below the block's oldest root: it stays the bound");
  });
});

/** The same through a node: the tangle fills in what its blocks' parents were when they became solid. */
describe("cone roots after a restart", () => {
  let t: TempNode;
  let node: LedgerNode;
  before(async () => {
    t = await openTempNode("cone-roots-restart");
    node = t.node;
    await node.coordinator.issueMilestone();
  });
  after(async () => {
    await t.close();
  });

  it("keeps a block rooted at a parent referenced before the restart once its other parent is referenced", async () => {
    const submit = async (b: { bytes: Uint8Array }) => (await node.intake.submit(b.bytes, "peer")).kind;
    const a = taggedBlock([node.tangle.latestMilestone.blockId], 1);
    assert.equal(await submit(a), "accepted");
    await node.coordinator.issueMilestone();
    const k = (await node.tangle.getMetadata(a.id))!.referencedByMilestoneIndex;
    const bmd = node.tangle.protocolParameters.belowMaxDepth;
    while (node.tangle.latestMilestone.index < k + bmd + 2) await node.coordinator.issueMilestone();
    node = await t.reopen(); // memory forgets which milestone referenced a
    const b = taggedBlock([node.tangle.latestMilestone.blockId], 2);
    const e = taggedBlock([a.id, b.id], 3);
    assert.equal(await submit(b), "accepted");
    assert.equal(await submit(e), "accepted");
    assert.equal(node.tangle.coneRootIndexes(e.id)?.ocri, k);
    assert.equal(await node.tangle.isBelowMaxDepth(e.id), true);
    await node.coordinator.issueMilestone(); // references b, not e (below max depth)
    assert.equal(node.tangle.awaitsMilestone(b.id), false);
    assert.equal(node.tangle.coneRootIndexes(e.id)?.ocri, k, "still rooted at a");
    assert.equal(await node.tangle.isBelowMaxDepth(e.id), true);
    assert.equal(node.tangle.heldIfStored(taggedBlock([e.id], 4).block), false);
  });
});
