import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { MessageType } from "../../src/network/messages.js";
import { NodeProcess } from "../helpers/nodeProcess.js";
import { createRoguePeer, flood, type RoguePeer, rssMiB } from "../helpers/roguePeer.js";
import { waitFor } from "../helpers/waitFor.js";

/**
 * Threat: a peer pushes unbounded data into the node's memory. The node sends the rogue peer a
 * heartbeat (which has no answer) on connecting and every second; the rogue answers each with
 * 64 MiB of block frames. Every answer is limited to what its request asks for, so the node
 * resets the stream at the first byte, scores the peer down each time and finally bans it; its
 * memory does not grow (docs/decisions.md, Threats).
 */
describe("threat: a peer answering a heartbeat with 64 MiB of frames", () => {
  let node: NodeProcess;
  let rogue: RoguePeer;
  let token = "";
  before(async () => {
    node = await NodeProcess.create("oversized");
    token = await node.startWithToken();
    rogue = await createRoguePeer();
  });
  after(async () => {
    await rogue?.stop();
    await node?.dispose();
  });

  it("resets each answer at its first byte, scores and bans the peer; memory stays flat", async () => {
    const address = await node.address();
    let answered = 0;
    let bytesTried = 0;
    await rogue.answer(async (request, stream) => {
      if (request.type !== MessageType.Heartbeat) return;
      answered++;
      bytesTried += await flood(stream, 2048, 32 * 1024);
    });
    const rssBefore = rssMiB(node.child!.pid!);
    let peakRss = rssBefore;
    await rogue.node.dial((await import("@multiformats/multiaddr")).multiaddr(address));
    const banned = await waitFor(
      async () => {
        peakRss = Math.max(peakRss, rssMiB(node.child!.pid!));
        const p = await node.peer(rogue.id, token);
        return p?.banned ? p : undefined;
      },
      30_000,
      "the flooding peer banned",
      200,
    );
    assert.ok(answered >= 5, `${answered} heartbeats answered with a flood`);
    assert.ok(banned.score <= -100, `score ${banned.score}`);
    // the rogue wrote at most a little of each 64 MiB before its stream was reset
    assert.ok(bytesTried < answered * 64 * 1024 * 1024, `${bytesTried} bytes written`);
    assert.ok(peakRss - rssBefore < 48, `RSS ${rssBefore.toFixed(0)} → ${peakRss.toFixed(0)} MiB`);
    await waitFor(async () => (rogue.node.getConnections().length === 0 ? true : undefined), 10_000, "disconnected");
    // the node carries on
    const status = (await node.info()).status;
    assert.equal(status.isHealthy, true);
  });
});
