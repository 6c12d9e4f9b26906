import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import { after, before, describe, it } from "node:test";
import { type CoreClient, iota, type Json } from "../helpers/iota.js";
import { type NodeProcess, startNodeProcess } from "../helpers/nodeProcess.js";
import { StardustWallet } from "../helpers/stardustWallet.js";
import { waitFor } from "../helpers/waitFor.js";

/**
 * The faucet of a real dev node process, asked by the official SDK: `@iota/sdk-wasm@1.1.3`'s
 * `Client.requestFundsFromFaucet(url, address)` POSTs `{"address"}` to the URL it is given, so
 * the URL is the node's `/api/faucet/v1/enqueue`. Fresh Ed25519 addresses are paid by one
 * transaction (their outputs share its ID, read over REST), the faucet's balance drops by what it
 * paid, and a funded address then spends its output with a transaction built by iota.js, which a
 * milestone confirms.
 */

/** The SDK's Node build (CommonJS, typed by hand: only the method used). */
const sdk = createRequire(import.meta.url)("@iota/sdk-wasm/node/lib/index.js") as {
  Client: new (options: {
    nodes: string[];
    ignoreNodeHealth?: boolean;
  }) => { requestFundsFromFaucet(url: string, address: string): Promise<string> };
};

const AMOUNT = 1_000_000_000n;
const REQUESTS = 4;

const getJson = async (url: string): Promise<Json> => {
  const res = await fetch(url);
  assert.equal(res.status, 200, `${url}: ${res.status}`);
  return (await res.json()) as Json;
};

describe("the faucet of a node process, asked by the IOTA SDK", { timeout: 120_000 }, () => {
  let node: NodeProcess;
  let client: CoreClient;

  before(async () => {
    node = await startNodeProcess([]);
    client = new iota.SingleNodeClient(node.url);
  });
  after(async () => {
    await node?.close();
  });

  it("pays fresh addresses in one transaction, the balance drops, a funded address spends its output", async () => {
    const info = await getJson(`${node.url}/api/faucet/v1/info`);
    assert.equal(info.isHealthy, true);
    assert.equal(info.bech32Hrp, "tst");
    assert.equal(info.tokenName, "Dev Token");
    assert.equal(typeof info.balance, "number", "a JSON integer, as inx-faucet answers");
    const before = BigInt(info.balance);

    const seeds = Array.from({ length: REQUESTS }, () => `0x${randomBytes(32).toString("hex")}`);
    const wallets = await Promise.all(seeds.map((seed) => StardustWallet.open(client, seed)));

    // right after a milestone, so every request is queued before the next one: one batch
    const { index } = (await client.info()).status.confirmedMilestone as { index: number };
    await waitFor(
      async () => ((await client.info()).status.confirmedMilestone.index > index ? true : undefined),
      10_000,
      "a new milestone",
      10,
    );
    const sdkClient = new sdk.Client({ nodes: [node.url], ignoreNodeHealth: true });
    const url = `${node.url}/api/faucet/v1/enqueue`;
    const answers = await Promise.all(wallets.map((w) => sdkClient.requestFundsFromFaucet(url, w.bech32)));
    const waiting = answers.map((text, i) => {
      const a = JSON.parse(text) as Json;
      assert.equal(a.address, wallets[i]!.bech32, text);
      return a.waitingRequests as number;
    });
    assert.deepEqual(
      [...waiting].sort((a, b) => a - b),
      Array.from({ length: REQUESTS }, (_, i) => i + 1),
    );
    // asked again at once: refused with inx-faucet's words (the SDK hands back the body as text)
    const again = JSON.parse(await sdkClient.requestFundsFromFaucet(url, wallets[0]!.bech32)) as Json;
    assert.equal(again.error.code, 400);
    assert.equal(again.error.details, "Address is already in the queue.");

    // each address gets one output of the amount; every one from the same transaction
    const funded = await Promise.all(
      wallets.map((w) =>
        waitFor(
          async () => {
            const page = await getJson(`${node.url}/api/indexer/v1/outputs/basic?address=${w.bech32}`);
            return page.items.length > 0 ? (page.items as string[]) : undefined;
          },
          20_000,
          `funds for ${w.bech32}`,
          100,
        ),
      ),
    );
    const outputs = await Promise.all(funded.map((items) => client.output(items[0]!)));
    for (const [i, items] of funded.entries()) {
      assert.equal(items.length, 1, "paid once");
      assert.equal(BigInt(outputs[i]!.output.amount), AMOUNT);
      assert.equal(outputs[i]!.metadata.isSpent, false);
    }
    const transactionIds = new Set(outputs.map((o) => o.metadata.transactionId as string));
    assert.equal(transactionIds.size, 1, `one transaction paid all ${REQUESTS}: ${[...transactionIds].join(", ")}`);
    const [transactionId] = [...transactionIds];
    const included = await client.transactionIncludedBlock(transactionId!);
    assert.equal(included.payload.essence.outputs.length, REQUESTS + 1, "the payments and the faucet's remainder");

    // once settled, the balance is what it was less what was paid
    await waitFor(
      async () => {
        const now = await getJson(`${node.url}/api/faucet/v1/info`);
        return BigInt(now.balance) === before - BigInt(REQUESTS) * AMOUNT ? true : undefined;
      },
      10_000,
      "the faucet's balance to drop by what it paid",
    );

    // the first address spends what it got (iota.js builds and signs; the node mines)
    const spender = wallets[0]!;
    const receiver = wallets[1]!;
    const payment = await spender.send(
      "spend faucet funds",
      [{ outputId: funded[0]![0]!, output: outputs[0]!.output }],
      [{ type: 3, amount: AMOUNT.toString(), unlockConditions: [{ type: 0, address: receiver.address }] }],
    );
    await spender.confirm(payment, 20_000);
    assert.equal((await client.outputMetadata(funded[0]![0]!)).isSpent, true);
    const receiverPage = await getJson(`${node.url}/api/indexer/v1/outputs/basic?address=${receiver.bech32}`);
    assert.equal(receiverPage.items.length, 2, "the faucet's output and the payment");
  });
});
