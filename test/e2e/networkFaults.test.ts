import "../../src/network/polyfill.js";
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { multiaddr } from "@multiformats/multiaddr";
import * as lp from "it-length-prefixed";
import { encodeBlock } from "../../src/codec/block.js";
import { fromHex } from "../../src/codec/hex.js";
import { blocksTopic, requestProtocolId } from "../../src/network/index.js";
import { powScore, withNonce } from "../../src/pow/index.js";
import type { Json } from "../helpers/iota.js";
import { confirmedIndex, waitForMilestone, waitForReferenced, waitForSynced } from "../helpers/milestones.js";
import { client, type NodeProcess, startNodes } from "../helpers/nodeProcess.js";
import { createRoguePeer } from "../helpers/roguePeer.js";
import { waitFor } from "../helpers/waitFor.js";
import { DevWallet } from "../helpers/wallet.js";

/**
 * Issue #7's fault tests against real node processes: a follower killed with SIGKILL while the
 * coordinator issues 10 milestones catches up after its restart and agrees with the others; a
 * peer that sends malformed bytes and blocks with too little PoW is scored down and finally
 * banned, while the network carries on.
 */
describe("faults: a follower killed and restarted, a misbehaving peer (real processes)", () => {
  let a: NodeProcess;
  let b: NodeProcess;
  let c: NodeProcess;
  let tokenC = "";

  const confirmed = confirmedIndex;

  before(async () => {
    // C dials both A and B
    [a, b, c] = await startNodes(["a", "b", "c"], [[], [0], [0, 1]]);
    await waitFor(async () => ((await c.info()).status.isSynced ? true : undefined), 30_000, "C synced");
  });

  after(async () => {
    for (const n of [c, b, a]) await n?.dispose();
  });

  it("a follower killed for 10 milestones syncs after its restart and agrees", async () => {
    const wallet = new DevWallet(client(a));
    await wallet.pay(1);
    const killedAt = (await waitForMilestone(c, 3, 20_000, "C at milestone 3")).status.confirmedMilestone.index;
    assert.equal(await c.stop("SIGKILL"), null);
    // while C is down: more payments and 10 milestones
    for (let n = 2; n <= 4; n++) await wallet.pay(n);
    await waitForMilestone(a, killedAt + 10, 20_000, "10 more milestones");
    tokenC = c.token();

    c.start();
    const behind = await waitFor(async () => (await c.info()).status, 20_000, "C answering after the restart");
    assert.ok(behind.confirmedMilestone.index >= killedAt, "the ledger survived the kill");
    await waitForSynced(c, a, 30_000, "C synced again");
    const upTo = await confirmed(c);
    assert.ok(upTo >= killedAt + 10);
    for (let index = 1; index <= upTo; index++) {
      const [onA, onC] = await Promise.all([a, c].map((n) => n.json(`/api/core/v2/milestones/by-index/${index}`)));
      assert.deepEqual(onC, onA, `milestone ${index}`);
    }
    for (const id of wallet.created) {
      const [onA, onC] = await Promise.all([a, c].map((n) => client(n).output(id)));
      delete onA.metadata.ledgerIndex; // each node's own now
      delete onC.metadata.ledgerIndex;
      assert.deepEqual(onC, onA, id);
    }
    // its peers, with a token of its own
    const peers = await waitFor(
      async () => {
        const r = await c.get("/api/core/v2/peers", tokenC);
        return r.status === 200 && (r.body as unknown as Json[]).filter((p) => p.connected).length >= 2
          ? (r.body as unknown as Json[])
          : undefined;
      },
      20_000,
      "C connected to A and B again",
    );
    for (const p of peers) {
      assert.equal(p.relation, "known");
      assert.ok(p.gossip.heartbeat.solidMilestoneIndex > 0);
    }
  });

  it("scores down and bans a peer sending malformed bytes and low-PoW blocks; the others carry on", async () => {
    const rogue = await createRoguePeer();
    try {
      const topic = blocksTopic("dev");
      const pubsub = rogue.node.services.pubsub;
      const addressC = await c.address();
      const connection = await rogue.node.dial(multiaddr(addressC));
      await waitFor(
        async () => (pubsub.getSubscribers(topic).length > 0 ? true : undefined),
        10_000,
        "C's subscription seen by the rogue peer",
      );
      const peerOf = () => c.peer(rogue.id, tokenC);

      // 1. malformed bytes on the blocks topic
      await pubsub.publish(topic, new TextEncoder().encode("not a block"));
      const after1 = await c.waitForPeer(rogue.id, tokenC, (p) => p.score < 0, 10_000, "the rogue peer scored down");
      assert.equal(after1.gossip.metrics.invalidMessages, 1);
      assert.equal(after1.banned, false);

      // 2. a well-formed block whose PoW is below the network's minimum (10)
      const tips = (await c.json("/api/core/v2/tips")).tips as string[];
      let weak = encodeBlock({
        protocolVersion: 2,
        parents: tips.map((t) => fromHex(t, "tip", 32)),
        payload: { type: 5, tag: new TextEncoder().encode("rogue"), data: new Uint8Array(4) },
        nonce: 0n,
      });
      for (let nonce = 1n; powScore(weak) >= 10; nonce++) weak = withNonce(weak, nonce);
      await pubsub.publish(topic, weak);
      await waitFor(
        async () => ((await peerOf())?.gossip.metrics.invalidMessages === 2 ? true : undefined),
        10_000,
        "the low-PoW block counted",
      );

      // 3. garbage on the request protocol
      const stream = await connection.newStream(requestProtocolId("dev"));
      stream.send(lp.encode.single(Uint8Array.of(0x7f, 1, 2, 3)));
      await stream.close().catch(() => {});

      // 4. more of the same until the score reaches the ban threshold (-100 at 20 per message)
      for (let i = 0; i < 3; i++) {
        await pubsub.publish(topic, Uint8Array.of(2, 0, i)).catch(() => {});
      }
      const banned = await c.waitForPeer(rogue.id, tokenC, (p) => p.banned, 10_000, "the rogue peer banned");
      assert.ok(banned.score <= -100, `score ${banned.score}`);
      await waitFor(
        async () => (rogue.node.getConnections().length === 0 ? true : undefined),
        10_000,
        "rogue disconnected",
      );
      // dialling again: C refuses the connection once it knows who is calling
      await rogue.node.dial(multiaddr(addressC)).catch(() => {});
      await waitFor(
        async () => (rogue.node.getConnections().length === 0 ? true : undefined),
        10_000,
        "redial refused",
      );
      assert.equal((await peerOf())?.connected ?? false, false);

      // the network carries on: a payment submitted to A is confirmed on C, milestones go on
      const before = await confirmed(c);
      const wallet = new DevWallet(client(a));
      const blockId = await wallet.pay(9);
      const meta = await waitForReferenced(client(c), blockId, 20_000, "a payment confirmed on C");
      assert.ok(meta.ledgerInclusionState === "included" || meta.ledgerInclusionState === "conflicting");
      assert.ok((await confirmed(c)) > before);
      assert.equal((await c.info()).status.isSynced, true);
    } finally {
      await rogue.stop();
    }
  });
});
