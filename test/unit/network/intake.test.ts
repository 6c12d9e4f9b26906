import "../../../src/network/polyfill.js";
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { noise } from "@chainsafe/libp2p-noise";
import { yamux } from "@chainsafe/libp2p-yamux";
import { gossipsub } from "@libp2p/gossipsub";
import { identify } from "@libp2p/identify";
import { tcp } from "@libp2p/tcp";
import { multiaddr } from "@multiformats/multiaddr";
import type { FastifyInstance } from "fastify";
import { createLibp2p, type Libp2p } from "libp2p";
import { buildServer } from "../../../src/api/server.js";
import { encodeBlock } from "../../../src/codec/block.js";
import { fromHex, toHex } from "../../../src/codec/hex.js";
import { computeMilestoneId, networkIdFromName } from "../../../src/codec/ids.js";
import type { Block, MilestoneEssence, Payload } from "../../../src/codec/types.js";
import { ed25519KeyPairFromSeed, ed25519Sign } from "../../../src/crypto/ed25519.js";
import { blocksTopic } from "../../../src/network/index.js";
import { DEV_KEY, DEV_TOKEN_SUPPLY, devGenesisOutput, GENESIS_OUTPUT_ID } from "../../../src/node/devNetwork.js";
import type { LedgerNode } from "../../../src/node/node.js";
import { powScore, withNonce } from "../../../src/pow/index.js";
import { BlockErrorCode } from "../../../src/tangle/errors.js";
import type { BlockSource } from "../../../src/tangle/events.js";
import type { IntakeVerdict } from "../../../src/tangle/intake.js";
import { NULL_BLOCK_ID } from "../../../src/tangle/tangle.js";
import { makeBlock, removeNode, startCoordinator, type TestNode, taggedData, until } from "../../helpers/network.js";
import { basic, buildTransaction, wallet } from "../../helpers/txBuilder.js";

/**
 * One intake for every source (tangle/intake.ts): the same bytes sent over HTTP and gossiped by a
 * peer meet the same checks and get the same verdict; HTTP answers it with a status, gossip
 * with a rejection and a lower score for the peer.
 */
describe("one intake for HTTP and gossip", () => {
  let n: TestNode;
  let node: LedgerNode;
  let app: FastifyInstance;
  let rogue: Libp2p<{
    identify: ReturnType<ReturnType<typeof identify>>;
    pubsub: ReturnType<ReturnType<typeof gossipsub>>;
  }>;
  /** Every verdict the node's intake gave, with the source it was asked for. */
  const verdicts: { source: BlockSource; bytes: Uint8Array; verdict: IntakeVerdict }[] = [];
  const topic = blocksTopic("dev");

  before(async () => {
    n = await startCoordinator({ minPowScore: 10 });
    node = n.node;
    app = buildServer(node, "silent");
    const check = node.intake.check.bind(node.intake);
    node.intake.check = async (bytes, source) => {
      const verdict = await check(bytes, source);
      verdicts.push({ source, bytes, verdict });
      return verdict;
    };
    rogue = await createLibp2p({
      addresses: { listen: ["/ip4/127.0.0.1/tcp/0"] },
      transports: [tcp()],
      connectionEncrypters: [noise()],
      streamMuxers: [yamux()],
      services: { identify: identify(), pubsub: gossipsub({ globalSignaturePolicy: "StrictNoSign" }) },
    });
    rogue.services.pubsub.subscribe(topic);
    await rogue.dial(multiaddr(n.address));
    await until(() => rogue.services.pubsub.getSubscribers(topic).length > 0 || undefined, 10_000, "subscribed");
  });
  after(async () => {
    await rogue.stop();
    await app.close();
    await removeNode(n);
  });

  /**
   * `bytes` gossiped by a peer (the intake's verdict), then sent over HTTP (the answer). The API
   * decodes a block itself to fill its parents and nonce and hands the decoded block to the
   * intake, so a codec error is found there, by the same decoder, with the same reason.
   */
  async function both(bytes: Uint8Array): Promise<{ gossip: IntakeVerdict; status: number; details?: string }> {
    await rogue.services.pubsub.publish(topic, bytes);
    const gossip = await until(
      () => verdicts.find((v) => v.source === "peer" && Buffer.from(v.bytes).equals(Buffer.from(bytes)))?.verdict,
      10_000,
      "the gossip verdict",
    );
    const res = await app.inject({
      method: "POST",
      url: "/api/core/v2/blocks",
      headers: { "content-type": "application/vnd.iota.serializer-v1" },
      payload: Buffer.from(bytes),
    });
    const body = res.json() as { error?: { details: string } };
    return { gossip, status: res.statusCode, ...(body.error ? { details: body.error.details } : {}) };
  }

  const unmined = (payload?: Payload, version = 2): Uint8Array => {
    const block: Block = {
      protocolVersion: version,
      parents: [NULL_BLOCK_ID],
      ...(payload ? { payload } : {}),
      nonce: 0n,
    };
    // a non-zero nonce, which the API never mines again
    let bytes = withNonce(encodeBlock(block), 1n);
    for (let nonce = 2n; powScore(bytes) >= 10; nonce++) bytes = withNonce(bytes, nonce);
    return bytes;
  };

  const milestone = (seed: Uint8Array, index = node.tangle.latestMilestone.index + 1): Uint8Array => {
    const keyPair = ed25519KeyPairFromSeed(seed);
    const latest = node.tangle.latestMilestone;
    const essence: MilestoneEssence = {
      index,
      timestamp: latest.timestamp + 1,
      protocolVersion: 2,
      // the first milestone names none (TIP-29)
      previousMilestoneId: index === 1 ? new Uint8Array(32) : latest.milestoneId,
      parents: [latest.blockId],
      inclusionMerkleRoot: new Uint8Array(32),
      appliedMerkleRoot: new Uint8Array(32),
      metadata: new Uint8Array(),
      options: [],
    };
    const signature = ed25519Sign(keyPair, computeMilestoneId(essence));
    return encodeBlock({
      protocolVersion: 2,
      parents: [latest.blockId],
      payload: { type: 7, ...essence, signatures: [{ type: 0, publicKey: keyPair.publicKey, signature }] },
      nonce: 0n,
    });
  };

  it("accepts a well-formed block with enough PoW from either source", async () => {
    const { status, gossip } = await both(await makeBlock(node, taggedData(1)));
    assert.equal(gossip.kind, "accepted");
    assert.equal(status, 201, "a known block is answered as accepted");
  });

  it("rejects the same blocks with the same codes over HTTP (400) and gossip (the peer scored down)", async () => {
    const dev = wallet("someone");
    const foreignTx = buildTransaction({
      networkId: networkIdFromName("other"),
      inputs: [
        { outputId: GENESIS_OUTPUT_ID, output: devGenesisOutput(), bookedMilestoneIndex: 0, bookedTimestamp: 0 },
      ],
      outputs: [basic(dev.address, { amount: DEV_TOKEN_SUPPLY })],
      unlockers: [{ keyPair: ed25519KeyPairFromSeed(fromHex(DEV_KEY.seed, "seed")), address: dev.address }],
    }).tx;
    const cases: [string, Uint8Array, string][] = [
      ["malformed bytes", new TextEncoder().encode("not a block at all"), "CODEC_"],
      ["another protocol version", unmined(undefined, 3), "CODEC_"],
      ["a transaction of another network", unmined(foreignTx), "CODEC_"],
      ["too little PoW", unmined(taggedData(2)), BlockErrorCode.InsufficientPow],
      [
        "a milestone signed by another key",
        milestone(new Uint8Array(32).fill(9)),
        BlockErrorCode.InvalidMilestoneSignature,
      ],
    ];
    for (const [what, bytes, code] of cases) {
      const { gossip, status, details } = await both(bytes);
      assert.equal(gossip.kind, "rejected", what);
      if (gossip.kind !== "rejected") continue;
      assert.ok(gossip.code.startsWith(code), `${what}: ${gossip.code}`);
      assert.equal(status, 400, what);
      // a codec error is found by the API's own decoding (it fills parents and nonce), field first
      if (code === "CODEC_") assert.match(details ?? "", /^block\./, what);
      else assert.equal(details, gossip.details, `${what}: the same reason over HTTP`);
    }
    const id = rogue.peerId.toString();
    const seen = await until(
      () => {
        const p = n.network.peers().find((x) => x.id === id);
        return p?.gossip?.metrics.invalidMessages === cases.length ? p : undefined;
      },
      10_000,
      "every rejected gossip message counted",
    );
    assert.ok(seen.score < 0, `score ${seen.score}`);
  });

  it("accepts a milestone signed by the coordinator key without PoW and hands over its payload", async () => {
    const bytes = milestone(node.secrets.coordinatorSeeds[0]!);
    const verdict = await node.intake.check(bytes, "peer");
    assert.equal(verdict.kind, "accepted");
    if (verdict.kind === "accepted") assert.equal(verdict.milestone?.index, node.tangle.latestMilestone.index + 1);
  });

  it("ignores a stale milestone from either source: HTTP answers 400, gossip drops it without a penalty", async () => {
    await node.coordinator.issueMilestone();
    await node.coordinator.issueMilestone();
    // signed by the coordinator's key, at an index the ledger has passed
    const stale = milestone(node.secrets.coordinatorSeeds[0]!, node.tangle.latestMilestone.index - 1);
    const verdict = await node.intake.check(stale, "peer");
    assert.equal(verdict.kind, "ignored", JSON.stringify(verdict));
    if (verdict.kind === "ignored") assert.equal(verdict.reason, "staleMilestone");
    const res = await app.inject({
      method: "POST",
      url: "/api/core/v2/blocks",
      headers: { "content-type": "application/vnd.iota.serializer-v1" },
      payload: Buffer.from(stale),
    });
    assert.equal(res.statusCode, 400);
    assert.match(res.json().error.details, /not above/);
  });

  it("decides a known block is a duplicate before its PoW or signatures are checked", async () => {
    const ms = await node.coordinator.issueMilestone();
    const known = (await node.tangle.getBlockBytes(ms.blockId))!;
    const verdict = await node.intake.check(known, "peer");
    assert.equal(verdict.kind, "ignored");
    if (verdict.kind === "ignored") assert.equal(verdict.reason, "duplicate");
    const res = await app.inject({
      method: "POST",
      url: "/api/core/v2/blocks",
      headers: { "content-type": "application/vnd.iota.serializer-v1" },
      payload: Buffer.from(known),
    });
    assert.equal(res.statusCode, 201, "a known block is no error");
    assert.equal(res.json().blockId, toHex(ms.blockId));
  });
});
