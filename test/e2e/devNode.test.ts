import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { after, before, describe, it } from "node:test";
import mqtt from "mqtt";
import { DEFAULT_DEV_MNEMONIC, deriveDevAccounts, SHIMMER_COIN_TYPE } from "../../src/node/devAccounts.js";
import { type CoreClient, iota, type Json } from "../helpers/iota.js";
import { removeDir, tempDir } from "../helpers/node.js";
import { NodeProcess } from "../helpers/nodeProcess.js";
import { type SdkAccount, type SdkTransaction, sdk } from "../helpers/sdkWallet.js";
import { type OwnedOutput, StardustWallet } from "../helpers/stardustWallet.js";
import { waitFor } from "../helpers/waitFor.js";

/**
 * The node for builders end to end (docs/decisions.md, A node for builders): a dev node process
 * with ten funded accounts and auto milestones, driven by the official SDK's wallet
 * (`@iota/sdk-wasm@1.1.3`) from the well-known mnemonic, with no faucet, and by transactions
 * this test signs with the accounts' own keys where the wallet cannot (it classifies time locks
 * with the local clock, not the node's). It checks inclusion within a second of a send, time
 * travel across a timelock and an expiration (TIP-18: the confirming milestone's timestamp
 * decides), a saved state put back exactly (balances, indexer, info, and the wallet's view),
 * refusals that change nothing, and that a network that is not a dev network has no dev routes.
 */

const ACCOUNTS = 10;
const ACCOUNT_BALANCE = 1_000_000_000_000n;
const HOUR = 3600;
/** The dev routes' error body. */
const ERROR_BODY = { code: "number", message: "string", details: "string" } as const;

const hexU8 = (n: number): string => (n % 256).toString(16).padStart(2, "0");
const cli = (...args: string[]) => spawnSync(process.execPath, ["dist/src/cli/main.js", ...args], { encoding: "utf8" });

/** A POST with a JSON body (none when `body` is undefined); answers the status and the JSON answer. */
async function post(url: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const res = await fetch(url, {
    method: "POST",
    ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Json) : {} };
}

/** Fails unless `r` is an error answer of `status` whose details match `details`. */
function assertError(r: { status: number; body: Json }, status: number, details: RegExp, what: string): void {
  assert.equal(r.status, status, `${what}: ${JSON.stringify(r.body)}`);
  for (const [field, type] of Object.entries(ERROR_BODY)) {
    assert.equal(typeof r.body.error?.[field], type, `${what}: error.${field} in ${JSON.stringify(r.body)}`);
  }
  assert.match(r.body.error.details, details, what);
}

/** The output of `tx` (as the SDK answers it) whose unlock conditions include one of `type`. */
function outputIndexWith(tx: SdkTransaction, type: number): number {
  const outputs = JSON.parse(JSON.stringify(tx.payload.essence.outputs)) as Json[];
  const i = outputs.findIndex((o) => (o.unlockConditions as Json[]).some((u) => u.type === type));
  assert.ok(i >= 0, `an output with unlock condition ${type} in ${JSON.stringify(outputs)}`);
  return i;
}

describe("a node for builders: dev accounts, auto milestones, time travel, saved states", { timeout: 60_000 }, () => {
  let node: NodeProcess;
  let client: CoreClient;
  let wallet: InstanceType<typeof sdk.Wallet> | undefined;
  const accounts: SdkAccount[] = [];
  const addresses: string[] = [];
  /** Accounts 0..2 as keys this test signs with (their SLIP-10 keys, derived by the node's own code). */
  const keys: StardustWallet[] = [];

  const json = (path: string): Promise<Json> => node.json(path);
  const confirmedIndex = async (): Promise<number> => (await node.info()).status.confirmedMilestone.index;

  /**
   * Polls the block's metadata every 5 ms until a milestone decided on it (`ledgerInclusionState`);
   * answers the metadata and how long that took.
   */
  const decided = async (blockId: string, ms = 10_000): Promise<{ meta: Json; ms: number }> => {
    const t0 = performance.now();
    const meta = await waitFor(
      async () => {
        const m = await json(`/api/core/v2/blocks/${blockId}/metadata`);
        return m.ledgerInclusionState === undefined ? undefined : m;
      },
      ms,
      `a milestone deciding on block ${blockId}`,
      5,
    );
    return { meta, ms: performance.now() - t0 };
  };
  const includedSdk = async (tx: SdkTransaction, what: string): Promise<{ meta: Json; ms: number }> => {
    assert.ok(tx.blockId, `${what}: the SDK answers a block ID`);
    const r = await decided(tx.blockId);
    assert.equal(r.meta.ledgerInclusionState, "included", `${what}: ${JSON.stringify(r.meta)}`);
    return r;
  };
  /** The node's output `outputId` as an input this test can sign for. */
  const owned = async (outputId: string): Promise<OwnedOutput> => ({
    outputId,
    output: (await json(`/api/core/v2/outputs/${outputId}`)).output,
  });
  const milestoneTimestamp = async (index: number): Promise<number> =>
    (await json(`/api/core/v2/milestones/by-index/${index}`)).timestamp as number;

  before(async () => {
    node = await NodeProcess.create("dev", ["--dev-accounts", String(ACCOUNTS), "--milestones", "auto"]);
    node.start();
    await node.waitHealthy();
    client = new iota.SingleNodeClient(node.url);
    const derived = deriveDevAccounts({ mnemonic: DEFAULT_DEV_MNEMONIC, count: 3, coinType: SHIMMER_COIN_TYPE });
    for (const a of derived) keys.push(await StardustWallet.open(client, `0x${Buffer.from(a.seed).toString("hex")}`));
  });
  after(async () => {
    await wallet?.destroy();
    if (node) assert.equal(await node.close(), 0, `the node did not shut down cleanly: ${node.output}`);
  });

  it("funds the SDK wallet's accounts 0..9 of the default mnemonic at genesis, no faucet asked", async () => {
    const t0 = performance.now();
    wallet = new sdk.Wallet({
      storagePath: join(node.dataDir, "sdk-wallet"),
      clientOptions: { nodes: [node.url] },
      coinType: sdk.CoinType.Shimmer,
      secretManager: { mnemonic: DEFAULT_DEV_MNEMONIC },
    });
    for (let i = 0; i < ACCOUNTS; i++) {
      const account = await wallet.createAccount({ alias: `account ${i}` });
      accounts.push(account);
      addresses.push((await account.addresses())[0]!.address);
    }
    for (const [i, account] of accounts.entries()) {
      const balance = await account.sync();
      assert.equal(BigInt(balance.baseCoin.total), ACCOUNT_BALANCE, `account ${i}'s balance as the wallet syncs it`);
    }
    console.log(`wallet: ${ACCOUNTS} accounts created and synced in ${(performance.now() - t0).toFixed(0)} ms`);

    const listed = await json("/api/dev/v1/accounts");
    assert.equal(listed.coinType, SHIMMER_COIN_TYPE);
    assert.deepEqual(
      listed.accounts.map((a: Json) => [a.index, a.path, a.address, a.balance]),
      addresses.map((address, i) => [i, `m/44'/4219'/${i}'/0'/0'`, address, ACCOUNT_BALANCE.toString()]),
    );
    assert.deepEqual(
      keys.map((k) => k.bech32),
      addresses.slice(0, keys.length),
      "the keys the test signs with own accounts 0..2",
    );
    // the faucet paid nothing: its balance is the dev key's genesis output less the accounts' funds
    const faucet = await json("/api/faucet/v1/info");
    const supply = BigInt((await node.info()).protocol.tokenSupply);
    assert.equal(BigInt(faucet.balance), supply - BigInt(ACCOUNTS) * ACCOUNT_BALANCE);
    assert.ok((await json("/api/routes")).routes.includes("dev/v1"), "the dev routes are listed");
  });

  it("includes a send within a second of sendWithParams returning (auto milestones)", async () => {
    const t0 = performance.now();
    const tx = await accounts[0]!.sendWithParams([{ address: addresses[1]!, amount: "1000000" }]);
    const sendMs = performance.now() - t0;
    const { ms } = await includedSdk(tx, "the send");
    console.log(`send 0 -> 1: sendWithParams ${sendMs.toFixed(0)} ms, then included after ${ms.toFixed(0)} ms`);
    assert.ok(ms < 1000, `included ${ms.toFixed(0)} ms after sendWithParams returned`);
    const listed = await json("/api/dev/v1/accounts");
    assert.equal(listed.accounts[1].balance, (ACCOUNT_BALANCE + 1_000_000n).toString());
  });

  it("a timelocked output cannot be spent until the clock passes the lock; then the same spend is included", async () => {
    const before = await json("/api/dev/v1/time");
    assert.equal(before.offsetSeconds, 0);
    const lockAt = before.timestamp + HOUR;
    await accounts[0]!.sync({ forceSyncing: true });
    const out = await accounts[0]!.prepareOutput({
      recipientAddress: addresses[1]!,
      amount: "2000000",
      unlocks: { timelockUnixTime: lockAt },
    });
    const tx = await accounts[0]!.sendOutputs([out]);
    await includedSdk(tx, "the timelocked output");
    const outputId = iota.TransactionHelper.outputIdFromTransactionData(tx.transactionId, outputIndexWith(tx, 2));
    const locked = await owned(outputId);
    assert.deepEqual(
      (locked.output.unlockConditions as Json[]).find((u) => u.type === 2),
      { type: 2, unixTime: lockAt },
      "the timelock as the ledger holds it",
    );

    // account 1 spends it at once: the confirming milestone's timestamp is before the lock
    const spend = await keys[1]!.send(
      "spend the timelocked output",
      [locked],
      [{ type: 3, amount: locked.output.amount, unlockConditions: [{ type: 0, address: keys[1]!.address }] }],
    );
    const refused = (await decided(spend.blockId)).meta;
    assert.equal(refused.ledgerInclusionState, "conflicting", JSON.stringify(refused));
    assert.equal(refused.conflictReason, 6, "timelock not expired");
    assert.ok((await milestoneTimestamp(refused.referencedByMilestoneIndex)) < lockAt);
    assert.equal((await json(`/api/core/v2/outputs/${outputId}/metadata`)).isSpent, false);

    // an hour and a second later on the node's clock, the same transaction in a new block is included
    const moved = await post(`${node.url}/api/dev/v1/time`, { increaseSeconds: HOUR + 1 });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    assert.ok(moved.body.offsetSeconds >= HOUR + 1, JSON.stringify(moved.body));
    assert.ok(moved.body.nextMilestoneTimestamp >= lockAt, JSON.stringify(moved.body));
    const again = await client.blockSubmit({ payload: spend.payload });
    assert.notEqual(again, spend.blockId, "a new block");
    const accepted = (await decided(again)).meta;
    assert.equal(accepted.ledgerInclusionState, "included", JSON.stringify(accepted));
    const timestamp = await milestoneTimestamp(accepted.referencedByMilestoneIndex);
    assert.ok(
      timestamp >= lockAt,
      `the including milestone's timestamp ${timestamp} is at or after the lock ${lockAt}`,
    );
    assert.equal((await json(`/api/core/v2/outputs/${outputId}/metadata`)).isSpent, true);
  });

  it("an expired output goes back to its return address: the sender spends it", async () => {
    const now = (await json("/api/dev/v1/time")).timestamp as number;
    const expireAt = now + HOUR;
    await accounts[0]!.sync({ forceSyncing: true });
    const out = await accounts[0]!.prepareOutput({
      recipientAddress: addresses[2]!,
      amount: "3000000",
      unlocks: { expirationUnixTime: expireAt },
    });
    const tx = await accounts[0]!.sendOutputs([out]);
    await includedSdk(tx, "the expiring output");
    const outputId = iota.TransactionHelper.outputIdFromTransactionData(tx.transactionId, outputIndexWith(tx, 3));
    const expiring = await owned(outputId);
    assert.deepEqual(
      (expiring.output.unlockConditions as Json[]).find((u) => u.type === 3),
      { type: 3, returnAddress: keys[0]!.address, unixTime: expireAt },
      "the expiration as the ledger holds it: back to account 0",
    );
    const available = async (k: StardustWallet) =>
      BigInt((await json(`/api/explorer/v2/balance/${k.bech32}`)).availableBalance);
    const recipientBefore = await available(keys[2]!);

    // account 0, the return address, claims it before it expires: the recipient still owns it
    const claim = await keys[0]!.send(
      "claim the expiring output",
      [expiring],
      [{ type: 3, amount: expiring.output.amount, unlockConditions: [{ type: 0, address: keys[0]!.address }] }],
    );
    const refused = (await decided(claim.blockId)).meta;
    assert.equal(refused.ledgerInclusionState, "conflicting", JSON.stringify(refused));
    assert.equal(refused.conflictReason, 5, "account 0's signature does not unlock account 2's output yet");
    assert.ok((await milestoneTimestamp(refused.referencedByMilestoneIndex)) < expireAt);

    // an hour and a second later, and a milestone that carries the new time
    const moved = await post(`${node.url}/api/dev/v1/time`, { increaseSeconds: HOUR + 1 });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    const issued = await post(`${node.url}/api/dev/v1/milestones`, { count: 1 });
    assert.equal(issued.status, 200, JSON.stringify(issued.body));
    assert.equal(issued.body.milestones.length, 1);
    assert.ok(issued.body.milestones[0].timestamp >= expireAt, JSON.stringify(issued.body));
    assert.equal(
      recipientBefore - (await available(keys[2]!)),
      BigInt(expiring.output.amount),
      "the recipient can no longer unlock it",
    );

    // the same claim in a new block is included: the output went back to account 0
    const again = await client.blockSubmit({ payload: claim.payload });
    const accepted = (await decided(again)).meta;
    assert.equal(accepted.ledgerInclusionState, "included", JSON.stringify(accepted));
    assert.equal((await json(`/api/core/v2/outputs/${outputId}/metadata`)).isSpent, true);
  });

  it("reverts to a saved state: balances, indexer, info and the wallet's view as they were", async () => {
    const saved = await post(`${node.url}/api/dev/v1/state`);
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
    const { id } = saved.body;
    const record = async () => ({
      accounts: await json("/api/dev/v1/accounts"),
      indexer: await Promise.all(addresses.slice(0, 4).map((a) => json(`/api/indexer/v1/outputs/basic?address=${a}`))),
      info: await node
        .info()
        .then(({ status, metrics, protocol, baseToken }) => ({ status, metrics, protocol, baseToken })),
    });
    const walletTotals = async () => {
      const totals: bigint[] = [];
      for (const a of accounts.slice(0, 4)) totals.push(BigInt((await a.sync({ forceSyncing: true })).baseCoin.total));
      return totals;
    };
    const recorded = await record();
    assert.equal(recorded.info.status.confirmedMilestone.index, saved.body.milestoneIndex);
    const walletBefore = await walletTotals();

    for (const from of [0, 1, 2]) {
      await accounts[from]!.sync({ forceSyncing: true });
      const tx = await accounts[from]!.sendWithParams([{ address: addresses[3]!, amount: "1000000" }]);
      await includedSdk(tx, `transfer ${from} -> 3`);
    }
    const moved = await record();
    assert.equal(
      BigInt(moved.accounts.accounts[3].balance),
      BigInt(recorded.accounts.accounts[3].balance) + 3_000_000n,
    );
    assert.ok(moved.info.status.confirmedMilestone.index > recorded.info.status.confirmedMilestone.index);

    const t0 = performance.now();
    const reverted = await post(`${node.url}/api/dev/v1/state/${id}/revert`);
    console.log(`revert: ${(performance.now() - t0).toFixed(0)} ms`);
    assert.equal(reverted.status, 200, JSON.stringify(reverted.body));
    assert.deepEqual(reverted.body, { milestoneIndex: saved.body.milestoneIndex, dropped: [id] });
    assert.deepEqual(await record(), recorded);
    assert.deepEqual((await json("/api/dev/v1/state")).states, [], "the state is dropped once reverted to");
    assert.deepEqual(await walletTotals(), walletBefore, "the wallet syncs the balances from before the transfers");
  });

  it("goes on publishing events after a revert: the milestone it is back at, then the next ones", async () => {
    const client = await mqtt.connectAsync(`${node.url.replace("http", "ws")}/api/mqtt/v1`, { reconnectPeriod: 0 });
    try {
      const confirmed: number[] = [];
      client.on("message", (_topic, payload) => confirmed.push(JSON.parse(payload.toString()).index));
      await client.subscribeAsync("milestone-info/confirmed");
      // the current state at subscription
      await waitFor(() => confirmed.length > 0, 5000, "the confirmed milestone at subscription");
      const saved = await post(`${node.url}/api/dev/v1/state`);
      const [later] = (await post(`${node.url}/api/dev/v1/milestones`, { count: 2 })).body.milestones;
      assert.equal(later.index, saved.body.milestoneIndex + 1);
      confirmed.length = 0;
      assert.equal((await post(`${node.url}/api/dev/v1/state/${saved.body.id}/revert`)).status, 200);
      await waitFor(() => confirmed.includes(saved.body.milestoneIndex), 5000, "the milestone the node is back at");
      const [next] = (await post(`${node.url}/api/dev/v1/milestones`)).body.milestones;
      assert.equal(next.index, saved.body.milestoneIndex + 1, "the index after the saved one again");
      await waitFor(() => confirmed.includes(next.index), 5000, "the next milestone after the revert");
    } finally {
      await client.endAsync();
    }
  });

  it("refuses bad requests, each with its reason, and changes nothing", async () => {
    const info0 = await node.info();
    const time0 = await json("/api/dev/v1/time");
    assertError(
      await post(`${node.url}/api/dev/v1/time`, { timestamp: Math.floor(Date.now() / 1000) - 100 }),
      400,
      /not ahead of the node's clock/,
      "a timestamp in the past",
    );
    assertError(
      await post(`${node.url}/api/dev/v1/time`, { timestamp: 4294967290 }),
      400,
      /is too far: .* to 4263431295 at the latest \(a year before 4294967295/,
      "a timestamp that leaves no room for milestones",
    );
    for (const [count, details] of [
      [0, /count: must be >= 1/],
      [10_000, /count: must be <= 100/],
    ] as const) {
      assertError(await post(`${node.url}/api/dev/v1/milestones`, { count }), 400, details, `${count} milestones`);
    }
    assertError(await post(`${node.url}/api/dev/v1/state/999/revert`), 404, /no saved state 999/, "an unknown state");
    const time1 = await json("/api/dev/v1/time");
    assert.equal(time1.offsetSeconds, time0.offsetSeconds, "the clock did not move");
    assert.equal(time1.latestMilestoneTimestamp, time0.latestMilestoneTimestamp);
    assert.equal(await confirmedIndex(), info0.status.confirmedMilestone.index, "no milestone was issued");

    // a mnemonic that is not one: the process exits 2 before it writes anything
    const dir = await tempDir("dev-mnemonic");
    try {
      const dataDir = join(dir, "data");
      const r = cli("--dev-mnemonic", "not a mnemonic at all", "--data-dir", dataDir, "--api-port", "0");
      assert.equal(r.status, 2, `${r.stdout}${r.stderr}`);
      assert.match(r.stderr, /BIP-39/);
      assert.deepEqual(await readdir(dataDir).catch(() => []), [], "nothing written");
    } finally {
      await removeDir(dir);
    }
  });

  it("refuses a revert while blocks are being submitted, and loses none of them", async () => {
    // as many as the node mines at once by default (--pow-queue 16): more would answer 503
    const BLOCKS = 16;
    // tagged data, each block its own (the same block twice would be one block)
    const block = (i: number) => ({ protocolVersion: 2, payload: { type: 5, tag: "0x01", data: `0x02${hexU8(i)}` } });
    for (let attempt = 1; ; attempt++) {
      assert.ok(attempt <= 10, "a revert during the submissions in 10 attempts");
      const saved = await post(`${node.url}/api/dev/v1/state`);
      assert.equal(saved.status, 200, JSON.stringify(saved.body));
      const submissions = Array.from({ length: BLOCKS }, (_, i) =>
        post(`${node.url}/api/core/v2/blocks`, block(attempt * BLOCKS + i)),
      );
      // once the first is answered, the others are still being taken in
      await Promise.race(submissions);
      const revert = await post(`${node.url}/api/dev/v1/state/${saved.body.id}/revert`);
      const answers = await Promise.all(submissions);
      if (revert.status === 200) {
        console.log(`attempt ${attempt}: every submission was answered before the revert; again`);
        continue;
      }
      assertError(revert, 400, /being submitted/, "a revert during submissions");
      console.log(`attempt ${attempt}: revert refused: ${revert.body.error.details}`);
      for (const a of answers) assert.equal(a.status, 201, JSON.stringify(a.body));
      const ids = answers.map((a) => a.body.blockId as string);
      assert.equal(new Set(ids).size, BLOCKS);
      for (const blockId of ids) {
        assert.equal((await node.get(`/api/core/v2/blocks/${blockId}`)).status, 200, `block ${blockId}`);
        assert.equal((await decided(blockId)).meta.ledgerInclusionState, "noTransaction");
      }
      assert.deepEqual(
        (await json("/api/dev/v1/state")).states.map((s: Json) => s.id),
        [saved.body.id],
        "the state is kept",
      );
      return;
    }
  });
});

describe("a network that is not a dev network has no dev routes", { timeout: 30_000 }, () => {
  let dir: string;
  let node: NodeProcess;

  before(async () => {
    dir = await tempDir("plain-net");
    const keys = ["coordinator", "holder"].map((name) => {
      const r = cli("keygen", "--out", join(dir, `${name}.key`), "--hrp", "pln");
      assert.equal(r.status, 0, r.stderr);
      return JSON.parse(r.stdout.trim()) as Json;
    });
    const file = {
      networkName: "plain-net",
      bech32Hrp: "pln",
      tokenSupply: "1000000000000",
      protocolVersion: 2,
      minPowScore: 10,
      belowMaxDepth: 15,
      rentStructure: { vByteCost: 100, vByteFactorData: 1, vByteFactorKey: 10 },
      milestoneIntervalMs: 250,
      allocations: [{ address: keys[1]!.address, amount: "1000000000000" }],
      coordinator: { publicKeys: [keys[0]!.publicKey], threshold: 1 },
    };
    const path = join(dir, "network.json");
    await writeFile(path, JSON.stringify(file));
    node = await NodeProcess.create("plain");
    const r = cli("init", "--network", path, "--data-dir", node.dataDir, "--coordinator-key", keys[0]!.keyFile);
    assert.equal(r.status, 0, r.stderr);
    node.start();
    await node.waitHealthy();
  });
  after(async () => {
    await node?.dispose();
    if (dir) await removeDir(dir);
  });

  it("answers 404 at the dev routes and lists none", async () => {
    assert.equal((await node.info()).protocol.networkName, "plain-net");
    const accounts = await node.get("/api/dev/v1/accounts");
    assert.equal(accounts.status, 404, JSON.stringify(accounts.body));
    const save = await post(`${node.url}/api/dev/v1/state`);
    assert.equal(save.status, 404, JSON.stringify(save.body));
    const { routes } = await node.json("/api/routes");
    assert.ok(routes.includes("core/v2"), JSON.stringify(routes));
    assert.deepEqual(
      (routes as string[]).filter((r) => r.startsWith("dev/") || r.includes("/api/dev/")),
      [],
      JSON.stringify(routes),
    );
  });
});
