import "../../../src/network/polyfill.js";
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { peerIdFromString } from "@libp2p/peer-id";
import { blockIdFromBytes } from "../../../src/codec/ids.js";
import { blocksTopic, STREAM_LOST_HEARTBEATS } from "../../../src/network/gossip.js";
import type { NetworkHost } from "../../../src/network/host.js";
import {
  makeBlock,
  removeNode,
  startCoordinator,
  startFollower,
  type TestNode,
  taggedData,
  until,
} from "../../helpers/network.js";

/** The fields of gossipsub's implementation the node's repair reads (src/network/gossip.ts). */
interface OutboundStream {
  rawStream: { writeStatus: string; abort(e: Error): void };
}
interface Streams {
  peers: Map<string, unknown>;
  streamsOutbound: Map<string, OutboundStream>;
}

/** A node's libp2p host: the network keeps it to itself, a test reaches in. */
function hostOf(n: TestNode): NetworkHost {
  return (n.network as unknown as { host: NetworkHost }).host;
}
function streamsOf(n: TestNode): Streams {
  return hostOf(n).services.pubsub as unknown as Streams;
}

/**
 * Gossipsub writes to a peer over one outbound stream per peer and opens it only when the peer
 * connects. Two ways it lost that stream while the connection lived on, found when a follower
 * restarted at once took no blocks over gossip: the stream's opening finished just after the
 * peer's connection closed, and the closed stream, stored after the peer was cleared, kept the
 * next connection from opening one; or a stream closed under a live connection. Either way
 * nothing this node sent reached the peer (not its subscription, so the peer never sent it a
 * block either). The network forgets a closed stream when the peer connects, and hangs up a
 * peer whose stream stays closed, so the next connection opens new ones.
 */
describe("gossip streams lost while the connection lives on", () => {
  let a: TestNode;
  let b: TestNode;
  let n = 0;
  let bConnections = 0;

  /** A block submitted on `from` reaches `to` by gossip (nothing else carries a lone block). */
  const carried = async (from: TestNode, to: TestNode, what: string) => {
    const block = await makeBlock(from.node, taggedData(1_000 + n++));
    assert.ok((await from.node.submitBlock(block)).isNew, `${what}: taken by its node`);
    const id = blockIdFromBytes(block);
    await until(async () => (await to.node.tangle.hasBlock(id)) || undefined, 10_000, what);
  };
  /** Each knows the other takes the blocks topic: what either publishes reaches the other. */
  const subscribed = (x: TestNode, y: TestNode) =>
    hostOf(x)
      .services.pubsub.getSubscribers(blocksTopic("dev"))
      .some((p) => p.toString() === y.network.peerId);
  const gossipBothWays = async (when: string) => {
    await until(() => (subscribed(a, b) && subscribed(b, a)) || undefined, 10_000, `A and B subscribed (${when})`);
    await carried(b, a, `B's block on A (${when})`);
    await carried(a, b, `A's block on B (${when})`);
  };

  before(async () => {
    a = await startCoordinator();
    hostOf(a).addEventListener("peer:connect", () => bConnections++);
    b = await startFollower(a, [a.address]);
    await until(() => streamsOf(a).peers.has(b.network.peerId) || undefined, 10_000, "B in A's gossip");
    // a follower takes clients' blocks once synced: at A's first milestone
    await a.node.coordinator.issueMilestone();
    await until(() => b.network.syncStatus().isSynced || undefined, 10_000, "B synced");
    await gossipBothWays("at first");
  });
  after(async () => {
    for (const node of [b, a]) if (node) await removeNode(node);
  });

  it("a closed stream left from the peer's previous connection does not stop the next one's", async () => {
    const bId = b.network.peerId;
    const pubsub = streamsOf(a);
    const stale = pubsub.streamsOutbound.get(bId)!;
    assert.equal(stale.rawStream.writeStatus, "writable");
    const before = bConnections;
    await hostOf(a).hangUp(peerIdFromString(bId));
    // what the race leaves: the peer cleared, then its closed stream stored (B redials 100 ms on)
    await until(() => !pubsub.peers.has(bId) || undefined, 5_000, "B cleared from A's gossip");
    assert.notEqual(stale.rawStream.writeStatus, "writable");
    pubsub.streamsOutbound.set(bId, stale);

    await until(() => pubsub.peers.has(bId) || undefined, 10_000, "B back in A's gossip");
    await gossipBothWays("after B's new connection");
    // the new connection's own stream, not a hang-up by the check of every heartbeat
    assert.equal(bConnections, before + 1, "B connected once more, and stayed");
    assert.notEqual(pubsub.streamsOutbound.get(bId), stale);
  });

  it("a stream closed under a live connection: the peer is hung up and its new connection gossips", async () => {
    const bId = b.network.peerId;
    const pubsub = streamsOf(a);
    const before = bConnections;
    pubsub.streamsOutbound.get(bId)!.rawStream.abort(new Error("closed under the connection"));
    // found at STREAM_LOST_HEARTBEATS heartbeats running (one a second), then B redials
    await until(() => bConnections > before || undefined, (STREAM_LOST_HEARTBEATS + 5) * 1000, "B connected again");
    await until(() => pubsub.peers.has(bId) || undefined, 10_000, "B back in A's gossip");
    await gossipBothWays("after the hang-up");
  });
});
