import "../../../src/network/polyfill.js";
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { multiaddr } from "@multiformats/multiaddr";
import { type Heartbeat, MessageType } from "../../../src/network/messages.js";
import { writeMessages } from "../../../src/network/protocol.js";
import { removeNode, startCoordinator, startFollower, type TestNode, until } from "../../helpers/network.js";
import { createRoguePeer, type RoguePeer } from "../../helpers/roguePeer.js";

/**
 * A peer that shuts down closes the streams it is answering on: the answers end before their
 * last frame. The node had scored each such answer as a wrong one (20 points), so a follower
 * syncing from a coordinator that restarted took a burst of cut answers at once and banned the
 * coordinator for five minutes: the restarted coordinator could not reach it again. A cut answer
 * now costs no score by itself; a milestone only the peer claimed is doubted at once, as before,
 * one refuted claim (20 points) for as long as the doubt lasts (CLAIM_DOUBT_MS).
 */
describe("answers cut short, as by a peer shutting down", () => {
  let a: TestNode;
  let b: TestNode;
  let rogue: RoguePeer;
  before(async () => {
    a = await startCoordinator();
    b = await startFollower(a, [a.address]);
    rogue = await createRoguePeer();
  });
  after(async () => {
    await rogue?.stop();
    for (const n of [b, a]) if (n) await removeNode(n);
  });

  it("do not get the peer banned, however many of them come at once", async () => {
    const asked: number[] = [];
    await rogue.answer(async (request, stream) => {
      if (request.type !== MessageType.MilestoneRequest) return;
      asked.push(request.index);
      // half the answers end after a block frame, half before any: no ConeEnd either way
      if (request.index % 2 === 0)
        await writeMessages(stream, [{ type: MessageType.Block, bytes: new Uint8Array(64) }]);
    });
    await rogue.node.dial(multiaddr(b.address));
    const claim: Heartbeat = {
      solidMilestoneIndex: 40,
      prunedMilestoneIndex: 0,
      latestMilestoneIndex: 40,
      connectedPeers: 1,
      syncedPeers: 1,
    };
    // the claim repeated as a peer's heartbeats are, so B asks again after each retry pause
    const started = Date.now();
    while (Date.now() - started < 3_000) {
      await rogue.send(b.address, { type: MessageType.Heartbeat, heartbeat: claim }).catch(() => {});
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(asked.length > 5, `B asked for ${asked.length} milestones: more cut answers than a ban took`);
    const seen = await until(
      () => b.network.peers().find((p) => p.id === rogue.id),
      5_000,
      "the rogue among B's peers",
    );
    assert.equal(seen.banned, false, "not banned");
    assert.equal(seen.connected, true, "still connected");
    // the claim the rogue could not deliver, refuted once; none of its cut answers counted
    assert.ok(seen.score < 0 && seen.score >= -20.01, `score ${seen.score}: one refuted claim`);
  });
});
