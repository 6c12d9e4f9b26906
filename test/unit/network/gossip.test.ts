import "../../../src/network/polyfill.js";
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { multiaddr } from "@multiformats/multiaddr";
import { decodeBlock } from "../../../src/codec/block.js";
import { blockIdFromBytes } from "../../../src/codec/ids.js";
import { blocksTopic } from "../../../src/network/index.js";
import { powScore } from "../../../src/pow/index.js";
import {
  ledgerState,
  makeBlock,
  removeNode,
  startCoordinator,
  startFollower,
  type TestNode,
  taggedData,
  until,
} from "../../helpers/network.js";
import { createRoguePeer } from "../../helpers/roguePeer.js";
import { wallet } from "../../helpers/txBuilder.js";
import { genesisInput, payment } from "../../helpers/wallet.js";

/**
 * Three in-process nodes in a line, A (coordinator) - B - C (followers), with PoW required
 * (score 10): blocks travel by gossip, milestones are confirmed by the followers themselves,
 * missing parents are fetched, invalid gossip goes no further than the first node.
 */
describe("gossip between in-process nodes", () => {
  let a: TestNode;
  let b: TestNode;
  let c: TestNode;
  before(async () => {
    a = await startCoordinator({ minPowScore: 10 });
    b = await startFollower(a, [a.address]);
    c = await startFollower(a, [b.address]);
    await until(
      () => b.network.syncStatus().connectedPeers === 2 && c.network.peers().some((p) => p.gossip),
      10_000,
      "peers",
    );
    // gossipsub grafts its mesh on its heartbeat (every second)
    await new Promise((r) => setTimeout(r, 1200));
  });
  after(async () => {
    for (const n of [c, b, a]) if (n) await removeNode(n);
  });

  it("carries blocks from A to C and the followers confirm A's milestones to the same ledger", async () => {
    const alice = wallet("alice");
    const pay = payment(genesisInput(), alice, 5_000_000n);
    const txBlock = await makeBlock(a.node, pay.tx);
    await a.node.submitBlock(txBlock);
    for (let i = 0; i < 5; i++) await a.node.submitBlock(await makeBlock(a.node, taggedData(i)));
    const txBlockId = blockIdFromBytes(txBlock);
    await until(async () => (await c.node.tangle.hasBlock(txBlockId)) || undefined, 10_000, "the payment on C");
    for (let i = 0; i < 3; i++) await a.node.coordinator.issueMilestone();
    await until(
      () => c.node.tangle.latestMilestone.index === 3 && b.node.tangle.latestMilestone.index === 3,
      10_000,
      "C at 3",
    );
    const [sa, sb, sc] = await Promise.all([a, b, c].map((n) => ledgerState(n.node)));
    assert.deepEqual(sb, sa);
    assert.deepEqual(sc, sa);
    assert.ok(sa.unspent.length === 2, "the payment and its change");
    assert.equal((await c.node.tangle.getMetadata(txBlockId))?.inclusionState, 1, "included on C");
    // C heard of the blocks from B only
    const fromB = c.network.peers().find((p) => p.id === b.network.peerId)!;
    assert.ok(fromB.gossip!.metrics.newBlocks >= 6);
    assert.equal(fromB.relation, "known");
  });

  it("fetches a missing parent from a peer instead of waiting for it", async () => {
    // B stores a block without gossiping it, then gossips a child of it
    const parent = await makeBlock(b.node, taggedData(100));
    const parentId = blockIdFromBytes(parent);
    await b.node.tangle.storeBlock(parentId, decodeBlock(parent), parent, false);
    const child = await makeBlock(b.node, taggedData(101), [parentId]);
    await b.node.submitBlock(child);
    const childId = blockIdFromBytes(child);
    await until(async () => (await c.node.tangle.isSolid(childId)) || undefined, 10_000, "the child solid on C");
    await until(async () => (await a.node.tangle.isSolid(childId)) || undefined, 10_000, "the child solid on A");
    assert.ok(await c.node.tangle.hasBlock(parentId));
    const toB = c.network.peers().find((p) => p.id === b.network.peerId)!;
    assert.ok(toB.gossip!.metrics.sentBlockRequests >= 1);
    // the coordinator references it, and the followers confirm that too
    const ms = await a.node.coordinator.issueMilestone();
    await until(() => c.node.tangle.latestMilestone.index === ms.index, 10_000, "C confirms");
    assert.equal((await c.node.tangle.getMetadata(parentId))?.referencedByMilestoneIndex, ms.index);
  });

  it("drops invalid gossip at the first node, which scores the sender down; nothing reaches C", async () => {
    const rogue = await createRoguePeer();
    try {
      const topic = blocksTopic("dev");
      const pubsub = rogue.node.services.pubsub;
      await rogue.node.dial(multiaddr(b.address));
      await until(() => pubsub.getSubscribers(topic).length > 0 || undefined, 10_000, "subscribed");
      const unmined = (await makeBlock(a.node, taggedData(200))).slice();
      unmined.fill(0, unmined.length - 8);
      assert.ok(powScore(unmined) < 10, "nonce 0: below the network's minimum");
      await pubsub.publish(topic, Uint8Array.of(1, 2, 3));
      await pubsub.publish(topic, unmined);
      const id = rogue.id;
      const seen = await until(
        () => {
          const p = b.network.peers().find((x) => x.id === id);
          return p?.gossip?.metrics.invalidMessages === 2 ? p : undefined;
        },
        10_000,
        "B counts two invalid messages",
      );
      assert.ok(
        seen.score <= -39.9 && seen.score >= -40,
        `score ${seen.score}: 20 per invalid message, slowly recovering`,
      );
      assert.equal(seen.relation, "unknown");
      assert.equal(await c.node.tangle.hasBlock(blockIdFromBytes(unmined)), false);
      for (const p of c.network.peers())
        assert.equal(p.gossip?.metrics.invalidMessages ?? 0, 0, "C saw nothing invalid");
    } finally {
      await rogue.stop();
    }
  });
});
