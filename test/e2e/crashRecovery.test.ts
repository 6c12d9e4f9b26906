import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { DEV_KEY, DEV_TOKEN_SUPPLY } from "../../src/node/devNetwork.js";
import { freePort, waitFor as until } from "../helpers/nodeProcess.js";

/**
 * Issue #3's crash test against the real node process: value transactions built and signed by
 * `@iota/iota.js@2.0.0-rc.4` (no PoW provider: the node mines) are submitted over HTTP while
 * milestones pass; the process is killed with SIGKILL in the middle of the load and restarted.
 * The ledger must be exactly at the last confirmed milestone: total supply intact, every output
 * confirmed before the kill unspent or spent exactly as before, milestones continuing.
 */

// biome-ignore lint/suspicious/noExplicitAny: iota.js's JSON shapes, read as the client returns them
type Json = Record<string, any>;
interface Client {
  blockSubmit(block: Json): Promise<string>;
  blockMetadata(id: string): Promise<Json>;
  output(id: string): Promise<Json>;
  outputMetadata(id: string): Promise<Json>;
  info(): Promise<Json>;
}
interface Iota {
  SingleNodeClient: new (endpoint: string) => Client;
  IndexerPluginClient: new (
    endpoint: string,
  ) => { basicOutputs(filter: Json): Promise<{ items: string[]; cursor?: string }> };
  Ed25519Seed: new (bytes: Uint8Array) => { keyPair(): { publicKey: Uint8Array; privateKey: Uint8Array } };
  TransactionHelper: {
    transactionIdFromTransactionPayload(payload: Json): string;
    outputIdFromTransactionData(transactionId: string, index: number): string;
  };
  sendAdvanced(
    client: Client,
    inputs: Json[],
    outputs: { address: string; addressType: number; amount: string }[],
  ): Promise<{ blockId: string; block: Json }>;
}
const require = createRequire(import.meta.url);
const iota = require("@iota/iota.js") as Iota;
const { Converter } = require("@iota/util.js") as { Converter: { hexToBytes(hex: string): Uint8Array } };

const PAYMENT = 1_000_000n;

describe("SIGKILL during load, then restart (real node process, iota.js client)", () => {
  let dir: string;
  let port: number;
  let child: ChildProcess | undefined;
  let client: Client;
  const keyPair = new iota.Ed25519Seed(Converter.hexToBytes(DEV_KEY.seed.slice(2))).keyPair();

  const start = () => {
    child = spawn(
      process.execPath,
      [
        "dist/src/cli/main.js",
        "--data-dir",
        dir,
        "--api-port",
        String(port),
        "--milestone-interval",
        "150",
        "--log-level",
        "warn",
      ],
      { stdio: "ignore" },
    );
  };
  const kill = async (signal: NodeJS.Signals) => {
    const c = child!;
    if (c.exitCode !== null) return;
    const exited = new Promise((r) => c.once("exit", r));
    c.kill(signal);
    await exited;
  };

  // The dev wallet's chain of payments: each spends the previous change output.
  let change: { id: string; output: Json; amount: bigint } = {
    id: `0x${"00".repeat(34)}`,
    output: {},
    amount: DEV_TOKEN_SUPPLY,
  };
  const created: string[] = [];
  const blocks: Json[] = [];
  const pay = async (n: number) => {
    const recipient = `0x${n.toString(16).padStart(2, "0").repeat(32)}`;
    const rest = change.amount - PAYMENT;
    const sent = await iota.sendAdvanced(
      client,
      [{ input: idToInput(change.id), addressKeyPair: keyPair, consumingOutput: change.output }],
      [
        { address: recipient, addressType: 0, amount: PAYMENT.toString() },
        { address: DEV_KEY.pubKeyHash, addressType: 0, amount: rest.toString() },
      ],
    );
    const txId = iota.TransactionHelper.transactionIdFromTransactionPayload(sent.block.payload);
    const paid = iota.TransactionHelper.outputIdFromTransactionData(txId, 0);
    const next = iota.TransactionHelper.outputIdFromTransactionData(txId, 1);
    created.push(paid, next);
    blocks.push(sent.block);
    change = { id: next, output: sent.block.payload.essence.outputs[1], amount: rest };
    return sent.blockId;
  };
  const idToInput = (id: string) => ({
    type: 0,
    transactionId: id.slice(0, 66),
    transactionOutputIndex: Number.parseInt(id.slice(68, 70) + id.slice(66, 68), 16),
  });

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "ledger-node-crash-"));
    port = await freePort();
    start();
    client = new iota.SingleNodeClient(`http://127.0.0.1:${port}`);
    await until(
      async () => ((await client.info()).status.latestMilestone.index >= 1 ? true : undefined),
      20_000,
      "first milestone",
    );
    change.output = (await client.output(change.id)).output;
  });
  after(async () => {
    await kill("SIGKILL");
    await rm(dir, { recursive: true, force: true });
  });

  it("keeps every confirmed output and the supply across a kill -9 in the middle of submissions", async () => {
    // 1. a first stretch of payments, all confirmed
    let last = "";
    for (let n = 1; n <= 12; n++) last = await pay(n);
    await until(
      async () => ((await client.blockMetadata(last)).ledgerInclusionState === "included" ? true : undefined),
      20_000,
      "the first payments to be confirmed",
    );
    const confirmed = new Map<string, Json>();
    for (const id of created) confirmed.set(id, await client.outputMetadata(id));
    const indexBeforeKill = (await client.info()).status.latestMilestone.index;

    // 2. more payments in flight, killed in the middle
    const inFlight = (async () => {
      for (let n = 13; n <= 200; n++) await pay(n);
    })().catch(() => "stopped by the kill");
    await new Promise((r) => setTimeout(r, 400));
    await kill("SIGKILL");
    await inFlight;

    // 3. restart: the ledger is at the last confirmed milestone and goes on
    start();
    await until(
      async () => ((await fetch(`http://127.0.0.1:${port}/health`)).ok ? true : undefined),
      20_000,
      "restart",
    );
    const resumedAt = (await client.info()).status.latestMilestone.index;
    assert.ok(resumedAt >= indexBeforeKill, `milestone ${resumedAt} after restart, ${indexBeforeKill} before`);
    await until(
      async () => ((await client.info()).status.latestMilestone.index > resumedAt ? true : undefined),
      20_000,
      "a new milestone",
    );

    for (const [id, before] of confirmed) {
      const now = await client.outputMetadata(id);
      assert.equal(now.milestoneIndexBooked, before.milestoneIndexBooked, id);
      if (before.isSpent) {
        assert.equal(now.isSpent, true, id);
        assert.equal(now.transactionIdSpent, before.transactionIdSpent, id);
      }
    }

    // the whole supply, summed over every unspent basic output the indexer lists
    const indexer = new iota.IndexerPluginClient(`http://127.0.0.1:${port}`);
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
    for (const block of blocks.slice(12)) {
      const id = await client.blockSubmit(block);
      await until(
        async () => ((await client.blockMetadata(id)).referencedByMilestoneIndex ? true : undefined),
        20_000,
        "a resubmitted block to be referenced",
      );
      const meta = await client.blockMetadata(id);
      assert.ok(
        meta.ledgerInclusionState === "included" ||
          (meta.ledgerInclusionState === "conflicting" && meta.conflictReason === 1),
        JSON.stringify(meta),
      );
    }
    // A payment the node took in just before the kill, whose answer never reached the client,
    // continues the chain too: follow spends to the end, each one PAYMENT further.
    let end = change.id;
    let amount = change.amount;
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
