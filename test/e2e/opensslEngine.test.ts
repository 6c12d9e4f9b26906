import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type CoreClient, iota, type Json } from "../helpers/iota.js";
import { waitForReferenced } from "../helpers/milestones.js";
import { type NodeProcess, startNodeProcess } from "../helpers/nodeProcess.js";
import { StardustWallet } from "../helpers/stardustWallet.js";
import { waitFor } from "../helpers/waitFor.js";

/**
 * A node process where sodium-native has no binary (docs/decisions.md, Intake and confirmation):
 * it says so at start and signs and checks with OpenSSL. Its coordinator signs milestones, its
 * faucet signs a payment, and a transfer signed by iota.js is checked on its verify thread and
 * confirmed; one with a broken signature is confirmed as conflicting.
 */

const AMOUNT = 1_000_000_000n;

describe("a node process without libsodium", { timeout: 120_000 }, () => {
  let node: NodeProcess;
  let client: CoreClient;

  before(async () => {
    node = await startNodeProcess([], 20_000, {
      execArgv: ["--import", join(import.meta.dirname, "helpers", "withoutSodium.js")],
    });
    client = new iota.SingleNodeClient(node.url);
  });
  after(async () => {
    await node?.close();
  });

  it("says so at start, then signs and checks with OpenSSL: milestones, a faucet payment, a transfer", async () => {
    assert.match(node.output, /sodium-native did not load on this platform/);
    assert.match(node.output, /no binary for this platform, as a test makes it/);

    const [payer, receiver] = await Promise.all(
      [0, 1].map(() => StardustWallet.open(client, `0x${randomBytes(32).toString("hex")}`)),
    );
    const enqueue = await fetch(`${node.url}/api/faucet/v1/enqueue`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ address: payer!.bech32 }),
    });
    assert.equal(enqueue.status, 202, await enqueue.text());
    const outputId = await waitFor(
      async () => {
        const page = (await (
          await fetch(`${node.url}/api/indexer/v1/outputs/basic?address=${payer!.bech32}`)
        ).json()) as Json;
        return page.items.length > 0 ? (page.items[0] as string) : undefined;
      },
      20_000,
      "the faucet's payment",
      100,
    );
    const { output } = await client.output(outputId);
    assert.equal(BigInt(output.amount), AMOUNT);

    const inputs = [{ outputId, output }];
    const outputs = [
      { type: 3, amount: AMOUNT.toString(), unlockConditions: [{ type: 0, address: receiver!.address }] },
    ];
    // first with one bit of its signature flipped: conflicting, TIP-20's invalid signature
    const forged = payer!.buildTransaction(inputs, outputs, { tag: "0x6f70656e73736c", data: "0x666f72676564" });
    const signature = forged.unlocks[0].signature.signature as string;
    const flipped = (Number.parseInt(signature.slice(-2), 16) ^ 1).toString(16).padStart(2, "0");
    forged.unlocks[0].signature.signature = signature.slice(0, -2) + flipped;
    const forgedId = await client.blockSubmit({ payload: forged });
    const refused = await waitForReferenced(client, forgedId, 20_000, "the forged transfer referenced");
    assert.equal(refused.ledgerInclusionState, "conflicting", JSON.stringify(refused));
    assert.equal(refused.conflictReason, 5, "invalid signature");

    const payment = await payer!.send("signed by iota.js, checked with OpenSSL", inputs, outputs);
    await payer!.confirm(payment, 20_000); // throws unless included
    assert.equal((await client.outputMetadata(outputId)).isSpent, true);
  });
});
