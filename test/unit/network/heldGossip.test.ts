import "../../../src/network/polyfill.js";
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import type { GossipSub } from "@libp2p/gossipsub";
import { toHex } from "../../../src/codec/hex.js";
import { blockIdFromBytes } from "../../../src/codec/ids.js";
import { BlockGossip, HELD_MAX_AGE_MS, HELD_MAX_BYTES } from "../../../src/network/gossip.js";
import {
  makeBlock,
  removeNode,
  startCoordinator,
  startFollower,
  type TestNode,
  taggedData,
  until,
} from "../../helpers/network.js";

/**
 * A block published while no peer takes the blocks topic was lost to gossip for good: gossipsub
 * marks it seen and sends it to no one, then never again. A lone block (no later block names it
 * as a parent) reaches a peer no other way until a milestone references it, so a client's block
 * on a node that had just (re)started, or that was alone, was never confirmed by the network.
 */
describe("blocks published while no peer takes them", () => {
  const nodes: TestNode[] = [];
  after(async () => {
    for (const node of nodes.reverse()) await removeNode(node);
  });

  it("a block taken in while the node is alone reaches the first peer that connects", async () => {
    const a = await startCoordinator();
    nodes.push(a);
    await a.node.coordinator.issueMilestone();
    const block = await makeBlock(a.node, taggedData(1));
    assert.ok((await a.node.submitBlock(block)).isNew, "taken by A");
    const id = blockIdFromBytes(block);

    const b = await startFollower(a, [a.address]);
    nodes.push(b);
    await until(() => b.network.syncStatus().isSynced || undefined, 10_000, "B synced");
    // no milestone references the block and no block names it: only gossip carries it
    await until(async () => (await b.node.tangle.hasBlock(id)) || undefined, 10_000, "A's lone block on B");
  });
});

/** Gossipsub as BlockGossip sees it: subscribers with an open stream, and what was published. */
function fakePubsub() {
  const published: Uint8Array[] = [];
  const fake = {
    subscribers: [] as string[],
    published,
    peers: new Map<string, unknown>(),
    streamsOutbound: new Map<string, { rawStream: { writeStatus: string } }>(),
    getSubscribers: () => fake.subscribers.map((s) => ({ toString: () => s })),
    publish: async (_topic: string, bytes: Uint8Array) => {
      published.push(bytes);
      return { recipients: [] };
    },
  };
  return fake;
}

describe("the blocks held for a peer are bounded", () => {
  const handlers = {
    receive: async () => ({ kind: "ignored" }) as never,
    onInvalid: () => {},
    onStreamLost: () => {},
    awaitsMilestone: () => true,
  };
  const block = (n: number, size: number) => {
    const bytes = new Uint8Array(size);
    new DataView(bytes.buffer).setUint32(0, n);
    return bytes;
  };
  const numbers = (list: Uint8Array[]) => list.map((b) => new DataView(b.buffer).getUint32(0));

  it("keeps the newest HELD_MAX_BYTES, publishes them oldest first once a peer can take them", async () => {
    const pubsub = fakePubsub();
    const gossip = new BlockGossip(pubsub as unknown as GossipSub, "t", handlers);
    const size = 32 * 1024;
    const count = (HELD_MAX_BYTES / size) * 3;
    for (let n = 0; n < count; n++) await gossip.publish(block(n, size), true);
    assert.equal(pubsub.published.length, 0, "nothing published while no peer takes the topic");
    assert.equal(gossip.heldCount(), HELD_MAX_BYTES / size);

    // subscribed, but this node's stream to the peer is not open yet: still held
    pubsub.subscribers.push("peer");
    await gossip.publish(block(count, size), true);
    assert.equal(pubsub.published.length, 0, "held while the peer's stream is not writable");

    pubsub.streamsOutbound.set("peer", { rawStream: { writeStatus: "writable" } });
    await gossip.publish(block(count + 1, size), true);
    const expected = Array.from({ length: HELD_MAX_BYTES / size }, (_, i) => count - HELD_MAX_BYTES / size + 1 + i);
    assert.deepEqual(numbers(pubsub.published), [...expected, count + 1], "the held, oldest first, then the new one");
    assert.equal(gossip.heldCount(), 0);
  });

  it("publishes none that a milestone referenced meanwhile: those reach peers by sync", async () => {
    const pubsub = fakePubsub();
    const referenced = new Set([2]);
    const gossip = new BlockGossip(pubsub as unknown as GossipSub, "t", {
      ...handlers,
      awaitsMilestone: (blockId) => !referenced.has(idsOf.get(toHex(blockId))!),
    });
    const idsOf = new Map<string, number>();
    for (let n = 1; n <= 3; n++) {
      const b = block(n, 100);
      idsOf.set(toHex(blockIdFromBytes(b)), n);
      await gossip.publish(b, true);
    }
    pubsub.subscribers.push("peer");
    pubsub.streamsOutbound.set("peer", { rawStream: { writeStatus: "writable" } });
    const fourth = block(4, 100);
    idsOf.set(toHex(blockIdFromBytes(fourth)), 4);
    await gossip.publish(fourth, true);
    assert.deepEqual(numbers(pubsub.published), [1, 3, 4]);
  });

  it(`drops what was held longer than ${HELD_MAX_AGE_MS} ms`, async () => {
    const pubsub = fakePubsub();
    let now = 1_000_000;
    const gossip = new BlockGossip(pubsub as unknown as GossipSub, "t", handlers, () => now);
    await gossip.publish(block(1, 100), true);
    now += HELD_MAX_AGE_MS / 2;
    await gossip.publish(block(2, 100), true);
    now += HELD_MAX_AGE_MS / 2 + 1;
    pubsub.subscribers.push("peer");
    pubsub.streamsOutbound.set("peer", { rawStream: { writeStatus: "writable" } });
    await gossip.publish(block(3, 100), true);
    assert.deepEqual(numbers(pubsub.published), [2, 3]);
  });

  it("lets go of what it held too long at a heartbeat, while no peer can take it", async () => {
    const pubsub = fakePubsub();
    let now = 1_000_000;
    const gossip = new BlockGossip(pubsub as unknown as GossipSub, "t", handlers, () => now);
    await gossip.publish(block(1, 100), true);
    now += HELD_MAX_AGE_MS + 1;
    gossip.heartbeat();
    assert.equal(gossip.heldCount(), 0);
  });
});
