import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { decodeBlock } from "../../../src/codec/block.js";
import type { LedgerNode } from "../../../src/node/node.js";
import { Bucket, idKey, type WriteBatch } from "../../../src/storage/index.js";
import type { IntakeVerdict } from "../../../src/tangle/intake.js";
import { openTempNode, type TempNode } from "../../helpers/node.js";
import { taggedBlock } from "../../helpers/tangleBuilder.js";

/**
 * A block's duplicate lookup on disk (intake.ts `judge`) is skipped when one of its parents is
 * held, solid and not below max depth (`Tangle.heldIfStored`): such a block, if stored, is held
 * in memory. These cases check that every duplicate is still found, with and without the disk,
 * across a restart, a pruning run cut short, a drop of unconfirmable blocks not yet written, and
 * for milestone blocks.
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
  const issueUntil = async (index: number) => {
    while (node.tangle.latestMilestone.index < index) await node.coordinator.issueMilestone();
  };
  const bmd = () => node.tangle.protocolParameters.belowMaxDepth;
  /** Runs `f` with every batch the store begins meanwhile passed through `wrap` first. */
  const withBatches = async <T>(wrap: (batch: WriteBatch) => void, f: () => Promise<T>): Promise<T> => {
    const store = node.tangle.store;
    const realBatch = store.batch.bind(store);
    store.batch = () => {
      const batch = realBatch();
      wrap(batch);
      return batch;
    };
    try {
      return await f();
    } finally {
      store.batch = realBatch;
    }
  };
  /** Calls `seen` when `batch` is asked to delete `key`. */
  const onDelete = (batch: WriteBatch, key: Uint8Array, seen: () => void) => {
    const del = batch.del.bind(batch);
    batch.del = (k: Uint8Array) => {
      if (Buffer.compare(k, key) === 0) seen();
      return del(k);
    };
  };
  /** Holds `batch`'s write back until `gate` resolves, when `hold()` says so as it is written. */
  const holdWrite = (batch: WriteBatch, gate: Promise<void>, hold: (options?: { sync?: boolean }) => boolean) => {
    const write = batch.write.bind(batch);
    batch.write = ((options) =>
      hold(options) ? gate.then(() => write(options)) : write(options)) as WriteBatch["write"];
  };

  it("asks the disk when the only held parent is below max depth", async () => {
    const old = make([node.tangle.latestMilestone.blockId]);
    assert.equal(await verdictOf(old.bytes), "accepted");
    await node.coordinator.issueMilestone();
    await issueUntil(node.tangle.latestMilestone.index + bmd() + 1);
    // q approves a block milestones referenced long ago: solid, held, below max depth
    const q = make([old.id]);
    assert.equal(await verdictOf(q.bytes), "accepted");
    assert.ok(node.tangle.awaitsMilestone(q.id) && node.tangle.coneRootIndexes(q.id), "q held and solid");
    const r = make([q.id]);
    const before = diskLookups;
    assert.equal(await verdictOf(r.bytes), "accepted");
    assert.equal(diskLookups, before + 1, "a parent below max depth proves nothing: asked on disk");
  });

  it("finds a referenced block again when pruning stopped between its parent and it, and a peer sent the parent again", async () => {
    // p referenced by milestone m, its child c by the one after
    await node.coordinator.issueMilestone();
    const p = make([node.tangle.latestMilestone.blockId]);
    assert.equal(await verdictOf(p.bytes), "accepted");
    const m = (await node.coordinator.issueMilestone()).index;
    const c = make([p.id]);
    assert.equal(await verdictOf(c.bytes), "accepted");
    await node.coordinator.issueMilestone();
    const horizon = m + bmd() + 2;
    await issueUntil(horizon + bmd() + 1);
    // a pruning run to the horizon, stopped (as a node's close stops it) once p's block is deleted
    const pKey = idKey(Bucket.Block, p.id);
    await withBatches(
      (batch) => onDelete(batch, pKey, () => void node.pruner.stop()),
      () => node.pruner.pruneTo(horizon),
    );
    node = watch(await t.reopen());
    assert.equal(node.tangle.isStored(p.id), false, "p pruned");
    assert.equal(node.tangle.isStored(c.id), true, "c's milestone not pruned yet");
    assert.equal(await verdictOf(p.bytes), "accepted", "a pruned block sent again is taken in again");
    assert.equal(await verdictOf(c.bytes), "duplicate", "c is on disk, referenced");
    await node.tangle.intakeWritten();
    assert.equal(node.tangle.awaitsMilestone(c.id), false);
    assert.equal((await node.tangle.getMetadata(c.id))?.referencedByMilestoneIndex, m + 1);
  });

  it("asks the disk while a drop of unconfirmable blocks is not written", async () => {
    // o waits for a parent that never comes, until it is dropped as unconfirmable
    const o = make([randomBytes(32)]);
    assert.equal(await verdictOf(o.bytes), "accepted");
    await issueUntil(node.tangle.latestMilestone.index + bmd() + 1);
    // x approves o and p (not sent yet, a fresh block): dropped with o by the next milestone
    const p = make([node.tangle.latestMilestone.blockId]);
    const x = make([o.id, p.id]);
    assert.equal(await verdictOf(x.bytes), "accepted");
    await node.tangle.intakeWritten();
    // the milestone that drops them: its drop's batch (written behind, unsynced) held up
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let confirmed = false;
    const off = node.tangle.events.on("milestoneConfirmed", () => {
      confirmed = true;
    });
    const dropped = node.tangle.droppedCount;
    try {
      await withBatches(
        (batch) => holdWrite(batch, gate, (options) => confirmed && !options?.sync),
        () => node.coordinator.issueMilestone(),
      );
    } finally {
      off();
    }
    assert.ok(node.tangle.droppedCount - dropped >= 2);
    assert.equal(node.tangle.holds(o.id), false, "o dropped");
    assert.equal(node.tangle.holds(x.id), false, "x dropped with it");
    await new Promise((r) => setImmediate(r));
    assert.equal(node.tangle.isStored(x.id), true, "the drop's deletes are not written yet");
    try {
      // p arrives: x's parent is now held, solid and fresh; x sent again meanwhile
      assert.equal(await verdictOf(p.bytes), "accepted");
      assert.equal(await verdictOf(x.bytes), "duplicate", "on disk still: the disk was asked");
    } finally {
      release();
    }
    await node.tangle.intakeWritten();
    assert.equal(node.tangle.holds(x.id), false);
    assert.equal(node.tangle.isStored(x.id), false, "dropped from memory and disk alike");
  });
  it("does not take in again a block checked before it was stored and dropped, while the drop is not written", async () => {
    const o = make([randomBytes(32)]);
    assert.equal(await verdictOf(o.bytes), "accepted");
    await issueUntil(node.tangle.latestMilestone.index + bmd() + 1);
    const x = make([o.id, node.tangle.latestMilestone.blockId]);
    // checked now, taken later (a peer's cone answer is checked whole before any of it is taken)
    const checked = await node.intake.check(x.bytes, "peer");
    assert.equal(checked.kind, "accepted");
    assert.equal((await node.intake.submit(x.bytes, "api")).kind, "accepted");
    await node.tangle.intakeWritten();
    // the milestone that drops x with o, its deletes held back
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const xKey = idKey(Bucket.Block, x.id);
    try {
      await withBatches(
        (batch) => {
          let deletesX = false;
          onDelete(batch, xKey, () => {
            deletesX = true;
          });
          holdWrite(batch, gate, () => deletesX);
        },
        () => node.coordinator.issueMilestone(),
      );
      await new Promise((r) => setImmediate(r));
      assert.equal(node.tangle.holds(x.id), false, "x dropped");
      assert.equal(node.tangle.isStored(x.id), true, "its deletes not written");
      if (checked.kind !== "accepted") return;
      const taken = await node.intake.take(checked, "peer");
      assert.equal(taken.kind === "ignored" && taken.reason, "duplicate");
    } finally {
      release();
    }
    await node.tangle.intakeWritten();
    assert.equal(node.tangle.holds(x.id), false);
    assert.equal(node.tangle.isStored(x.id), false);
  });

  it("asks the disk for a milestone block whatever its parents", async () => {
    const ms = await node.coordinator.issueMilestone();
    const msBlock = decodeBlock((await node.tangle.getBlockBytes(ms.blockId))!);
    const fresh = make([ms.blockId]);
    assert.equal(await verdictOf(fresh.bytes), "accepted");
    assert.equal(node.tangle.heldIfStored(make([fresh.id]).block), true, "a held, solid, fresh parent decides");
    assert.equal(node.tangle.heldIfStored({ ...msBlock, parents: [fresh.id] }), false, "not for a milestone block");
  });
});
