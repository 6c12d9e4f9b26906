import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { DEFAULT_DEV_MNEMONIC } from "../../src/node/devAccounts.js";
import type { Json } from "../helpers/iota.js";
import { NodeProcess } from "../helpers/nodeProcess.js";
import { sdk } from "../helpers/sdkWallet.js";
import { waitFor } from "../helpers/waitFor.js";

/**
 * The explorer balance of a small amount sent by the official SDK's wallet (`@iota/sdk-wasm`),
 * on a dev node process: the wallet adds a storage deposit return and an expiration, both naming
 * the sender. Until the output expires the recipient holds what was sent (not the deposit it
 * pays back); once a milestone passes the expiration the sender holds the whole output again
 * (TIP-18; docs/decisions.md, Explorer).
 */

/** Unlock condition types (TIP-18). */
const STORAGE_DEPOSIT_RETURN = 1;
const EXPIRATION = 3;
const SENT = 1000n;

describe("explorer balance of a small amount the SDK's wallet sends", { timeout: 60_000 }, () => {
  let node: NodeProcess;
  let wallet: InstanceType<typeof sdk.Wallet> | undefined;

  const balance = async (address: string) => {
    const b = await node.json(`/api/explorer/v2/balance/${address}`);
    return { total: BigInt(b.totalBalance), available: BigInt(b.availableBalance) };
  };
  const post = async (path: string, body: unknown): Promise<Json> => {
    const res = await fetch(`${node.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const answer = (await res.json()) as Json;
    assert.equal(res.status, 200, `${path}: ${JSON.stringify(answer)}`);
    return answer;
  };

  before(async () => {
    node = await NodeProcess.create("explorer-balance", ["--dev-accounts", "2", "--milestones", "auto"]);
    node.start();
    await node.waitHealthy();
  });
  after(async () => {
    await wallet?.destroy();
    if (node) assert.equal(await node.close(), 0, `the node did not shut down cleanly: ${node.output}`);
  });

  it("counts it for the recipient less the deposit until it expires, then for the sender in full", async () => {
    wallet = new sdk.Wallet({
      storagePath: join(node.dataDir, "sdk-wallet"),
      clientOptions: { nodes: [node.url] },
      coinType: sdk.CoinType.Shimmer,
      secretManager: { mnemonic: DEFAULT_DEV_MNEMONIC },
    });
    const sender = await wallet.createAccount({ alias: "sender" });
    const recipient = await wallet.createAccount({ alias: "recipient" });
    const senderAddress = (await sender.addresses())[0]!.address;
    const recipientAddress = (await recipient.addresses())[0]!.address;
    const senderBefore = await balance(senderAddress);
    const recipientBefore = await balance(recipientAddress);
    assert.ok(senderBefore.total > 0n, "the dev account is funded at genesis");

    await sender.sync();
    // an amount below the storage deposit: the wallet adds the deposit, to be returned, and an expiration
    const tx = await sender.sendWithParams([{ address: recipientAddress, amount: SENT.toString() }], {
      allowMicroAmount: true,
    });
    assert.ok(tx.blockId, "the SDK answers a block ID");
    const meta = await waitFor(
      async () => {
        const m = await node.json(`/api/core/v2/blocks/${tx.blockId}/metadata`);
        return m.ledgerInclusionState === undefined ? undefined : m;
      },
      10_000,
      "a milestone deciding on the send",
    );
    assert.equal(meta.ledgerInclusionState, "included", JSON.stringify(meta));
    // the output the wallet made: a storage deposit and the expiration back to the sender
    const outputs = JSON.parse(JSON.stringify(tx.payload.essence.outputs)) as Json[];
    const sent = outputs.find((o) =>
      (o.unlockConditions as Json[]).some((u) => u.type === STORAGE_DEPOSIT_RETURN),
    ) as Json;
    assert.ok(sent, `an output with a storage deposit return in ${JSON.stringify(outputs)}`);
    const conditions = sent.unlockConditions as Json[];
    const deposit = conditions.find((u) => u.type === STORAGE_DEPOSIT_RETURN)!;
    const expiration = conditions.find((u) => u.type === EXPIRATION)!;
    assert.ok(expiration, "the wallet adds an expiration");
    const amount = BigInt(sent.amount);
    assert.equal(amount - BigInt(deposit.amount), SENT);

    // before expiry: the recipient holds what was sent, the sender what it kept
    const recipientSent = await balance(recipientAddress);
    assert.deepEqual(recipientSent, {
      total: recipientBefore.total + SENT,
      available: recipientBefore.available + SENT,
    });
    assert.deepEqual(await balance(senderAddress), {
      total: senderBefore.total - amount,
      available: senderBefore.available - amount,
    });

    // a milestone past the expiration: only the sender unlocks the output, and owes no deposit to itself
    const now = (await node.json("/api/dev/v1/time")).timestamp as number;
    await post("/api/dev/v1/time", { increaseSeconds: Math.max(1, (expiration.unixTime as number) - now + 1) });
    const [ms] = (await post("/api/dev/v1/milestones", { count: 1 })).milestones as Json[];
    assert.ok(ms!.timestamp >= expiration.unixTime, JSON.stringify(ms));
    assert.deepEqual(await balance(recipientAddress), recipientBefore);
    assert.deepEqual(await balance(senderAddress), senderBefore);
  });
});
