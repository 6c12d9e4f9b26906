import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { issueApiToken } from "../../../src/api/auth.js";
import { buildServer } from "../../../src/api/server.js";
import { encodeBlock } from "../../../src/codec/block.js";
import { toHex } from "../../../src/codec/hex.js";
import { BlockErrorCode } from "../../../src/tangle/errors.js";
import {
  ledgerState,
  makeBlock,
  removeNode,
  startCoordinator,
  startFollower,
  startNode,
  type TestNode,
  taggedData,
  until,
} from "../../helpers/network.js";
import { freePort } from "../../helpers/ports.js";
import { wallet } from "../../helpers/txBuilder.js";
import { genesisInput, payment } from "../../helpers/wallet.js";

/**
 * Catching up: a follower that is behind the network says so (info, /health), refuses blocks
 * (503), and fetches the missing milestones with their cones by index until its ledger equals
 * the coordinator's. Static peers are redialled when they come back.
 */
describe("sync over the network", () => {
  let a: TestNode;
  const others: TestNode[] = [];
  before(async () => {
    a = await startCoordinator({ p2pPort: await freePort() });
    let input = genesisInput();
    for (let i = 0; i < 30; i++) {
      if (i % 5 === 0) {
        const pay = payment(input, wallet(`w${i}`), 1_000_000n);
        await a.node.submitBlock(await makeBlock(a.node, pay.tx));
        input = pay.outputs[1]!;
      }
      await a.node.submitBlock(await makeBlock(a.node, taggedData(i)));
      await a.node.coordinator.issueMilestone();
    }
  });
  after(async () => {
    for (const n of others) await removeNode(n);
    await removeNode(a);
  });

  it("a node behind the network reports it, answers 503 to blocks and is unhealthy", async () => {
    // a window of 0: it learns how far behind it is but fetches nothing
    const c = await startFollower(a, [a.address], {}, { syncWindow: 0 });
    others.push(c);
    await until(() => c.network.syncStatus().latestMilestoneIndex === 30 || undefined, 10_000, "C hears of 30");
    assert.deepEqual(c.network.syncStatus(), {
      isSynced: false,
      latestMilestoneIndex: 30,
      confirmedMilestoneIndex: 0,
      connectedPeers: 1,
      syncedPeers: 1,
    });
    await assert.rejects(c.node.submitBlock(await makeBlock(c.node, taggedData(1))), {
      code: BlockErrorCode.NotSynced,
    });
    const app = buildServer(c.node, "silent");
    try {
      const info = (await app.inject({ url: "/api/core/v2/info" })).json();
      assert.equal(info.status.isSynced, false);
      assert.equal(info.status.isHealthy, false);
      assert.deepEqual(info.status.latestMilestone, { index: 30 });
      assert.deepEqual(info.status.confirmedMilestone, { index: 0 });
      assert.equal(info.network.peerId, c.network.peerId);
      assert.equal(info.network.connectedPeers, 1);
      const block = encodeBlock({ protocolVersion: 2, parents: [new Uint8Array(32)], nonce: 0n });
      const submitted = await app.inject({
        method: "POST",
        url: "/api/core/v2/blocks",
        headers: { "content-type": "application/vnd.iota.serializer-v1" },
        payload: Buffer.from(block),
      });
      assert.equal(submitted.statusCode, 503, submitted.body);
      assert.match(submitted.json().error.details, /not synced/);
      assert.equal((await app.inject({ url: "/health" })).statusCode, 503);
    } finally {
      await app.close();
    }
  });

  it("a node started behind catches up milestone by milestone to the same ledger, then reports synced", async () => {
    const c = others[0]!;
    await c.close();
    const again = await startNode(c.dir, { peers: [a.address] });
    others[0] = again;
    await until(() => again.node.tangle.latestMilestone.index === 30 || undefined, 20_000, "caught up");
    assert.deepEqual(await ledgerState(again.node), await ledgerState(a.node));
    assert.equal(again.network.syncStatus().isSynced, true);
    const fromA = again.network.peers().find((p) => p.id === a.network.peerId)!;
    assert.ok(fromA.gossip!.metrics.sentMilestoneRequests >= 30);
    // now it takes blocks, and they reach the coordinator
    const { blockId } = await again.node.submitBlock(await makeBlock(again.node, taggedData(500)));
    await until(async () => (await a.node.tangle.hasBlock(blockId)) || undefined, 10_000, "the block on A");
  });

  it("lists its peers on the protected peers route", async () => {
    const c = others[0]!;
    const app = buildServer(c.node, "silent");
    try {
      assert.equal((await app.inject({ url: "/api/core/v2/peers" })).statusCode, 403);
      const token = await issueApiToken(c.node.jwtSecret);
      const res = await app.inject({ url: "/api/core/v2/peers", headers: { authorization: `Bearer ${token}` } });
      assert.equal(res.statusCode, 200, res.body);
      const [peer] = res.json() as {
        id: string;
        relation: string;
        connected: boolean;
        gossip: { heartbeat: { solidMilestoneIndex: number } };
      }[];
      assert.equal(peer!.id, a.network.peerId);
      assert.equal(peer!.relation, "known");
      assert.equal(peer!.connected, true);
      assert.ok(peer!.gossip.heartbeat.solidMilestoneIndex >= 30);
      const one = await app.inject({
        url: `/api/core/v2/peers/${a.network.peerId}`,
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(one.json().id, a.network.peerId);
      // a peer ID of no peer of this node is a 404; text that is no peer ID a 400
      const none = await app.inject({
        url: "/api/core/v2/peers/12D3KooWQN1NcpQbxVGVtggwmXd5jDryujA9sWmwRFgz9A5w5RPk",
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(none.statusCode, 404);
      const malformed = await app.inject({
        url: "/api/core/v2/peers/12D3KooWnothere",
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(malformed.statusCode, 400);
    } finally {
      await app.close();
    }
  });

  it("redials a static peer that went away and came back (same identity, same port)", async () => {
    const c = others[0]!;
    const peerIdA = a.network.peerId;
    const dirA = a.dir;
    const port = Number(a.address.split("/")[4]);
    await a.close();
    await until(() => c.network.syncStatus().connectedPeers === 0 || undefined, 10_000, "A gone");
    await new Promise((r) => setTimeout(r, 400)); // a few failed redials
    a = await startNode(dirA, { p2pPort: port });
    assert.equal(a.network.peerId, peerIdA);
    await until(
      () => c.network.peers().find((p) => p.id === peerIdA && p.connected) ?? undefined,
      10_000,
      "C reconnected to A",
    );
    // and follows it again
    const ms = await a.node.coordinator.issueMilestone();
    await until(() => c.node.tangle.latestMilestone.index === ms.index || undefined, 10_000, "C follows A again");
    assert.equal(toHex(c.node.tangle.latestMilestone.milestoneId), toHex(ms.milestoneId));
  });
});
