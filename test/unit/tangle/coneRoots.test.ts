import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Block } from "../../../src/codec/types.js";
import { type ConeRootEntry, recomputeConeRoots } from "../../../src/tangle/coneRoots.js";

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
});
