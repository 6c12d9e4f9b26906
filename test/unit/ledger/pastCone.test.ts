import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { toHex } from "../../../src/codec/hex.js";
import type { Block } from "../../../src/codec/types.js";
import { isLedgerError, LedgerErrorCode } from "../../../src/ledger/errors.js";
import { type ConeBlock, pastConeInWhiteFlagOrder } from "../../../src/ledger/pastCone.js";

const id = (n: number) => new Uint8Array(32).fill(n);
const block = (...parents: number[]): Block => ({ protocolVersion: 2, parents: parents.map(id), nonce: 0n });

/** A DAG given as child -> parents; 0 is the (already referenced) solid entry point. */
function lookupOf(dag: Record<number, number[]>) {
  const blocks = new Map<string, ConeBlock>();
  for (const [k, ps] of Object.entries(dag))
    blocks.set(toHex(id(Number(k))), { blockId: id(Number(k)), block: block(...ps) });
  return (blockId: Uint8Array) => (blockId[0] === 0 ? ("stop" as const) : blocks.get(toHex(blockId)));
}

describe("pastConeInWhiteFlagOrder (TIP-2)", () => {
  it("walks depth-first, parents in listed order, emitting each block after its parents, once", () => {
    //      5
    //     / \
    //    3   4
    //   / \ /
    //  1   2
    //  |   |
    //  0   0
    const lookup = lookupOf({ 1: [0], 2: [0], 3: [1, 2], 4: [2], 5: [3, 4] });
    const order = pastConeInWhiteFlagOrder([id(5)], lookup).map((c) => c.blockId[0]);
    assert.deepEqual(order, [1, 2, 3, 4, 5]);
    const fromTwoParents = pastConeInWhiteFlagOrder([id(4), id(3)], lookup).map((c) => c.blockId[0]);
    assert.deepEqual(fromTwoParents, [2, 4, 1, 3]);
  });

  it("stops at already referenced blocks and reports a missing block", () => {
    const lookup = lookupOf({ 2: [0], 3: [2, 9] });
    assert.throws(
      () => pastConeInWhiteFlagOrder([id(3)], lookup),
      (e) => isLedgerError(e, LedgerErrorCode.ConeNotSolid),
    );
    assert.deepEqual(pastConeInWhiteFlagOrder([id(0)], lookup), []);
  });

  it("handles a 20,000-deep chain without recursion", () => {
    const n = 20_000;
    const blocks = new Map<string, ConeBlock>();
    const key = (i: number) => {
      const b = new Uint8Array(32);
      new DataView(b.buffer).setUint32(0, i);
      return b;
    };
    for (let i = 1; i <= n; i++) {
      blocks.set(toHex(key(i)), { blockId: key(i), block: { protocolVersion: 2, parents: [key(i - 1)], nonce: 0n } });
    }
    const order = pastConeInWhiteFlagOrder([key(n)], (b) =>
      toHex(b) === toHex(key(0)) ? "stop" : blocks.get(toHex(b)),
    );
    assert.equal(order.length, n);
    assert.deepEqual(order[0]!.blockId, key(1));
  });
});
