/**
 * `npm run bench -- api [--rounds R] [--seconds S] [--connections C] [--blocks N]`: HTTP
 * throughput of the API over real loopback sockets, against a bare fastify handler measured in
 * the same process and run.
 *
 * 1. Baseline: a fastify app with one route answering a small JSON object, built with the same
 *    logger setting as the node's server (`silent`), so the ratio measures the route's own work.
 * 2. `GET /api/core/v3/outputs/:id/full` of the middle output of a signed three-output
 *    transaction on a node opened in this process (LevelDB on a temporary dir, default
 *    `minPowScore` 100, a few milestones). Baseline and v3 read alternate in R rounds of S
 *    seconds each; the median round of each is reported. `--reads-only` runs items 1 and 2 alone.
 * 3. `POST /api/core/v2/blocks` of N distinct tagged-data blocks as TIP-25 JSON, parents set to
 *    the node's tips (its latest milestone block), nonces mined to `minPowScore` beforehand (not
 *    timed); a 201 counts. The coordinator is not running during the timed submission: its
 *    checkpoint blocks over thousands of fresh tips would be mined on the same cores.
 * 4. `POST /api/core/v2/blocks` of M signed transfers (`--tx-blocks`, 10,000: bench core's
 *    workload) as TIP-25 JSON with parents left to the node, against the same transfers through
 *    the node's own submit path as `bench core` drives it, in alternating runs (`--tx-runs`, 2)
 *    on fresh nodes with the indexes and milestones every 500 ms, each clock stopped once the
 *    last block is referenced (`jsonSubmitRatio`, issue 26's target 0.8). The JSON route is
 *    warmed first by 1,000 tagged-data blocks (untimed, confirmed before the clock starts), as
 *    the own path is by the funding.
 *
 *    `--transfers-only` runs this item alone.
 *
 * Load: C keep-alive connections with one request in flight each, after an untimed warm-up,
 * until the time is up (reads) or the N blocks are sent (at most 60 s). The client runs on a
 * worker thread of this process. It is a minimal HTTP/1.1 client (pre-serialized requests,
 * responses framed by Content-Length), because node's `http` client saturates first: with
 * `http.Agent({keepAlive: true})` the client thread was ~90% busy while the bare server was
 * ~33% busy, which measures the client rather than the server.
 *
 * `--profile DIR`: a CPU profile of the main thread (where both servers run) over each timed read
 * round, bare and v3, and over the timed submissions, written to DIR (docs/performance.md reads them).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { connect, type Socket } from "node:net";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import Fastify from "fastify";
import { buildServer } from "../src/api/server.js";
import { blockToJson, encodeBlock } from "../src/codec/block.js";
import { fromHex, toHex } from "../src/codec/hex.js";
import {
  blockIdFromBytes,
  computeTransactionId,
  essenceSigningHash,
  inputsCommitment,
  networkIdFromName,
  outputIdFromParts,
  utxoInputOfOutputId,
} from "../src/codec/ids.js";
import { encodePayload } from "../src/codec/payload.js";
import type { BasicOutput, Block, TransactionPayload } from "../src/codec/types.js";
import { blake2b256, ed25519KeyPairFromSeed, ed25519Sign } from "../src/crypto/index.js";
import { DEV_KEY, devGenesisOutput, GENESIS_OUTPUT_ID } from "../src/node/devNetwork.js";
import { LedgerNode } from "../src/node/node.js";
import { defaultNodeOptions } from "../src/node/options.js";
import { closeMinerPool, minerPool, powDigest, powScore, withNonce } from "../src/pow/index.js";
import { argN, argS, hasFlag } from "./_args.js";
import { gcPauses, mainThreadCpuUs, startProfile, thisThreadCpuUs } from "./_cpuTime.js";
import { frameBlock } from "./_frameBlock.js";
import { closeFundedNode, fundedNode, spentCount, startMilestones, untilReferenced } from "./_signedIntake.js";
import { median } from "./_stats.js";
import { printFigures, printTable } from "./_table.js";
import { fanOut, selfTransfer } from "./_transfers.js";

// ---------------------------------------------------------------- load generator (worker thread)

/** One measured stretch: requests sent in order (or round-robin when `cycle`) until done or timed out. */
interface Phase {
  requests: Uint8Array[];
  cycle: boolean;
  maxMs: number;
}
interface LoadJob {
  port: number;
  connections: number;
  phases: Phase[];
}
interface PhaseResult {
  statuses: Record<number, number>;
  responses: number;
  elapsedMs: number;
  /** The client's own CPU time over the phase (its worker thread), in µs. */
  clientCpuUs: number;
}

/** One keep-alive connection with at most one request in flight. */
class HttpConnection {
  private buffer: Buffer = Buffer.alloc(0);
  private pending: { resolve: (status: number) => void; reject: (e: Error) => void } | undefined;

  private constructor(private readonly socket: Socket) {
    socket.setNoDelay(true);
    socket.on("data", (chunk: Buffer) => this.onData(chunk));
    socket.on("error", (e) => this.fail(e));
    socket.on("close", () => this.fail(new Error("the server closed the connection")));
  }

  static open(port: number): Promise<HttpConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => resolve(new HttpConnection(socket)));
      socket.once("error", reject);
    });
  }

  /** Sends pre-serialized request bytes; resolves to the response status once its body is in. */
  request(bytes: Uint8Array): Promise<number> {
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      this.socket.write(bytes);
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    const headEnd = this.buffer.indexOf("\r\n\r\n");
    if (headEnd < 0) return;
    const head = this.buffer.toString("latin1", 0, headEnd);
    const length = /\r\ncontent-length: *(\d+)/i.exec(head);
    if (!length) {
      this.fail(new Error(`a response without Content-Length: ${head}`));
      return;
    }
    const end = headEnd + 4 + Number(length[1]);
    if (this.buffer.length < end) return;
    this.buffer = this.buffer.subarray(end);
    const pending = this.pending;
    this.pending = undefined;
    pending?.resolve(Number(head.slice(9, 12)));
  }

  private fail(e: Error): void {
    const pending = this.pending;
    this.pending = undefined;
    pending?.reject(e);
  }
}

async function runLoad(job: LoadJob): Promise<PhaseResult[]> {
  const connections = await Promise.all(Array.from({ length: job.connections }, () => HttpConnection.open(job.port)));
  const results: PhaseResult[] = [];
  for (const phase of job.phases) {
    const statuses: Record<number, number> = {};
    let next = 0;
    let responses = 0;
    const start = performance.now();
    const cpu0 = thisThreadCpuUs();
    const deadline = start + phase.maxMs;
    const take = (): Uint8Array | undefined => {
      if (performance.now() >= deadline) return undefined;
      if (phase.cycle) return phase.requests[next++ % phase.requests.length];
      return phase.requests[next++];
    };
    await Promise.all(
      connections.map(async (c) => {
        for (let r = take(); r !== undefined; r = take()) {
          const status = await c.request(r);
          statuses[status] = (statuses[status] ?? 0) + 1;
          responses++;
        }
      }),
    );
    results.push({ statuses, responses, elapsedMs: performance.now() - start, clientCpuUs: thisThreadCpuUs() - cpu0 });
  }
  for (const c of connections) c.close();
  return results;
}

/** Runs `phases` from a worker thread against `port`; returns the result of each phase. */
function loadFromWorker(port: number, connections: number, phases: Phase[]): Promise<PhaseResult[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url), { workerData: { port, connections, phases } });
    worker.once("message", resolve);
    worker.once("error", reject);
    worker.once("exit", (code) => code !== 0 && reject(new Error(`the load worker exited with ${code}`)));
  });
}

// ---------------------------------------------------------------- measurements (main thread)

const SECONDS = argN("--seconds", 1);
const ROUNDS = argN("--rounds", 5);
const CONNECTIONS = argN("--connections", 32);
const BLOCKS = argN("--blocks", 4000);
const WARMUP_BLOCKS = Math.min(1000, Math.ceil(BLOCKS / 4));
const PROFILE_DIR = argS("--profile");
const TX_BLOCKS = argN("--tx-blocks", 10_000);
const TX_RUNS = argN("--tx-runs", 2);
const MILESTONE_MS = 500;
const WARMUP_TRANSFER_ROUTE = 1000;

const get = (port: number, path: string) =>
  Buffer.from(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: application/json\r\n\r\n`);
const postJson = (port: number, path: string, body: string) => {
  const length = Buffer.byteLength(body);
  return Buffer.from(
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
      `Accept: application/json\r\nContent-Length: ${length}\r\n\r\n${body}`,
  );
};

/** Requests per second of `path` over `CONNECTIONS` connections for `SECONDS`, after a short warm-up. */
async function readRate(
  port: number,
  path: string,
): Promise<{ perSec: number; failed: number; responses: number; cpuUs: number }> {
  const requests = [get(port, path)];
  // the warm-up's CPU time is counted too, and its answers with it
  const cpu0 = mainThreadCpuUs();
  const [warm, timed] = await loadFromWorker(port, CONNECTIONS, [
    { requests, cycle: true, maxMs: 200 },
    { requests, cycle: true, maxMs: SECONDS * 1000 },
  ]);
  const cpuUs = mainThreadCpuUs() - cpu0;
  const ok = timed!.statuses[200] ?? 0;
  return {
    perSec: (ok * 1000) / timed!.elapsedMs,
    failed: timed!.responses - ok,
    responses: warm!.responses + timed!.responses,
    cpuUs,
  };
}

/**
 * The bare handler and the node's route, measured in alternating rounds, median of each: on a
 * machine that other work shares, a burst of it then lands on both sides instead of one.
 */
async function readRates(nodePort: number, v3Path: string, problems: string[]) {
  const bare = Fastify({ logger: { level: "silent" } });
  bare.get("/bare", async () => ({ status: "ok", index: 1 }));
  await bare.listen({ host: "127.0.0.1", port: 0 });
  const { port: barePort } = bare.server.address() as { port: number };
  const bareRounds: number[] = [];
  const v3Rounds: number[] = [];
  const cpu = { bare: { us: 0, n: 0 }, v3: { us: 0, n: 0 } };
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const stopBare = await startProfile(PROFILE_DIR, `api-bare-read-${round}`, { intervalUs: 100 });
      const b = await readRate(barePort, "/bare");
      await stopBare();
      const stopProfile = await startProfile(PROFILE_DIR, `api-v3-read-${round}`, { intervalUs: 100 });
      const v = await readRate(nodePort, v3Path);
      await stopProfile();
      if (b.failed + v.failed > 0) problems.push(`round ${round}: ${b.failed} bare and ${v.failed} v3 reads failed`);
      bareRounds.push(b.perSec);
      v3Rounds.push(v.perSec);
      cpu.bare.us += b.cpuUs;
      cpu.bare.n += b.responses;
      cpu.v3.us += v.cpuUs;
      cpu.v3.n += v.responses;
    }
  } finally {
    await bare.close();
  }
  return {
    bareHandlerPerSec: median(bareRounds),
    v3ReadPerSec: median(v3Rounds),
    bareRounds,
    v3Rounds,
    bareCpuUsPerRequest: cpu.bare.us / Math.max(1, cpu.bare.n),
    v3CpuUsPerRequest: cpu.v3.us / Math.max(1, cpu.v3.n),
  };
}

/** Genesis → three basic outputs, signed by the dev key; returns the payload. */
function threeOutputTransaction(networkName: string): TransactionPayload {
  const devKey = ed25519KeyPairFromSeed(fromHex(DEV_KEY.seed, "seed"));
  const genesis = devGenesisOutput();
  const to = (seed: number, amount: bigint): BasicOutput => ({
    type: 3,
    amount,
    nativeTokens: [],
    unlockConditions: [{ type: 0, address: { type: 0, pubKeyHash: blake2b256(Uint8Array.of(seed)) } }],
    features: [],
  });
  const outputs = [to(1, 1_000_000n), to(2, 2_000_000n), to(3, genesis.amount - 3_000_000n)];
  const essence = {
    type: 1 as const,
    networkId: networkIdFromName(networkName),
    inputs: [utxoInputOfOutputId(GENESIS_OUTPUT_ID)],
    inputsCommitment: inputsCommitment([genesis]),
    outputs,
  };
  const signature = ed25519Sign(devKey, essenceSigningHash(essence));
  return {
    type: 6,
    essence,
    unlocks: [{ type: 0, signature: { type: 0, publicKey: devKey.publicKey, signature } }],
  };
}

/**
 * Tagged-data blocks over `parents`, each mined to `minPowScore`: their JSON and their IDs. A
 * 5-byte tag and a 4-byte counter as data keep a one-parent block at 64 bytes, which score 100
 * reaches with 8 zero trits (3^8 / 64 ≥ 100), so mining thousands of them takes seconds.
 */
async function premineBlocks(parents: Uint8Array[], count: number, minPowScore: number) {
  const json: string[] = new Array(count);
  const ids: Uint8Array[] = new Array(count);
  const workers = availableParallelism();
  let next = 0;
  const mineOne = async (i: number) => {
    const data = new Uint8Array(4);
    new DataView(data.buffer).setUint32(0, i);
    const block: Block = {
      protocolVersion: 2,
      parents,
      payload: { type: 5, tag: new TextEncoder().encode("bench"), data },
      nonce: 0n,
    };
    const bytes = encodeBlock(block);
    const nonce = await minerPool().mine(powDigest(bytes), minPowScore, bytes.length, { workers });
    const mined = withNonce(bytes, nonce);
    // the pool checks every nonce it returns; one more check of the first block costs nothing
    if (i === 0 && powScore(mined) < minPowScore) throw new Error("the mined nonce misses the score");
    json[i] = JSON.stringify(blockToJson({ ...block, nonce }));
    ids[i] = blockIdFromBytes(mined);
  };
  // two calls in flight keep every mining thread busy while the other call's answer travels
  await Promise.all(
    [0, 1].map(async () => {
      while (next < count) await mineOne(next++);
    }),
  );
  return { json, ids };
}

/** A node opened in this process with one confirmed three-output transaction; returns the v3 path of output 1. */
async function confirmedTransaction(node: LedgerNode, base: string): Promise<string> {
  await node.coordinator.issueMilestone();
  const tx = threeOutputTransaction(node.tangle.protocolParameters.networkName);
  // the node fills parents and mines, as for a client that sends nonce "0"
  const submitted = await fetch(`${base}/api/core/v2/blocks`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(blockToJson({ protocolVersion: 2, parents: [], payload: tx, nonce: 0n })),
  });
  if (submitted.status !== 201) throw new Error(`transaction block: ${submitted.status} ${await submitted.text()}`);
  for (let i = 0; i < 3; i++) await node.coordinator.issueMilestone();
  const outputId = toHex(outputIdFromParts(computeTransactionId(tx), 1));
  const path = `/api/core/v3/outputs/${outputId}/full`;
  const check = await fetch(`${base}${path}`);
  const full = (await check.json()) as { metadata?: { included?: { slot?: number } } };
  if (check.status !== 200 || full.metadata?.included?.slot !== 2) {
    throw new Error(`the v3 read of ${outputId}: ${check.status} ${JSON.stringify(full)}`);
  }
  return path;
}

/** JSON submissions of pre-mined blocks per second (warm-up blocks first, untimed). */
async function submitRate(node: LedgerNode, port: number, problems: string[]): Promise<number> {
  const t0 = performance.now();
  const minPowScore = node.tangle.protocolParameters.minPowScore;
  const blocks = await premineBlocks(node.tangle.selectParents(), WARMUP_BLOCKS + BLOCKS, minPowScore);
  console.error(
    `mined ${WARMUP_BLOCKS + BLOCKS} blocks in ${((performance.now() - t0) / 1000).toFixed(1)} s (not timed)`,
  );
  const requests = blocks.json.map((body) => postJson(port, "/api/core/v2/blocks", body));
  const stopProfile = await startProfile(PROFILE_DIR, "api-submit", { intervalUs: 100 });
  const [warm, timed] = await loadFromWorker(port, CONNECTIONS, [
    { requests: requests.slice(0, WARMUP_BLOCKS), cycle: false, maxMs: 60_000 },
    { requests: requests.slice(WARMUP_BLOCKS), cycle: false, maxMs: 60_000 },
  ]);
  await stopProfile();
  const created = timed!.statuses[201] ?? 0;
  if ((warm!.statuses[201] ?? 0) !== WARMUP_BLOCKS || created !== BLOCKS) {
    problems.push(
      `submissions answered ${JSON.stringify(warm!.statuses)} (warm-up), ${JSON.stringify(timed!.statuses)}`,
    );
  }
  for (const id of [blocks.ids[0]!, blocks.ids.at(-1)!]) {
    if (!(await node.tangle.hasBlock(id))) problems.push(`submitted block ${toHex(id)} is not stored`);
  }
  return (created * 1000) / timed!.elapsedMs;
}

/**
 * Signed transfers (bench core's workload) as TIP-25 JSON over HTTP, parents left to the node,
 * against the same transfers through the node's own submit path as `bench core` drives it (256
 * in flight, each block framed around its encoded payload), in alternating runs on fresh nodes
 * with the indexes on and milestones every 500 ms; each clock stops once the last block is
 * referenced. The HTTP client keeps `apiMaxConnectionsPerAddress` connections (64), one request
 * in flight each.
 */
async function transferSubmitRates(problems: string[]) {
  const { txs, funded } = fanOut(TX_BLOCKS);
  const transfers = funded.map(selfTransfer);
  const payloads = transfers.map(encodePayload);
  const bodies = transfers.map((payload) =>
    JSON.stringify(blockToJson({ protocolVersion: 2, parents: [], payload, nonce: 0n })),
  );
  const check = async (node: LedgerNode, how: string) => {
    const spent = await spentCount(node, funded);
    if (spent !== TX_BLOCKS) problems.push(`${how}: ${spent} of ${TX_BLOCKS} transfers confirmed`);
  };
  const internal = async (): Promise<number> => {
    const funding = await fundedNode(txs, true, "api-internal");
    const { node } = funding;
    try {
      const stopProfile = await startProfile(PROFILE_DIR, "api-transfers-own", { allocations: true });
      const cpu0 = mainThreadCpuUs();
      const stopGc = gcPauses();
      const process0 = process.cpuUsage();
      const t0 = performance.now();
      startMilestones(node, MILESTONE_MS);
      let next = 0;
      const client = async () => {
        while (next < payloads.length)
          await node.submitBlock(frameBlock(node.tangle.selectParents(), payloads[next++]!));
      };
      await Promise.all(Array.from({ length: 256 }, client));
      await untilReferenced(node);
      const elapsedMs = performance.now() - t0;
      cpuUs.own.push((mainThreadCpuUs() - cpu0) / TX_BLOCKS);
      cpuUs.ownGc.push((stopGc() * 1000) / TX_BLOCKS);
      cpuUs.ownProcess.push(processUs(process0) / TX_BLOCKS);
      await stopProfile();
      await check(node, "the node's own path");
      return (TX_BLOCKS * 1000) / elapsedMs;
    } finally {
      await closeFundedNode(funding);
    }
  };
  const overHttp = async (): Promise<number> => {
    const funding = await fundedNode(txs, true, "api-json");
    const { node } = funding;
    const app = buildServer(node, "silent");
    try {
      await app.listen({ host: "127.0.0.1", port: 0 });
      const { port } = app.server.address() as { port: number };
      const requests = bodies.map((body) => postJson(port, "/api/core/v2/blocks", body));
      // as the own path is by the funding: the route compiled before the clock starts, with
      // tagged-data blocks confirmed by a milestone of their own
      const warm = Array.from({ length: WARMUP_TRANSFER_ROUTE }, (_, i) =>
        postJson(
          port,
          "/api/core/v2/blocks",
          JSON.stringify({
            protocolVersion: 2,
            parents: [],
            payload: { type: 5, tag: "0x7761726d", data: `0x${i.toString(16).padStart(8, "0")}` },
            nonce: "0",
          }),
        ),
      );
      const [warmed] = await loadFromWorker(port, node.options.apiMaxConnectionsPerAddress, [
        { requests: warm, cycle: false, maxMs: 60_000 },
      ]);
      if ((warmed!.statuses[201] ?? 0) !== WARMUP_TRANSFER_ROUTE)
        problems.push(`the JSON route's warm-up answered ${JSON.stringify(warmed!.statuses)}`);
      await node.coordinator.issueMilestone();
      // the clock: the worker's timed phase (its connections are open before), then until referenced
      const stopProfile = await startProfile(PROFILE_DIR, "api-transfers-json", { allocations: true });
      const cpu0 = mainThreadCpuUs();
      const stopGc = gcPauses();
      const process0 = process.cpuUsage();
      startMilestones(node, MILESTONE_MS);
      const [sent] = await loadFromWorker(port, node.options.apiMaxConnectionsPerAddress, [
        { requests, cycle: false, maxMs: 120_000 },
      ]);
      const answered = performance.now();
      await untilReferenced(node);
      const elapsedMs = sent!.elapsedMs + (performance.now() - answered);
      cpuUs.json.push((mainThreadCpuUs() - cpu0) / TX_BLOCKS);
      cpuUs.jsonGc.push((stopGc() * 1000) / TX_BLOCKS);
      // the process holds the client's worker too: its own CPU is told apart
      cpuUs.jsonProcess.push((processUs(process0) - sent!.clientCpuUs) / TX_BLOCKS);
      cpuUs.jsonClient.push(sent!.clientCpuUs / TX_BLOCKS);
      await stopProfile();
      if ((sent!.statuses[201] ?? 0) !== TX_BLOCKS)
        problems.push(`JSON transfers answered ${JSON.stringify(sent!.statuses)}`);
      await check(node, "JSON over HTTP");
      return (TX_BLOCKS * 1000) / elapsedMs;
    } finally {
      await app.close();
      await closeFundedNode(funding);
    }
  };
  // CPU per block: the main thread's (node and HTTP server), the whole process's but the HTTP
  // client's, and the client's (a worker thread)
  const cpuUs = {
    own: [] as number[],
    json: [] as number[],
    ownProcess: [] as number[],
    jsonProcess: [] as number[],
    jsonClient: [] as number[],
    ownGc: [] as number[],
    jsonGc: [] as number[],
  };
  const processUs = (since: NodeJS.CpuUsage) => {
    const { user, system } = process.cpuUsage(since);
    return user + system;
  };
  const internalRuns: number[] = [];
  const jsonRuns: number[] = [];
  for (let run = 0; run < TX_RUNS; run++) {
    internalRuns.push(await internal());
    jsonRuns.push(await overHttp());
  }
  return {
    internalPerSec: median(internalRuns),
    jsonPerSec: median(jsonRuns),
    internalRuns,
    jsonRuns,
    ownCpuUsPerBlock: median(cpuUs.own),
    jsonCpuUsPerBlock: median(cpuUs.json),
    ownProcessCpuUsPerBlock: median(cpuUs.ownProcess),
    jsonProcessCpuUsPerBlock: median(cpuUs.jsonProcess),
    jsonClientCpuUsPerBlock: median(cpuUs.jsonClient),
    ownGcPauseUsPerBlock: median(cpuUs.ownGc),
    jsonGcPauseUsPerBlock: median(cpuUs.jsonGc),
  };
}

async function main(): Promise<void> {
  const problems: string[] = [];
  if (hasFlag("--transfers-only")) {
    // item 4 alone, for profiling it (`--profile DIR` writes both paths' profiles)
    const { internalRuns, jsonRuns, ...figures } = await transferSubmitRates(problems);
    for (const p of problems) console.error(p);
    console.log(
      JSON.stringify({ ...figures, ratio: figures.jsonPerSec / figures.internalPerSec, internalRuns, jsonRuns }),
    );
    return;
  }
  const dir = await mkdtemp(join(tmpdir(), "ledger-node-bench-api-"));
  const node = await LedgerNode.open({ ...defaultNodeOptions, devAccounts: 0, dataDir: dir, logLevel: "silent" });
  const app = buildServer(node, "silent");
  await app.listen({ host: "127.0.0.1", port: 0 });
  const { port } = app.server.address() as { port: number };
  let reads: Awaited<ReturnType<typeof readRates>>;
  let jsonSubmitPerSec: number;
  try {
    const v3Path = await confirmedTransaction(node, `http://127.0.0.1:${port}`);
    reads = await readRates(port, v3Path, problems);
    if (hasFlag("--reads-only")) {
      // items 1 and 2 alone, for profiling the read (`--profile DIR` writes both servers' profiles)
      for (const p of problems) console.error(p);
      const { bareHandlerPerSec, v3ReadPerSec, bareCpuUsPerRequest, v3CpuUsPerRequest } = reads;
      const readRatio = v3ReadPerSec / bareHandlerPerSec;
      console.log(
        JSON.stringify({ bareHandlerPerSec, v3ReadPerSec, readRatio, bareCpuUsPerRequest, v3CpuUsPerRequest }),
      );
      return;
    }
    jsonSubmitPerSec = await submitRate(node, port, problems);
  } finally {
    await app.close();
    await node.close();
    await closeMinerPool();
    await rm(dir, { recursive: true, force: true });
  }
  const transfers = await transferSubmitRates(problems);

  const { bareHandlerPerSec, v3ReadPerSec } = reads;
  const readRatio = v3ReadPerSec / bareHandlerPerSec;
  const transferRatio = transfers.jsonPerSec / transfers.internalPerSec;
  const bare = `${Math.round(bareHandlerPerSec).toLocaleString("en-US")}/s`;
  const spread = (xs: number[]) =>
    `${Math.round(Math.min(...xs)).toLocaleString("en-US")}..${Math.round(Math.max(...xs)).toLocaleString("en-US")}`;
  printTable(
    `api: HTTP over loopback, ${CONNECTIONS} keep-alive connections, ${availableParallelism()} cores, ` +
      `reads: median of ${ROUNDS} alternating ${SECONDS} s rounds`,
    [
      {
        name: "bare fastify handler, small JSON",
        value: bareHandlerPerSec,
        unit: "req/s",
        baseline: `rounds ${spread(reads.bareRounds)}`,
      },
      {
        name: "GET core/v3 output full (tx output, proof)",
        value: v3ReadPerSec,
        unit: "req/s",
        target: ">= 70% of bare (issue 26)",
        baseline: `bare ${bare} (${(100 * readRatio).toFixed(0)}%), rounds ${spread(reads.v3Rounds)}`,
      },
      {
        name: `POST core/v2 blocks JSON, pre-mined PoW (${BLOCKS})`,
        value: jsonSubmitPerSec,
        unit: "201/s",
        target: ">= 5,000/s",
        baseline: `bare ${bare}`,
      },
      {
        name: `POST core/v2 blocks JSON, signed transfers (${TX_BLOCKS}), in + referenced`,
        value: transfers.jsonPerSec,
        unit: "/s",
        target: ">= 80% of the node's own path",
        baseline: `own path ${Math.round(transfers.internalPerSec).toLocaleString("en-US")}/s (${(100 * transferRatio).toFixed(0)}%), runs ${spread(transfers.jsonRuns)} against ${spread(transfers.internalRuns)}`,
      },
    ],
  );
  for (const p of problems) console.error(p);
  if (problems.length > 0) process.exitCode = 1;
  printFigures("api", {
    bareHandlerPerSec: Math.round(bareHandlerPerSec),
    v3ReadPerSec: Math.round(v3ReadPerSec),
    readRatio: Math.round(readRatio * 1000) / 1000,
    // the main thread's CPU per answer (both servers run there): steadier than rates on a shared machine
    bareCpuUsPerRequest: Math.round(reads.bareCpuUsPerRequest),
    v3CpuUsPerRequest: Math.round(reads.v3CpuUsPerRequest),
    jsonSubmitPerSec: Math.round(jsonSubmitPerSec),
    jsonTransfersPerSec: Math.round(transfers.jsonPerSec),
    ownPathTransfersPerSec: Math.round(transfers.internalPerSec),
    jsonSubmitRatio: Math.round(transferRatio * 1000) / 1000,
    ownPathCpuUsPerBlock: Math.round(transfers.ownCpuUsPerBlock),
    jsonCpuUsPerBlock: Math.round(transfers.jsonCpuUsPerBlock),
    ownPathProcessCpuUsPerBlock: Math.round(transfers.ownProcessCpuUsPerBlock),
    jsonProcessCpuUsPerBlock: Math.round(transfers.jsonProcessCpuUsPerBlock),
    jsonClientCpuUsPerBlock: Math.round(transfers.jsonClientCpuUsPerBlock),
    // of the main thread's CPU, the collector's pauses
    ownPathGcPauseUsPerBlock: Math.round(transfers.ownGcPauseUsPerBlock),
    jsonGcPauseUsPerBlock: Math.round(transfers.jsonGcPauseUsPerBlock),
  });
}

if (isMainThread) {
  await main();
} else {
  parentPort!.postMessage(await runLoad(workerData as LoadJob));
}
