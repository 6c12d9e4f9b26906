import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { encodeBlock } from "../../../src/codec/block.js";
import { fromHex } from "../../../src/codec/hex.js";
import { computeMilestoneId, networkIdFromName } from "../../../src/codec/ids.js";
import type { Block, MilestoneEssence, Payload } from "../../../src/codec/types.js";
import { ed25519KeyPairFromSeed, ed25519Sign } from "../../../src/crypto/ed25519.js";
import { type BlockVerdict, validateBlock } from "../../../src/network/index.js";
import { DEV_KEY, DEV_TOKEN_SUPPLY, devGenesisOutput, GENESIS_OUTPUT_ID } from "../../../src/node/devNetwork.js";
import type { LedgerNode } from "../../../src/node/node.js";
import { powScore, withNonce } from "../../../src/pow/index.js";
import { acceptBlock } from "../../../src/tangle/acceptBlock.js";
import { BlockErrorCode } from "../../../src/tangle/errors.js";
import { NULL_BLOCK_ID } from "../../../src/tangle/tangle.js";
import { basic, buildTransaction, wallet } from "../../helpers/txBuilder.js";
import { makeBlock, removeNode, startCoordinator, type TestNode, taggedData } from "./harness.js";

/**
 * A block from a peer passes exactly the checks of a block submitted over HTTP: the network's
 * validator and the intake path (acceptBlock) agree on every verdict and error code.
 */
describe("validating blocks from peers", () => {
  let n: TestNode;
  let node: LedgerNode;
  before(async () => {
    n = await startCoordinator({ minPowScore: 10 });
    node = n.node;
  });
  after(() => removeNode(n));

  /** The verdict of the network's validator and of acceptBlock (store refused or done). */
  async function both(bytes: Uint8Array): Promise<{ network: BlockVerdict; intake: string }> {
    const network = await validateBlock(bytes, {
      protocolParameters: node.tangle.protocolParameters,
      coordinatorPublicKeys: node.coordinatorPublicKeys,
    });
    const intake = await acceptBlock(node.tangle, bytes, { coordinatorPublicKeys: node.coordinatorPublicKeys }).then(
      () => "valid",
      (e: { code: string }) => e.code,
    );
    return { network, intake };
  }

  const unmined = (payload?: Payload, version = 2): Uint8Array => {
    const block: Block = {
      protocolVersion: version,
      parents: [NULL_BLOCK_ID],
      ...(payload ? { payload } : {}),
      nonce: 0n,
    };
    let bytes = encodeBlock(block);
    for (let nonce = 1n; powScore(bytes) >= 10; nonce++) bytes = withNonce(bytes, nonce);
    return bytes;
  };

  const milestone = (seed: Uint8Array): Uint8Array => {
    const keyPair = ed25519KeyPairFromSeed(seed);
    const latest = node.tangle.latestMilestone;
    const essence: MilestoneEssence = {
      index: latest.index + 1,
      timestamp: latest.timestamp + 1,
      protocolVersion: 2,
      previousMilestoneId: latest.milestoneId,
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

  it("accepts a well-formed block with enough PoW, as the intake does", async () => {
    const { network, intake } = await both(await makeBlock(node, taggedData(1)));
    assert.equal(network.kind, "valid");
    assert.equal(intake, "valid");
  });

  it("refuses what the intake refuses, with the same codes", async () => {
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
      const { network, intake } = await both(bytes);
      assert.equal(network.kind, "invalid", what);
      if (network.kind !== "invalid") continue;
      assert.ok(network.code.startsWith(code), `${what}: ${network.code}`);
      assert.equal(network.code, intake, `${what}: same code as the intake`);
    }
  });

  it("accepts a milestone signed by the coordinator key without PoW and hands over its payload", async () => {
    const { network, intake } = await both(milestone(node.secrets.coordinatorSeed!));
    assert.equal(network.kind, "valid");
    assert.equal(intake, "valid");
    if (network.kind === "valid") assert.equal(network.milestone?.index, node.tangle.latestMilestone.index + 1);
  });
});
