import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DEV_TOKEN_SUPPLY } from "../../src/node/devNetwork.js";
import { type CoreClient, iota, type Json } from "../helpers/iota.js";
import { waitForMilestone, waitForReferenced } from "../helpers/milestones.js";
import { NodeProcess } from "../helpers/nodeProcess.js";
import { waitFor } from "../helpers/waitFor.js";
import { DevWallet } from "../helpers/wallet.js";

/**
 * Issue #3's crash test against the real node process: value transactions built and signed by
 * `@iota/iota.js@2.0.0-rc.4` (no PoW provider: the node mines) are submitted over HTTP while
 * milestones pass; the process is killed with SIGKILL in the middle of the load and restarted.
 * The ledger must be exactly at the last confirmed milestone: total supply intact, every output
 * confirmed before the kill unspent or spent exactly as before, milestones continuing.
 */

const PAYMENT = DevWallet.PAYMENT;

describe("SIGKILL during load, then restart (real node process, iota.js client)", () => {
  let node: NodeProcess;
  let client: CoreClient;
  // The dev wallet's chain of payments: each spends the previous change output.
  let wallet: DevWallet;
  const pay = (n: number) => wallet.pay(n);

  before(async () => {
    node = await NodeProcess.create("crash", ["--milestone-interval", "150", "--log-level", "warn"], {
      networkDefaults: false,
    });
    node.start();
    client = new iota.SingleNodeClient(node.url);
    wallet = new DevWallet(client);
    await waitForMilestone(client, 1, 20_000, "first milestone", { latest: true });
  });
  after(async () => {
    await node.dispose();
  });

  it("keeps every confirmed output and the supply across a kill -9 in the middle of submissions", async () => {
    // 1. a first stretch of payments, all confirmed
    let last = "";
    for (let n = 1; n <= 12; n++) last = await pay(n);
    await waitFor(
      async () => ((await client.blockMetadata(last)).ledgerInclusionState === "included" ? true : undefined),
      20_000,
      "the first payments to be confirmed",
    );
    const confirmed = new Map<string, Json>();
    for (const id of wallet.created) confirmed.set(id, await client.outputMetadata(id));
    const indexBeforeKill = (await client.info()).status.latestMilestone.index;

    // 2. more payments in flight, killed in the middle
    const inFlight = (async () => {
      for (let n = 13; n <= 200; n++) await pay(n);
    })().catch(() => "stopped by the kill");
    await new Promise((r) => setTimeout(r, 400));
    await node.stop("SIGKILL");
    await inFlight;

    // 3. restart: the ledger is at the last confirmed milestone and goes on
    node.start();
    await node.waitHealthy();
    const resumedAt = (await client.info()).status.latestMilestone.index;
    assert.ok(resumedAt >= indexBeforeKill, `milestone ${resumedAt} after restart, ${indexBeforeKill} before`);
    await waitForMilestone(client, resumedAt + 1, 20_000, "a new milestone", { latest: true });

    for (const [id, before] of confirmed) {
      const now = await client.outputMetadata(id);
      assert.equal(now.milestoneIndexBooked, before.milestoneIndexBooked, id);
      if (before.isSpent) {
        assert.equal(now.isSpent, true, id);
        assert.equal(now.transactionIdSpent, before.transactionIdSpent, id);
      }
    }

    // the whole supply, summed over every unspent basic output the indexer lists
    const indexer = new iota.IndexerPluginClient(node.url);
    let total = 0n;
    let cursor: string | undefined;
    do {
      const page = await indexer.basicOutputs({ pageSize: 100, ...(cursor ? { cursor } : {}) });
      for (const id of page.items) total += BigInt((await client.output(id)).output.amount);
      cursor = page.cursor;
    } while (cursor);
    assert.equal(total, DEV_TOKEN_SUPPLY);

    // Blocks accepted before the kill are still there or can be submitted again. iota.js sent
    // them with nonce "0", so a resubmission is mined afresh (a new block carrying the same
    // transaction): one whose transaction was confirmed before the kill conflicts as spent,
    // one that was lost is included now. Resubmitted one milestone at a time, in chain order,
    // the whole chain ends confirmed: its last change output is unspent.
    for (const block of wallet.blocks.slice(12)) {
      const id = await client.blockSubmit(block);
      const meta = await waitForReferenced(client, id, 20_000, "a resubmitted block to be referenced");
      assert.ok(
        meta.ledgerInclusionState === "included" ||
          (meta.ledgerInclusionState === "conflicting" && meta.conflictReason === 1),
        JSON.stringify(meta),
      );
    }
    // A payment the node took in just before the kill, whose answer never reached the client,
    // continues the chain too: follow spends to the end, each one PAYMENT further.
    let end = wallet.change.id;
    let amount = wallet.change.amount;
    for (let hops = 0; hops < 3; hops++) {
      const meta = await client.outputMetadata(end);
      if (!meta.isSpent) break;
      end = iota.TransactionHelper.outputIdFromTransactionData(meta.transactionIdSpent, 1);
      amount -= PAYMENT;
    }
    assert.equal((await client.outputMetadata(end)).isSpent, false);
    assert.equal(BigInt((await client.output(end)).output.amount), amount);
  });
});
