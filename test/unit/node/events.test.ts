import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { serializeAddressBytes } from "../../../src/codec/address.js";
import { toHex } from "../../../src/codec/hex.js";
import { OutputType } from "../../../src/codec/types.js";
import { IndexedField, milestoneBlocks } from "../../../src/indexer/index.js";
import { Bucket, InclusionState } from "../../../src/storage/index.js";
import { NODE_EVENT_NAMES, type NodeEventMap, type NodeEventName } from "../../../src/tangle/events.js";
import { TangleBuilder } from "../../helpers/tangleBuilder.js";
import { wallet } from "../../helpers/txBuilder.js";
import { payment } from "../../helpers/wallet.js";

/**
 * The node's spine, without its HTTP server: the indexes are wired in src/node and kept in each
 * milestone's batch, and the one event stream tells a block's and a milestone's life in order.
 */
describe("a node without its HTTP server", () => {
  let tb: TangleBuilder;
  const seen: { name: NodeEventName; event: NodeEventMap[NodeEventName] }[] = [];
  before(async () => {
    tb = await TangleBuilder.create();
    for (const name of NODE_EVENT_NAMES) tb.node.events.on(name, (event) => seen.push({ name, event }));
  });
  after(async () => {
    await tb.dispose();
  });

  it("keeps every index in step with the ledger, milestone by milestone", async () => {
    const alice = wallet("alice");
    const pay = payment(tb.genesis(), alice, 1_000_000n);
    const blockId = await tb.block(pay.tx);
    const ms = await tb.milestone();
    const meta = await tb.metadata(blockId);
    assert.equal(meta?.inclusionState, InclusionState.Included, `conflict reason ${meta?.conflictReason}`);

    // the indexer: alice's output listed at the milestone's ledger index, no rebuild needed
    assert.equal(tb.node.indexer.isSynced, true);
    const page = await tb.node.indexer.outputs({
      type: OutputType.Basic,
      fields: [{ field: IndexedField.Address, value: serializeAddressBytes(alice.address) }],
      pageSize: 10,
    });
    assert.equal(page.ledgerIndex, ms.index);
    assert.deepEqual(page.items.map(toHex), [toHex(pay.outputs[0]!.outputId)]);
    // the explorer's milestone blocks, written in the milestone's batch
    const listed = await milestoneBlocks(tb.node.db, ms.index, { reverse: false, limit: 100 });
    assert.ok(listed.some((b) => toHex(b.blockId) === toHex(blockId)));
    // the address ledger's marker names the milestone (its buckets were written, not scanned)
    const state = await tb.node.store.get(Uint8Array.of(Bucket.AddressBalanceState));
    assert.ok(state);
    assert.equal(new DataView(state.buffer, state.byteOffset).getUint32(4, true), ms.index);
  });

  it("tells a block's life on the one event stream, in order", async () => {
    seen.length = 0;
    const blockId = await tb.block();
    const ms = await tb.milestone();
    const of = (name: NodeEventName) => seen.filter((s) => s.name === name).map((s) => s.event);
    const key = toHex(blockId);
    const order = seen
      .filter((s) => "blockId" in s.event && toHex(s.event.blockId) === key)
      .map((s) => s.name)
      .filter((name) => name !== "latestMilestone");
    assert.deepEqual(order, ["blockTaken", "blockSolid", "blockReferenced"]);
    const taken = of("blockTaken")[0] as NodeEventMap["blockTaken"];
    assert.equal(taken.source, "api");
    const referenced = of("blockReferenced") as NodeEventMap["blockReferenced"][];
    assert.deepEqual(
      referenced.map((r) => r.whiteFlagIndex),
      referenced.map((_, i) => i),
      "in white-flag order",
    );
    assert.ok(referenced.every((r) => r.milestoneIndex === ms.index));
    const confirmed = of("milestoneConfirmed") as NodeEventMap["milestoneConfirmed"][];
    assert.equal(confirmed.length, 1);
    assert.equal(confirmed[0]!.milestone.index, ms.index);
    assert.equal(seen.at(-1)!.name, "milestoneConfirmed", "the milestone last, after its blocks");
    // the coordinator's milestone block was announced as taken and as the latest milestone
    const latest = of("latestMilestone") as NodeEventMap["latestMilestone"][];
    assert.deepEqual(
      latest.map((l) => l.index),
      [ms.index],
    );
    assert.ok(
      (of("blockTaken") as NodeEventMap["blockTaken"][]).some(
        (t) => t.source === "coordinator" && toHex(t.blockId) === toHex(ms.blockId),
      ),
    );
  });

  it("keeps confirming when a listener throws, and reports the failure", async () => {
    const failures: string[] = [];
    const previous = tb.node.events.onListenerError;
    tb.node.events.onListenerError = (_e, name) => failures.push(name);
    const off = tb.node.events.on("milestoneConfirmed", () => {
      throw new Error("a broken subscriber");
    });
    try {
      const before = tb.node.tangle.latestMilestone.index;
      const ms = await tb.milestone();
      assert.equal(ms.index, before + 1);
      assert.deepEqual(failures, ["milestoneConfirmed"]);
    } finally {
      off();
      tb.node.events.onListenerError = previous;
    }
  });
});
