import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { encodeBlock } from "../../src/codec/block.js";
import { fromHex, toHex } from "../../src/codec/hex.js";
import { networkIdFromName } from "../../src/codec/ids.js";
import type { Payload } from "../../src/codec/types.js";
import { waitForNextMilestone, waitForReferenced } from "../helpers/milestones.js";
import { client, type NodeProcess, startNodeProcess } from "../helpers/nodeProcess.js";
import { basic, buildTransaction, wallet } from "../helpers/txBuilder.js";
import { genesisInput, payment } from "../helpers/wallet.js";

/**
 * Threat: anyone can block a valid spend. A confirmed transaction T1 copied into a new block
 * (a re-attachment: it conflicts, its inputs are spent) placed earlier in a milestone's cone
 * than a valid spend of T1's output must not hide that output, which is unspent in the ledger:
 * the spend is included (docs/decisions.md, Threats). Driven against the node process over HTTP,
 * as an attacker who copies a payload from the explorer would.
 */
describe("threat: a re-attached confirmed transaction in front of a spend of its output", () => {
  let node: NodeProcess;
  const CORE = "/api/core/v2";
  const BINARY = "application/vnd.iota.serializer-v1";
  before(async () => {
    // milestones far enough apart that the attack's two blocks land in one cone
    node = await startNodeProcess(["--milestone-interval", "2500", "--min-pow-score", "0", "--p2p-port", "0"]);
  });
  after(async () => {
    await node?.close();
  });

  const submit = async (payload: Payload, parents?: Uint8Array[]): Promise<Uint8Array> => {
    const bytes = encodeBlock({ protocolVersion: 2, parents: parents ?? [], payload, nonce: 0n });
    const res = await fetch(`${node.url}${CORE}/blocks`, {
      method: "POST",
      headers: { "content-type": BINARY },
      body: bytes,
    });
    assert.equal(res.status, 201, await res.clone().text());
    return fromHex(((await res.json()) as { blockId: string }).blockId, "blockId", 32);
  };
  const referenced = (blockId: Uint8Array) =>
    waitForReferenced(client(node), toHex(blockId), 20_000, `block ${toHex(blockId)} referenced`);

  it("includes the spend, and marks only the re-attachment conflicting", async () => {
    // 1. T1 pays alice; it is confirmed
    const alice = wallet("alice");
    const t1 = payment(genesisInput(), alice, 1_000_000n);
    const t1Block = await submit(t1.tx);
    assert.equal((await referenced(t1Block)).ledgerInclusionState, "included");

    // 2. right after a milestone: T1's payload again in a new block, then alice's spend of
    // T1's output in a block that approves the re-attachment (so white-flag meets it first)
    await waitForNextMilestone(node, 10_000, "a fresh milestone");
    const reattachment = await submit(t1.tx);
    const spend = buildTransaction({
      networkId: networkIdFromName("dev"),
      inputs: [t1.outputs[0]!],
      outputs: [basic(wallet("bob").address, { amount: 1_000_000n })],
      unlockers: [alice],
    });
    const spendBlock = await submit(spend.tx, [reattachment]);

    const spendMeta = await referenced(spendBlock);
    const reattachedMeta = await referenced(reattachment);
    assert.equal(
      spendMeta.referencedByMilestoneIndex,
      reattachedMeta.referencedByMilestoneIndex,
      "both in one milestone's cone",
    );
    assert.equal(reattachedMeta.ledgerInclusionState, "conflicting");
    assert.equal(spendMeta.ledgerInclusionState, "included", `conflict reason ${spendMeta.conflictReason}`);
    // the spend is in the ledger: T1's output is spent by it
    const output = await node.json(`${CORE}/outputs/${toHex(t1.outputs[0]!.outputId)}`);
    assert.equal(output.metadata.isSpent, true);
    assert.equal(output.metadata.transactionIdSpent, toHex(spend.ctx.transactionId));
  });
});
