import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { multiaddr } from "@multiformats/multiaddr";
import { encodeBlock } from "../../src/codec/block.js";
import { toHex } from "../../src/codec/hex.js";
import { blockIdFromBytes } from "../../src/codec/ids.js";
import { blocksTopic } from "../../src/network/index.js";
import { MessageType } from "../../src/network/messages.js";
import { closeMinerPool, minerPool, powDigest, withNonce } from "../../src/pow/index.js";
import { confirmedIndex, waitForMilestone } from "../helpers/milestones.js";
import { NodeProcess } from "../helpers/nodeProcess.js";
import { createRoguePeer, type RoguePeer } from "../helpers/roguePeer.js";
import { waitFor } from "../helpers/waitFor.js";

/**
 * Threat: blocks that can never be confirmed are kept forever. Over HTTP, blocks naming a
 * parent below max depth (the genesis null block, many milestones later) are refused with 400.
 * A rogue peer gossips PoW-valid blocks on that old parent and blocks whose parents do not
 * exist; the node takes them in (a peer may lag), and once they are certain never to be
 * referenced (below-max-depth + 2 milestones after their arrival) drops them from memory and
 * disk and stops asking for their parents (docs/decisions.md, Threats).
 */
describe("threat: blocks below max depth and blocks whose parents never come", () => {
  const BELOW_MAX_DEPTH = 15; // the dev network's
  let node: NodeProcess;
  let rogue: RoguePeer;
  before(async () => {
    node = await NodeProcess.create("unconfirmable");
    node.start();
    rogue = await createRoguePeer();
  });
  after(async () => {
    await rogue?.stop();
    await node?.dispose();
    await closeMinerPool();
  });

  const confirmed = () => confirmedIndex(node);
  const mined = async (parents: Uint8Array[], tag: number): Promise<Uint8Array> => {
    const payload = { type: 5 as const, tag: Uint8Array.of(tag), data: randomBytes(8) };
    const bytes = encodeBlock({ protocolVersion: 2, parents, payload, nonce: 0n });
    return withNonce(bytes, await minerPool().mine(powDigest(bytes), 10, bytes.length, { workers: 1 }));
  };
  const status = async (id: string): Promise<number> =>
    (await fetch(`${node.url}/api/core/v2/blocks/${id}/metadata`)).status;

  it("refuses them over HTTP, drops gossiped ones from memory and disk, and stops asking", async () => {
    await waitForMilestone(node, BELOW_MAX_DEPTH + 2, 30_000, "max depth");
    const nullBlock = `0x${"00".repeat(32)}`;
    for (let i = 0; i < 30; i++) {
      const res = await fetch(`${node.url}/api/core/v2/blocks`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          protocolVersion: 2,
          parents: [nullBlock],
          payload: { type: 5, tag: "0x01", data: `0x${i.toString(16).padStart(2, "0")}` },
        }),
      });
      assert.equal(res.status, 400);
      assert.match(((await res.json()) as { error: { details: string } }).error.details, /below max depth/);
    }

    // a rogue peer gossips 6 blocks on the null block and 6 whose parents do not exist
    const requested = new Map<string, number>();
    await rogue.answer(async (request) => {
      if (request.type === MessageType.BlockRequest) {
        const id = toHex(request.blockId);
        requested.set(id, (requested.get(id) ?? 0) + 1);
      }
    });
    const address = await node.address();
    await rogue.node.dial(multiaddr(address));
    // a heartbeat makes it a peer the node asks for missing blocks
    const heartbeat = {
      solidMilestoneIndex: 0,
      prunedMilestoneIndex: 0,
      latestMilestoneIndex: 0,
      connectedPeers: 1,
      syncedPeers: 0,
    };
    await rogue.send(address, { type: MessageType.Heartbeat, heartbeat });
    const topic = blocksTopic("dev");
    await waitFor(
      async () => (rogue.node.services.pubsub.getSubscribers(topic).length > 0 ? true : undefined),
      10_000,
      "the node's subscription",
    );
    const lazy: string[] = [];
    const orphans: string[] = [];
    const missingParents: string[] = [];
    for (let i = 0; i < 6; i++) {
      const onNull = await mined([new Uint8Array(32)], 2);
      lazy.push(toHex(blockIdFromBytes(onNull)));
      await rogue.node.services.pubsub.publish(topic, onNull);
      const parent = randomBytes(32);
      missingParents.push(toHex(parent));
      const orphan = await mined([parent], 3);
      orphans.push(toHex(blockIdFromBytes(orphan)));
      await rogue.node.services.pubsub.publish(topic, orphan);
    }
    await waitFor(
      async () => {
        const all = await Promise.all([...lazy, ...orphans].map(status));
        return all.every((s) => s === 200) ? true : undefined;
      },
      10_000,
      "the gossiped blocks taken in",
    );
    const takenAt = await confirmed();
    await waitFor(
      async () => (missingParents.every((p) => requested.has(p)) ? true : undefined),
      10_000,
      "the missing parents asked for",
    );

    // dropped once below-max-depth + 2 milestones have passed since they came
    const dropped = await waitFor(
      async () => {
        const all = await Promise.all([...lazy, ...orphans].map(status));
        return all.every((s) => s === 404) ? await confirmed() : undefined;
      },
      30_000,
      "the unconfirmable blocks dropped",
    );
    assert.ok(dropped - takenAt <= BELOW_MAX_DEPTH + 4, `dropped ${dropped - takenAt} milestones after`);
    // and their parents are no longer asked for
    const asked = [...requested.values()].reduce((a, b) => a + b, 0);
    await new Promise((r) => setTimeout(r, 4_000));
    assert.equal(
      [...requested.values()].reduce((a, b) => a + b, 0),
      asked,
      "no more requests",
    );
    // nor taken in again at the next start
    await node.stop();
    node.start();
    await waitForMilestone(node, dropped + 1, 20_000, "restarted");
    for (const id of [...lazy, ...orphans]) assert.equal(await status(id), 404, id);
  });
});
