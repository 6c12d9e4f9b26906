/**
 * `npm run bench -- indexer [--outputs N] [--milestones M] [--rounds R] [--seconds S] [--connections C]`:
 * HTTP throughput of two read paths over a large database, against a bare fastify handler
 * measured in the same process and run.
 *
 * 1. A node is opened on a temporary directory (its coordinator is not started) and its LevelDB
 *    is filled directly, not through white-flag: the indexer entries of N basic outputs
 *    (default 1,000,000) spread over N/10 Ed25519 addresses, 100 of them owned by one target
 *    address, booked 1,000 per milestone and written by the indexer's own write path one
 *    milestone batch at a time; and M MilestoneByIndex records (default 100,000).
 *    The IndexerState marker is left as the node wrote it, so the indexer serves the entries as
 *    the ledger it names.
 * 2. Baseline: a fastify app with one route answering a small JSON object (logger `silent`, as
 *    the node's server here).
 * 3. `GET /api/indexer/v1/outputs/basic?address=<target>` (one page holding all 100 outputs),
 *    the same query for W distinct addresses in turn (`--wallets`, default 4,096: more than the
 *    node keeps answers for, so each is read from the indexes, as wallets syncing their own
 *    addresses are), and `GET /api/explorer/v2/milestones` (default page size 100, newest first).
 *
 * Baseline and both routes alternate in R rounds of S seconds; the median round of each is
 * reported. Load: C keep-alive connections, one request in flight each, from a minimal HTTP/1.1
 * client on a worker thread (`_httpLoad.ts`), so the client does not saturate before the server.
 *
 * `--profile DIR`: a CPU profile of the main thread (where both servers run) over each timed
 * round of the indexer query, written to DIR (docs/performance.md reads them).
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import Fastify from "fastify";
import { buildServer } from "../src/api/server.js";
import { addressToBech32 } from "../src/codec/address.js";
import type { BasicOutput, Ed25519Address } from "../src/codec/types.js";
import { addIndexWrites, type IndexableOutput } from "../src/indexer/index.js";
import { LedgerNode } from "../src/node/node.js";
import { defaultNodeOptions } from "../src/node/options.js";
import { Bucket, encodeMilestoneRecord, indexKey, indexOfKey, type KvStore } from "../src/storage/index.js";
import { argN, argS } from "./_args.js";
import { mainThreadCpuUs, startProfile } from "./_cpuTime.js";
import { getRequest, loadFromWorker } from "./_httpLoad.js";
import { printFigures, printTable } from "./_table.js";

// ---------------------------------------------------------------- setup (main thread)

const OUTPUTS = argN("--outputs", 1_000_000);
const MILESTONES = argN("--milestones", 100_000);
const ROUNDS = argN("--rounds", 3);
const SECONDS = argN("--seconds", 1);
const CONNECTIONS = argN("--connections", 32);
const WALLETS = argN("--wallets", 4096);
const TARGET_OUTPUTS = 100;
const OUTPUTS_PER_MILESTONE = 1000;
const MILESTONE_PAGE_SIZE = 100;
const BASE_TIME = 1_700_000_000;
const PROFILE_DIR = argS("--profile");

const ed25519 = (hash: Uint8Array): Ed25519Address => ({ type: 0, pubKeyHash: hash });

/**
 * Writes the indexer entries of `count` basic outputs through the indexer's own write path, one
 * batch per booking milestone as confirmation writes them; returns the target address.
 */
async function fillOutputs(
  store: KvStore,
  count: number,
): Promise<{ target: Ed25519Address; others: number; other: (k: number) => Ed25519Address }> {
  const target = ed25519(randomBytes(32));
  const others = Math.max(1, Math.floor(count / 10));
  const salt = randomBytes(32);
  // the k-th of the other addresses: the salt with k in its first four bytes
  const other = (k: number) => ed25519(Uint8Array.from(salt.map((b, j) => (j < 4 ? k >> (8 * j) : b) & 0xff)));
  const targetEvery = Math.max(1, Math.floor(count / TARGET_OUTPUTS));
  for (let first = 0; first < count; first += OUTPUTS_PER_MILESTONE) {
    const milestone = first / OUTPUTS_PER_MILESTONE;
    const created: IndexableOutput[] = [];
    for (let i = first; i < Math.min(count, first + OUTPUTS_PER_MILESTONE); i++) {
      const owner = i % targetEvery === 0 && i / targetEvery < TARGET_OUTPUTS ? target : other(i % others);
      const outputId = new Uint8Array(34);
      outputId.set(salt.subarray(0, 28));
      new DataView(outputId.buffer).setUint32(28, i, false);
      const output: BasicOutput = {
        type: 3,
        amount: 1_000_000n,
        nativeTokens: [],
        unlockConditions: [{ type: 0, address: owner }],
        features: [],
      };
      created.push({ outputId, output, bookedIndex: milestone + 1, bookedTimestamp: BASE_TIME + milestone });
    }
    const batch = store.batch();
    addIndexWrites(store, batch, { consumed: [], created });
    await batch.write({ sync: first + OUTPUTS_PER_MILESTONE >= count });
  }
  return { target, others, other };
}

/** Adds `count` MilestoneByIndex records after the last stored one. */
async function fillMilestones(store: KvStore, count: number): Promise<void> {
  let last = 0;
  for await (const key of store.scanKeys({ prefix: Uint8Array.of(Bucket.MilestoneByIndex), reverse: true, limit: 1 }))
    last = indexOfKey(key);
  let batch = store.batch();
  for (let i = 1; i <= count; i++) {
    const index = last + i;
    const record = encodeMilestoneRecord({
      milestoneId: randomBytes(32),
      blockId: randomBytes(32),
      timestamp: 2_000_000_000 + index,
    });
    batch.put(indexKey(Bucket.MilestoneByIndex, index), record);
    if (batch.size >= 20_000) {
      await batch.write({ sync: false });
      batch = store.batch();
    }
  }
  await batch.write({ sync: true });
}

/** Main-thread CPU µs and answers (warm-up included) per measured path, over all rounds. */
const cpuOf = new Map<string, { us: number; answers: number }>();
const cpuPerAnswer = (path: string) => {
  const c = cpuOf.get(path);
  return c && c.answers > 0 ? Math.round(c.us / c.answers) : 0;
};

/** Answers per second of `path`, or of `paths` asked in turn (CPU counted under `path`). */
async function rate(port: number, path: string, problems: string[], paths: string[] = [path]): Promise<number> {
  const cpu0 = mainThreadCpuUs();
  const r = await loadFromWorker({
    port,
    connections: CONNECTIONS,
    request: paths.map((p) => getRequest(port, p)),
    warmMs: 200,
    maxMs: SECONDS * 1000,
  });
  if (r.failed > 0) problems.push(`${r.failed} requests of ${path} failed`);
  const c = cpuOf.get(path) ?? { us: 0, answers: 0 };
  // the warm-up's answers are not counted by the client: taken at the measured rate
  c.us += mainThreadCpuUs() - cpu0;
  c.answers += r.ok + r.failed + ((r.ok + r.failed) * 200) / r.elapsedMs;
  cpuOf.set(path, c);
  return (r.ok * 1000) / r.elapsedMs;
}

const median = (xs: number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const spread = (xs: number[]) =>
  `${Math.round(Math.min(...xs)).toLocaleString("en-US")}..${Math.round(Math.max(...xs)).toLocaleString("en-US")}`;

async function main(): Promise<void> {
  const problems: string[] = [];
  const dir = await mkdtemp(join(tmpdir(), "ledger-node-bench-indexer-"));
  const node = await LedgerNode.open({ ...defaultNodeOptions, devAccounts: 0, dataDir: dir, logLevel: "silent" });
  const app = buildServer(node, "silent");
  const bare = Fastify({ logger: { level: "silent" } });
  bare.get("/bare", async () => ({ status: "ok", index: 1 }));
  const rounds = { bare: [] as number[], indexer: [] as number[], wallets: [] as number[], milestones: [] as number[] };
  let fillSeconds = 0;
  try {
    // the node attached its indexes and wrote their markers at open; fill after that
    await app.ready();
    const t0 = performance.now();
    const { target, others, other } = await fillOutputs(node.tangle.store, OUTPUTS);
    await fillMilestones(node.tangle.store, MILESTONES);
    fillSeconds = (performance.now() - t0) / 1000;
    await app.listen({ host: "127.0.0.1", port: 0 });
    await bare.listen({ host: "127.0.0.1", port: 0 });
    const { port } = app.server.address() as { port: number };
    const { port: barePort } = bare.server.address() as { port: number };
    const hrp = node.tangle.protocolParameters.bech32Hrp;
    const indexerPath = `/api/indexer/v1/outputs/basic?address=${addressToBech32(target, hrp)}`;
    const milestonesPath = `/api/explorer/v2/milestones?pageSize=${MILESTONE_PAGE_SIZE}`;
    // distinct addresses asked in turn, more than the kept answers hold (api/milestoneAnswers.ts):
    // each answer is read from the indexes, as for wallets that each sync their own addresses
    const wallets = Math.min(WALLETS, others);
    const walletPaths = Array.from(
      { length: wallets },
      (_, k) =>
        `/api/indexer/v1/outputs/basic?address=${addressToBech32(other(Math.floor((k * others) / wallets)), hrp)}`,
    );

    // the answers are what the bench claims before anything is timed
    const check = await app.inject({ method: "GET", url: indexerPath });
    const items = (check.json() as { items?: unknown[] }).items?.length;
    if (check.statusCode !== 200 || items !== Math.min(TARGET_OUTPUTS, OUTPUTS))
      problems.push(`the indexer query answered ${check.statusCode} with ${items} items`);
    const wallet = await app.inject({ method: "GET", url: walletPaths[1]! });
    const walletItems = (wallet.json() as { items?: unknown[] }).items?.length ?? 0;
    if (wallet.statusCode !== 200 || walletItems < 1 || walletItems > Math.ceil(OUTPUTS / others))
      problems.push(`a wallet address's query answered ${wallet.statusCode} with ${walletItems} items`);
    const ms = await app.inject({ method: "GET", url: milestonesPath });
    if (ms.statusCode !== 200 || (ms.json() as { items: unknown[] }).items.length !== MILESTONE_PAGE_SIZE)
      problems.push(`the milestone listing answered ${ms.statusCode}`);

    for (let round = 0; round < ROUNDS; round++) {
      rounds.bare.push(await rate(barePort, "/bare", problems));
      const stopProfile = await startProfile(PROFILE_DIR, `indexer-query-${round}`, { intervalUs: 100 });
      rounds.indexer.push(await rate(port, indexerPath, problems));
      await stopProfile();
      const stopWallets = await startProfile(PROFILE_DIR, `indexer-wallets-${round}`, { intervalUs: 100 });
      rounds.wallets.push(await rate(port, "wallets", problems, walletPaths));
      await stopWallets();
      rounds.milestones.push(await rate(port, milestonesPath, problems));
    }
  } finally {
    await bare.close();
    await app.close();
    await node.close();
    await rm(dir, { recursive: true, force: true });
  }

  const bareHandlerPerSec = median(rounds.bare);
  const indexerQueriesPerSec = median(rounds.indexer);
  const walletQueriesPerSec = median(rounds.wallets);
  const milestonesListPerSec = median(rounds.milestones);
  const pct = (v: number) => `${((100 * v) / bareHandlerPerSec).toFixed(0)}% of bare`;
  printTable(
    `indexer: HTTP over loopback, ${CONNECTIONS} keep-alive connections, ${availableParallelism()} cores, ` +
      `median of ${ROUNDS} alternating ${SECONDS} s rounds; database filled in ${fillSeconds.toFixed(1)} s`,
    [
      {
        name: "bare fastify handler, small JSON",
        value: bareHandlerPerSec,
        unit: "req/s",
        baseline: `rounds ${spread(rounds.bare)}`,
      },
      {
        name: `GET indexer basic ?address (${TARGET_OUTPUTS} of ${OUTPUTS.toLocaleString("en-US")} outputs)`,
        value: indexerQueriesPerSec,
        unit: "req/s",
        target: ">= 5,000/s",
        baseline: `${pct(indexerQueriesPerSec)}, rounds ${spread(rounds.indexer)}`,
      },
      {
        name: `GET indexer basic ?address, ${WALLETS.toLocaleString("en-US")} addresses in turn (about ${Math.round(OUTPUTS / Math.max(1, Math.floor(OUTPUTS / 10)))} outputs each)`,
        value: walletQueriesPerSec,
        unit: "req/s",
        target: ">= 25% of bare",
        baseline: `${pct(walletQueriesPerSec)}, rounds ${spread(rounds.wallets)}`,
      },
      {
        name: `GET explorer milestones, page ${MILESTONE_PAGE_SIZE} (${MILESTONES.toLocaleString("en-US")} stored)`,
        value: milestonesListPerSec,
        unit: "req/s",
        target: ">= 5,000/s",
        baseline: `${pct(milestonesListPerSec)}, rounds ${spread(rounds.milestones)}`,
      },
    ],
  );
  for (const p of problems) console.error(p);
  if (problems.length > 0) process.exitCode = 1;
  printFigures("indexer", {
    bareHandlerPerSec: Math.round(bareHandlerPerSec),
    indexerQueriesPerSec: Math.round(indexerQueriesPerSec),
    milestonesListPerSec: Math.round(milestonesListPerSec),
    walletQueriesPerSec: Math.round(walletQueriesPerSec),
    walletRatio: Math.round((1000 * walletQueriesPerSec) / bareHandlerPerSec) / 1000,
    // the main thread's CPU per answer (both servers run there): steadier than rates on a shared machine
    bareCpuUsPerRequest: cpuPerAnswer("/bare"),
    indexerCpuUsPerRequest: cpuPerAnswer([...cpuOf.keys()].find((p) => p.startsWith("/api/indexer")) ?? ""),
    walletCpuUsPerRequest: cpuPerAnswer("wallets"),
    milestonesCpuUsPerRequest: cpuPerAnswer([...cpuOf.keys()].find((p) => p.startsWith("/api/explorer")) ?? ""),
  });
}

await main();
