/**
 * `npm run bench -- soak [--duration S] [--interval MS] [--honest-rate N] [--lazy-rate N]
 * [--orphan-rate N] [--slow-clients N] [--trickle-ms MS] [--min-pow-score N]`: the real node
 * process (`dist/src/cli/main.js`, milestones every `--interval` ms, default 1000) under S
 * seconds (default 600; shorter for CI, never run by `npm test`) of honest load, then of honest
 * and hostile load mixed, watched from outside.
 *
 * - Honest load, paced to `--honest-rate` blocks/s (default 100) over four clients: three
 *   fetch the tips, build a tagged-data block, mine it here and send its bytes; one sends JSON
 *   without parents or nonce, so the node selects tips and mines. A fifth client, the dev
 *   wallet, sends one signed payment at a time (input: its previous change), waits until the
 *   block's metadata says `included`, and sends the next. A client that falls behind its pace
 *   does not burst to catch up, so a slow node shows as fewer blocks per second.
 * - Lazy blocks (`--lazy-rate`, default 10/s, PoW-valid): their parent is an honest block that
 *   a milestone referenced more than below-max-depth (15) milestones ago; the node should answer
 *   400 "below max depth".
 * - Orphans (`--orphan-rate`, default 50/s, PoW-valid): blocks naming random parents that exist
 *   nowhere (a quarter also name an earlier orphan), published on the node's blocks gossip topic
 *   by an attacker libp2p peer (TCP, noise, yamux, gossipsub, as `bench/network.ts` builds one)
 *   that dials the node and never answers its requests for the missing parents.
 * - Slow clients (`--slow-clients`, default 32): raw sockets that start a `POST` of a
 *   1,000-byte body and trickle one byte every `--trickle-ms` (default 2,000); each is reopened
 *   as soon as the node closes it. They stay below the per-address connection cap (64), which
 *   the honest clients share on loopback.
 *
 * The first 15% of the duration is honest load alone: it warms the node up and is the same-run
 * baseline (honest blocks/s, latency, milestone gaps). The rest is mixed. The node's resident
 * memory (`VmRSS` of `/proc/<pid>/status`) is sampled every second; "RSS at start, middle and
 * end" are the median of the samples of the 5% of the duration (at least 5 s; 30 s of a 600 s
 * run) before the start, the middle and the end of the mixed phase: the node's RSS saws by tens
 * of MB between major garbage collections, so one sample says more about the collector's phase
 * than about growth. Every sample, thinned out, is printed on stderr. Milestones are timed
 * by polling `GET /api/core/v2/info` every 50 ms; a gap is the time between two polls that saw
 * the confirmed milestone index move (±50 ms). Targets: RSS at the end within 20% of the middle,
 * no milestone gap over twice the interval.
 *
 * The minimum PoW score is lowered to 10 (`--min-pow-score`) so that this process mines a
 * block in about a millisecond; the node checks a block's PoW with one Curl-P-81 hash whatever
 * the target, so it does the same work as at the default score.
 */
import "../src/network/polyfill.js";
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { createServer, connect as netConnect, type Socket } from "node:net";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { noise } from "@chainsafe/libp2p-noise";
import { yamux } from "@chainsafe/libp2p-yamux";
import { gossipsub } from "@libp2p/gossipsub";
import { identify } from "@libp2p/identify";
import { tcp } from "@libp2p/tcp";
import { multiaddr } from "@multiformats/multiaddr";
import { createLibp2p } from "libp2p";
import { encodeBlock } from "../src/codec/block.js";
import { compareBytes, fromHex, toHex } from "../src/codec/hex.js";
import {
  blockIdFromBytes,
  computeTransactionId,
  essenceSigningHash,
  inputsCommitment,
  networkIdFromName,
  outputIdFromParts,
  utxoInputOfOutputId,
} from "../src/codec/ids.js";
import type { BasicOutput, Block, Payload, TransactionPayload } from "../src/codec/types.js";
import { blake2b256, ed25519KeyPairFromSeed, ed25519Sign } from "../src/crypto/index.js";
import { blocksTopic } from "../src/network/index.js";
import { DEV_KEY, devGenesisOutput, GENESIS_OUTPUT_ID } from "../src/node/devNetwork.js";
import { createSlicedCurl, powDigest, searchNonce, targetTrailingZeros, withNonce } from "../src/pow/index.js";
import { argN } from "./_args.js";
import { median } from "./_stats.js";
import { printFigures, printTable } from "./_table.js";

// ---------------------------------------------------------------- options

const DURATION_S = argN("--duration", 600);
const INTERVAL_MS = argN("--interval", 1000);
const HONEST_RATE = argN("--honest-rate", 100);
const LAZY_RATE = argN("--lazy-rate", 10);
const ORPHAN_RATE = argN("--orphan-rate", 50);
const SLOW_CLIENTS = argN("--slow-clients", 32);
const TRICKLE_MS = argN("--trickle-ms", 2000);
const MIN_POW_SCORE = argN("--min-pow-score", 10);
/** Share of the duration with honest load alone (warm-up and baseline). */
const BASELINE_SHARE = 0.15;
/** The node's default `--api-request-timeout`, which ends a trickled request. */
const REQUEST_TIMEOUT_MS = 30_000;
const HONEST_CLIENTS = 4;
const RSS_WINDOW_MS = Math.max(5000, DURATION_S * 1000 * 0.05);

const NODE_MAIN = fileURLToPath(new URL("../src/cli/main.js", import.meta.url));
const MIME_BLOCK = "application/vnd.iota.serializer-v1";
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const now = () => Date.now();
const text = (s: string) => new TextEncoder().encode(s);

// ---------------------------------------------------------------- the node process

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
    srv.on("error", reject);
  });
}

interface NodeProcess {
  child: ChildProcess;
  pid: number;
  dir: string;
  url: string;
  /** The last 256 KiB the node printed (stdout and stderr). */
  output(): string;
  /** Lines at level warn or above, by message. */
  warnings: Map<string, number>;
}

let running: NodeProcess | undefined;

/** Kills the node and removes its data directory, whatever state the run is in. */
function killNodeNow(): void {
  const n = running;
  running = undefined;
  if (!n) return;
  if (n.child.exitCode === null && n.child.signalCode === null) n.child.kill("SIGKILL");
  rmSync(n.dir, { recursive: true, force: true });
}

async function startNode(): Promise<NodeProcess> {
  const dir = await mkdtemp(join(tmpdir(), "ledger-node-bench-soak-"));
  const apiPort = await freePort();
  const p2pPort = await freePort();
  const child = spawn(
    process.execPath,
    [
      NODE_MAIN,
      "--data-dir",
      dir,
      "--api-port",
      String(apiPort),
      "--p2p-host",
      "127.0.0.1",
      "--p2p-port",
      String(p2pPort),
      "--milestone-interval",
      String(INTERVAL_MS),
      "--min-pow-score",
      String(MIN_POW_SCORE),
      "--log-level",
      "warn",
      "--dev-accounts",
      "0",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  const warnings = new Map<string, number>();
  let partial = "";
  const onData = (d: Buffer) => {
    output = (output + d.toString()).slice(-256 * 1024);
    const lines = (partial + d.toString()).split("\n");
    partial = lines.pop()!;
    for (const line of lines) {
      if (!line.startsWith("{")) continue;
      try {
        const entry = JSON.parse(line) as { level?: number; msg?: string };
        if ((entry.level ?? 0) >= 40) {
          const key = `${entry.level === 40 ? "warn" : entry.level === 50 ? "error" : "fatal"}: ${entry.msg ?? line.slice(0, 120)}`;
          warnings.set(key, (warnings.get(key) ?? 0) + 1);
        }
      } catch {
        // not a log line
      }
    }
  };
  child.stdout!.on("data", onData);
  child.stderr!.on("data", onData);
  const node: NodeProcess = {
    child,
    pid: child.pid!,
    dir,
    url: `http://127.0.0.1:${apiPort}`,
    output: () => output,
    warnings,
  };
  running = node;
  const until = now() + 30_000;
  while (now() < until) {
    if (child.exitCode !== null) throw new Error(`the node exited with ${child.exitCode}: ${output}`);
    const ok = await fetch(`${node.url}/health`, { signal: AbortSignal.timeout(2000) })
      .then((r) => r.status === 200)
      .catch(() => false);
    if (ok) return node;
    await sleep(100);
  }
  throw new Error(`the node did not answer /health 200 within 30 s: ${output}`);
}

async function stopNode(node: NodeProcess): Promise<{ code: number | null; ms: number }> {
  const t = now();
  const c = node.child;
  let code = c.exitCode;
  if (code === null && c.signalCode === null) {
    const exited = new Promise<number | null>((resolve) => c.once("exit", (x) => resolve(x)));
    c.kill("SIGTERM");
    code = await Promise.race([exited, sleep(15_000).then(() => -1)]);
    if (code === -1) {
      c.kill("SIGKILL");
      await exited;
    }
  }
  const ms = now() - t;
  killNodeNow();
  return { code, ms };
}

/** Resident memory of a process in MB (MiB), and its peak: /proc on Linux, ps elsewhere; NaN once it is gone. */
function memoryOf(pid: number): { rss: number; peak: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN);
    return { rss: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 };
  } catch {
    try {
      const kb = Number(execFileSync("ps", ["-o", "rss=", "-p", String(pid)], { encoding: "utf8" }).trim());
      return { rss: kb / 1024, peak: Number.NaN };
    } catch {
      return { rss: Number.NaN, peak: Number.NaN };
    }
  }
}

// ---------------------------------------------------------------- blocks

const curl = createSlicedCurl();
let minPowScore = MIN_POW_SCORE;

/** The block's bytes with a nonce that reaches the network's minimum PoW score. */
function mined(block: Omit<Block, "nonce">): Uint8Array {
  const bytes = encodeBlock({ ...block, nonce: 0n });
  if (minPowScore === 0) return bytes;
  const zeros = targetTrailingZeros(minPowScore, bytes.length);
  const start = BigInt(randomBytes(4).readUInt32LE(0)) << 16n;
  const found = searchNonce(curl, powDigest(bytes), zeros, { start });
  if (found.nonce === null) throw new Error("no nonce found");
  return withNonce(bytes, found.nonce);
}

const sortedParents = (ids: Uint8Array[]) => [...ids].sort(compareBytes);

const taggedData = (tag: string, n: number): Payload => {
  const data = new Uint8Array(24);
  data.set(randomBytes(20), 4);
  new DataView(data.buffer).setUint32(0, n);
  return { type: 5, tag: text(tag), data };
};

// ---------------------------------------------------------------- shared state of the run

interface Sample {
  at: number;
  rss: number;
}
interface Answer {
  at: number;
  ms: number;
  status: number;
}

const state = {
  /** Whether clients keep going. */
  honest: true,
  hostile: false,
  /** The confirmed milestone index the watcher saw last. */
  cmi: 0,
  belowMaxDepth: 15,
  networkName: "dev",
};
const rssSamples: Sample[] = [];
let peakRssMB = 0;
const milestones: { index: number; at: number }[] = [];
const infoFailures: { at: number; what: string }[] = [];
let slowestInfoMs = 0;
const honestAnswers: Answer[] = [];
const honestErrors = new Map<string, number>();
/** An honest block ID per confirmed milestone index at the time it was accepted (lazy blocks build on these). */
const anchors = new Map<number, Uint8Array>();
const payments: { at: number; ms: number }[] = [];
const problems: string[] = [];
const lazy = { sent: 0, belowMaxDepth: 0, accepted: 0, other: new Map<string, number>() };
const orphans = { published: 0, unpublished: 0, disconnects: 0, redials: 0 };
/** One orphan per tick with the confirmed milestone index when it was sent: are old ones dropped? */
const orphanSamples: { id: string; cmi: number }[] = [];
const slow = { opened: 0, closedByNode: 0, lifetimes: [] as number[], refused: 0, answers: new Map<string, number>() };

const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);

// ---------------------------------------------------------------- watchers

async function watchMilestones(node: NodeProcess, stop: () => boolean): Promise<void> {
  while (!stop()) {
    const t = now();
    try {
      const res = await fetch(`${node.url}/api/core/v2/info`, { signal: AbortSignal.timeout(5000) });
      const info = (await res.json()) as { status: { confirmedMilestone: { index: number } } };
      const index = info.status.confirmedMilestone.index;
      if (index !== state.cmi) {
        milestones.push({ index, at: now() });
        state.cmi = index;
      }
    } catch (e) {
      infoFailures.push({ at: t, what: (e as Error).message });
    }
    const took = now() - t;
    slowestInfoMs = Math.max(slowestInfoMs, took);
    await sleep(Math.max(0, 50 - took));
  }
}

async function sampleMemory(node: NodeProcess, stop: () => boolean): Promise<void> {
  while (!stop()) {
    const m = memoryOf(node.pid);
    if (!Number.isFinite(m.rss)) return;
    rssSamples.push({ at: now(), rss: m.rss });
    if (Number.isFinite(m.peak)) peakRssMB = Math.max(peakRssMB, m.peak);
    await sleep(1000);
  }
}

// ---------------------------------------------------------------- honest clients

/** Runs `send` paced to `perSec` while `go()`; a client that falls behind does not burst. */
async function paced(perSec: number, go: () => boolean, send: () => Promise<void>): Promise<void> {
  if (perSec <= 0) return;
  const slot = 1000 / perSec;
  let next = performance.now();
  while (go()) {
    await send();
    next += slot;
    const t = performance.now();
    if (t - next > slot) next = t;
    else if (next > t) await sleep(next - t);
  }
}

async function post(node: NodeProcess, body: Uint8Array | string, json: boolean) {
  const res = await fetch(`${node.url}/api/core/v2/blocks`, {
    method: "POST",
    headers: { "content-type": json ? "application/json" : MIME_BLOCK, accept: "application/json" },
    body,
    signal: AbortSignal.timeout(30_000),
  });
  const answer = (await res.json().catch(() => ({}))) as {
    blockId?: string;
    error?: { message?: string; details?: string };
  };
  const reason = answer.error ? `${answer.error.message ?? ""}: ${answer.error.details ?? ""}` : "";
  return { status: res.status, answer, reason };
}

async function tips(node: NodeProcess): Promise<Uint8Array[]> {
  const res = await fetch(`${node.url}/api/core/v2/tips`, { signal: AbortSignal.timeout(30_000) });
  const body = (await res.json()) as { tips: string[] };
  return sortedParents(body.tips.map((t) => fromHex(t, "tip", 32)));
}

/** One honest submission, timed and counted; `ownPow`: tips, local PoW, bytes; else JSON and the node's PoW. */
async function honestBlock(node: NodeProcess, client: number, n: number, ownPow: boolean): Promise<void> {
  const t = now();
  const cmiAtStart = state.cmi;
  try {
    const { status, answer, reason } = ownPow
      ? await post(
          node,
          mined({ protocolVersion: 2, parents: await tips(node), payload: taggedData(`soak-honest-${client}`, n) }),
          false,
        )
      : await post(
          node,
          JSON.stringify({
            protocolVersion: 2,
            payload: { type: 5, tag: toHex(text(`soak-honest-${client}`)), data: toHex(randomBytes(24)) },
          }),
          true,
        );
    honestAnswers.push({ at: now(), ms: now() - t, status });
    if (status === 201 && answer.blockId) {
      if (!anchors.has(cmiAtStart)) anchors.set(cmiAtStart, fromHex(answer.blockId, "blockId", 32));
    } else {
      bump(honestErrors, `${status} ${reason}`.slice(0, 160));
    }
  } catch (e) {
    honestAnswers.push({ at: now(), ms: now() - t, status: 0 });
    bump(honestErrors, `no answer: ${(e as Error).message}`.slice(0, 160));
  }
}

/** The dev wallet: one payment of 1 Mi at a time, each spending the previous change, waiting for inclusion. */
async function wallet(node: NodeProcess, go: () => boolean): Promise<void> {
  const key = ed25519KeyPairFromSeed(fromHex(DEV_KEY.seed, "seed"));
  const devAddress = { type: 0 as const, pubKeyHash: fromHex(DEV_KEY.pubKeyHash, "pkh", 32) };
  const networkId = networkIdFromName(state.networkName);
  let input: { id: Uint8Array; output: BasicOutput } = { id: GENESIS_OUTPUT_ID, output: devGenesisOutput() };
  for (let n = 0; go(); n++) {
    const basic = (pubKeyHash: Uint8Array, amount: bigint): BasicOutput => ({
      type: 3,
      amount,
      nativeTokens: [],
      unlockConditions: [{ type: 0, address: { type: 0, pubKeyHash } }],
      features: [],
    });
    const change = basic(devAddress.pubKeyHash, input.output.amount - 1_000_000n);
    const essence = {
      type: 1 as const,
      networkId,
      inputs: [utxoInputOfOutputId(input.id)],
      inputsCommitment: inputsCommitment([input.output]),
      outputs: [basic(blake2b256(text(`soak-payee-${n}`)), 1_000_000n), change],
    };
    const signature = ed25519Sign(key, essenceSigningHash(essence));
    const tx: TransactionPayload = {
      type: 6,
      essence,
      unlocks: [{ type: 0, signature: { type: 0, publicKey: key.publicKey, signature } }],
    };
    const t = now();
    let included = false;
    // a block not referenced within 20 s is reattached: the same transaction with fresh parents
    for (let attempt = 0; attempt < 3 && !included && go(); attempt++) {
      let blockId: string | undefined;
      const sent = now();
      try {
        const { status, answer, reason } = await post(
          node,
          mined({ protocolVersion: 2, parents: await tips(node), payload: tx }),
          false,
        );
        honestAnswers.push({ at: now(), ms: now() - sent, status });
        if (status !== 201 || !answer.blockId) {
          bump(honestErrors, `payment ${status} ${reason}`.slice(0, 160));
          await sleep(500);
          continue;
        }
        blockId = answer.blockId;
      } catch (e) {
        bump(honestErrors, `payment, no answer: ${(e as Error).message}`.slice(0, 160));
        continue;
      }
      const deadline = now() + 20_000;
      while (now() < deadline && go()) {
        await sleep(100);
        const meta = (await fetch(`${node.url}/api/core/v2/blocks/${blockId}/metadata`, {
          signal: AbortSignal.timeout(10_000),
        })
          .then((r) => r.json())
          .catch(() => ({}))) as { ledgerInclusionState?: string; conflictReason?: number };
        if (meta.ledgerInclusionState === "included") {
          included = true;
          payments.push({ at: now(), ms: now() - t });
          break;
        }
        if (meta.ledgerInclusionState !== undefined) {
          // conflicting: an earlier attachment of the same transaction may have been included
          const txId = toHex(computeTransactionId(tx));
          const res = await fetch(`${node.url}/api/core/v2/transactions/${txId}/included-block`, {
            signal: AbortSignal.timeout(10_000),
          }).catch(() => undefined);
          await res?.arrayBuffer();
          if (res?.status === 200) {
            included = true;
            payments.push({ at: now(), ms: now() - t });
          } else {
            problems.push(`payment ${n}: block ${blockId} is ${meta.ledgerInclusionState} (${meta.conflictReason})`);
          }
          break;
        }
      }
      if (!included && go()) bump(honestErrors, "payment reattached (not included within 20 s)");
    }
    if (!included) {
      if (go()) problems.push(`payment ${n} was not included after 3 attachments`);
      return;
    }
    input = { id: outputIdFromParts(computeTransactionId(tx), 1), output: change };
  }
}

// ---------------------------------------------------------------- hostile clients

/** Lazy blocks: a parent that a milestone referenced more than below-max-depth milestones ago. */
async function lazyBlocks(node: NodeProcess, go: () => boolean): Promise<void> {
  let n = 0;
  await paced(LAZY_RATE, go, async () => {
    const old = state.cmi - state.belowMaxDepth - 3 - Math.floor(Math.random() * 10);
    let parent: Uint8Array | undefined;
    for (let i = old; i >= 0 && !parent; i--) parent = anchors.get(i);
    // too early in a short run: the oldest honest block there is (accepted, lazy, dropped later)
    if (!parent) parent = anchors.get(Math.min(...anchors.keys()));
    if (!parent) return;
    const bytes = mined({ protocolVersion: 2, parents: [parent], payload: taggedData("soak-lazy", n++) });
    lazy.sent++;
    try {
      const { status, reason } = await post(node, bytes, false);
      if (status === 400 && /below max depth/.test(reason)) lazy.belowMaxDepth++;
      else if (status === 201) lazy.accepted++;
      else bump(lazy.other, `${status} ${reason}`.slice(0, 160));
    } catch (e) {
      bump(lazy.other, `no answer: ${(e as Error).message}`.slice(0, 160));
    }
  });
}

/** Orphans gossiped by an attacker peer: parents nobody has, so they can never become solid. */
async function orphanPeer(node: NodeProcess, go: () => boolean): Promise<void> {
  if (ORPHAN_RATE <= 0) return;
  const info = (await (await fetch(`${node.url}/api/core/v2/info`)).json()) as {
    network: { multiAddresses: string[]; peerId: string };
  };
  const address = info.network.multiAddresses.find((a) => a.startsWith("/ip4/127.0.0.1/"))!;
  const host = await createLibp2p({
    addresses: { listen: ["/ip4/127.0.0.1/tcp/0"] },
    transports: [tcp()],
    connectionEncrypters: [noise()],
    streamMuxers: [yamux()],
    services: {
      identify: identify(),
      pubsub: gossipsub({ globalSignaturePolicy: "StrictNoSign", allowPublishToZeroTopicPeers: true }),
    },
  });
  const topic = blocksTopic(state.networkName);
  host.services.pubsub.subscribe(topic);
  host.addEventListener("peer:disconnect", (e) => {
    if (e.detail.toString() === info.network.peerId && go()) orphans.disconnects++;
  });
  const dial = async () => {
    await host.dial(multiaddr(address)).catch(() => {});
    // gossipsub learns the node's subscription from its first message on the new stream
    const until = now() + 5000;
    while (
      now() < until &&
      !host.services.pubsub.getSubscribers(topic).some((p) => p.toString() === info.network.peerId)
    )
      await sleep(50);
  };
  try {
    await dial();
    const recent: Uint8Array[] = [];
    let n = 0;
    // sent in ticks of 100 ms (a tenth of the rate each), not one timer per block
    await paced(10, go, async () => {
      if (host.getConnections().length === 0) {
        orphans.redials++;
        await dial();
      }
      for (let i = 0; i < ORPHAN_RATE / 10; i++) {
        const parents = [randomBytes(32) as Uint8Array];
        if (recent.length > 0 && Math.random() < 0.25) parents.push(recent[Math.floor(Math.random() * recent.length)]!);
        const bytes = mined({
          protocolVersion: 2,
          parents: sortedParents(parents.map((p) => new Uint8Array(p))),
          payload: taggedData("soak-orphan", n++),
        });
        recent.push(blockIdFromBytes(bytes));
        if (recent.length > 64) recent.shift();
        const result = await host.services.pubsub.publish(topic, bytes).catch(() => undefined);
        if (result && result.recipients.length > 0) {
          orphans.published++;
          if (i === 0) orphanSamples.push({ id: toHex(recent.at(-1)!), cmi: state.cmi });
        } else orphans.unpublished++;
      }
    });
  } finally {
    await host.stop();
  }
}

/** Slow clients: request bodies trickled a byte at a time; a socket the node closes is reopened. */
async function slowClients(node: NodeProcess, go: () => boolean): Promise<void> {
  const port = Number(new URL(node.url).port);
  /** Sockets open now; the value is true once this side closes it. */
  const sockets = new Map<Socket, { ours: boolean }>();
  const open = () => {
    if (!go()) return;
    const opened = now();
    const s = netConnect(port, "127.0.0.1");
    const mark = { ours: false };
    let timer: NodeJS.Timeout | undefined;
    s.setNoDelay(true);
    s.on("connect", () => {
      slow.opened++;
      s.write(
        "POST /api/core/v2/blocks HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
          "Content-Length: 1000\r\n\r\n{",
      );
      timer = setInterval(() => {
        if (!go()) {
          mark.ours = true;
          s.destroy();
        } else s.write(" ");
      }, TRICKLE_MS);
    });
    s.on("data", (d: Buffer) => bump(slow.answers, d.toString("latin1").split("\r\n")[0]!.slice(0, 60)));
    s.on("error", () => {});
    s.on("close", () => {
      clearInterval(timer);
      sockets.delete(s);
      if (timer === undefined) slow.refused++;
      else if (!mark.ours) {
        slow.closedByNode++;
        slow.lifetimes.push(now() - opened);
      }
      if (go()) setTimeout(open, 100);
    });
    sockets.set(s, mark);
  };
  for (let i = 0; i < SLOW_CLIENTS; i++) open();
  while (go()) await sleep(200);
  for (const [s, mark] of sockets) {
    mark.ours = true;
    s.destroy();
  }
}

// ---------------------------------------------------------------- figures

const quantile = (xs: number[], q: number) => {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};
/** The last entry at or before `at` (entries in time order). */
function lastBefore<T extends { at: number }>(xs: T[], at: number): T | undefined {
  for (let i = xs.length - 1; i >= 0; i--) if (xs[i]!.at <= at) return xs[i];
  return undefined;
}
/** RSS at `at`: the median of the samples of the RSS_WINDOW_MS before it. */
const rssAt = (at: number) => {
  const window = rssSamples.filter((s) => s.at <= at && s.at > at - RSS_WINDOW_MS).map((s) => s.rss);
  return window.length > 0 ? median(window) : (lastBefore(rssSamples, at)?.rss ?? Number.NaN);
};
/** Gaps between milestone arrivals whose later arrival falls in [from, to). */
const gapsIn = (from: number, to: number) => {
  const gaps: number[] = [];
  for (let i = 1; i < milestones.length; i++) {
    const m = milestones[i]!;
    if (m.at >= from && m.at < to) gaps.push(m.at - milestones[i - 1]!.at);
  }
  return gaps;
};
const fmtInt = (v: number) => (Number.isFinite(v) ? Math.round(v).toLocaleString("en-US") : "n/a");
const round1 = (v: number) => Math.round(v * 10) / 10;

/**
 * Of up to 50 orphans sent more than below-max-depth + 5 milestones before the end, how many the
 * node still answers for (it should have dropped them: they can never become solid).
 */
async function orphansStillHeld(node: NodeProcess): Promise<{ held: number; asked: number }> {
  const old = orphanSamples.filter((o) => o.cmi <= state.cmi - state.belowMaxDepth - 5);
  const picked = old.filter((_, i) => i % Math.max(1, Math.ceil(old.length / 50)) === 0);
  let held = 0;
  for (const o of picked) {
    const res = await fetch(`${node.url}/api/core/v2/blocks/${o.id}/metadata`, { signal: AbortSignal.timeout(10_000) });
    await res.arrayBuffer();
    if (res.status === 200) held++;
    else if (res.status !== 404) problems.push(`metadata of orphan ${o.id}: ${res.status}`);
  }
  return { held, asked: picked.length };
}

// ---------------------------------------------------------------- the run

async function main(): Promise<void> {
  const durationMs = DURATION_S * 1000;
  const node = await startNode();
  const idleRss = memoryOf(node.pid).rss;
  let crashed: string | undefined;
  node.child.once("exit", (code, signal) => {
    crashed = `the node exited during the run (code ${code}, signal ${signal})`;
  });
  const info = (await (await fetch(`${node.url}/api/core/v2/info`)).json()) as {
    protocol: { belowMaxDepth: number; minPowScore: number; networkName: string };
  };
  state.belowMaxDepth = info.protocol.belowMaxDepth;
  state.networkName = info.protocol.networkName;
  minPowScore = info.protocol.minPowScore;

  const t0 = now();
  const tMix = t0 + Math.round(durationMs * BASELINE_SHARE);
  const tEnd = t0 + durationMs;
  const tMid = tMix + Math.round((tEnd - tMix) / 2);
  let stopAll = false;
  const honestGo = () => !stopAll && !crashed;
  const hostileGo = () => !stopAll && !crashed && now() >= tMix;
  console.error(
    `soak: node pid ${node.pid} on ${node.url}, ${DURATION_S} s (honest only until ${((tMix - t0) / 1000).toFixed(0)} s), ` +
      `milestones every ${INTERVAL_MS} ms, min PoW score ${minPowScore}, ${availableParallelism()} cores`,
  );

  const tasks: Promise<void>[] = [];
  const watch = watchMilestones(node, () => stopAll || !!crashed);
  const memory = sampleMemory(node, () => stopAll || !!crashed);
  for (let c = 0; c < HONEST_CLIENTS; c++) {
    let n = 0;
    const ownPow = c < HONEST_CLIENTS - 1;
    tasks.push(paced(HONEST_RATE / HONEST_CLIENTS, honestGo, () => honestBlock(node, c, n++, ownPow)));
  }
  tasks.push(wallet(node, honestGo));
  const hostile = (async () => {
    while (now() < tMix && honestGo()) await sleep(50);
    if (!honestGo()) return;
    await Promise.all([lazyBlocks(node, hostileGo), orphanPeer(node, hostileGo), slowClients(node, hostileGo)]);
  })();
  tasks.push(hostile);

  // progress on stderr, ten times in the run
  const step = Math.max(5000, Math.round(durationMs / 10));
  for (let t = t0 + step; t < tEnd && !crashed; t = Math.min(tEnd, t + step)) {
    while (now() < t && !crashed) await sleep(Math.min(500, t - now()));
    const ok = honestAnswers.filter((a) => a.status === 201).length;
    console.error(
      `  ${((now() - t0) / 1000).toFixed(0).padStart(4)} s ${now() < tMix ? "honest" : "mixed "} ` +
        `rss ${rssSamples.at(-1)?.rss.toFixed(1)} MB, milestone ${state.cmi}, honest 201 ${ok}, payments ${payments.length}, ` +
        `lazy 400 ${lazy.belowMaxDepth}, orphans ${orphans.published}, slow closed ${slow.closedByNode}`,
    );
  }
  while (now() < tEnd && !crashed) await sleep(Math.min(200, tEnd - now()));
  const rssEndSample = memoryOf(node.pid).rss;
  stopAll = true;
  await Promise.all([watch, memory, ...tasks.map((t) => t.catch((e) => problems.push(`a client failed: ${e}`)))]);
  if (crashed) problems.push(crashed);
  const held = crashed ? undefined : await orphansStillHeld(node);
  const stopped = await stopNode(node);
  if (!crashed && stopped.code !== 0) problems.push(`the node exited with ${stopped.code} after SIGTERM`);

  // ---- figures
  const baselineS = (tMix - t0) / 1000;
  const mixedS = (tEnd - tMix) / 1000;
  const inPhase = <T extends { at: number }>(xs: T[], from: number, to: number) =>
    xs.filter((x) => x.at >= from && x.at < to);
  const honestBase = inPhase(honestAnswers, t0, tMix);
  const honestMix = inPhase(honestAnswers, tMix, tEnd + 1);
  const created = (xs: Answer[]) => xs.filter((a) => a.status === 201);
  const baselineHonestPerSec = created(honestBase).length / baselineS;
  const honestBlocksPerSec = created(honestMix).length / mixedS;
  const latency = (xs: Answer[], q: number) =>
    quantile(
      created(xs).map((a) => a.ms),
      q,
    );
  const rssStartMB = rssAt(tMix);
  const rssMiddleMB = rssAt(tMid);
  const rssEndMB = rssAt(tEnd);
  const endVsMiddlePct = (100 * (rssEndMB - rssMiddleMB)) / rssMiddleMB;
  const gapsBase = gapsIn(t0, tMix);
  const gapsMix = gapsIn(tMix, tEnd + 1);
  const maxGap = (gs: number[]) => (gs.length > 0 ? Math.max(...gs) : Number.NaN);
  const maxMilestoneGapMs = Math.max(maxGap(gapsBase), maxGap(gapsMix));
  const overTwice = [...gapsBase, ...gapsMix].filter((g) => g > 2 * INTERVAL_MS);
  const milestonesMix = milestones.filter((m) => m.at >= tMix && m.at <= tEnd);
  const milestoneSpan =
    milestonesMix.length > 0 ? milestonesMix.at(-1)!.index - (lastBefore(milestones, tMix - 1)?.index ?? 0) : 0;
  const payBase = inPhase(payments, t0, tMix);
  const payMix = inPhase(payments, tMix, tEnd + 1);
  const nonCreated = (xs: Answer[]) => xs.length - created(xs).length;

  printTable(
    `soak: the node process for ${DURATION_S} s (${baselineS.toFixed(0)} s honest only, then ${mixedS.toFixed(0)} s ` +
      `honest + lazy + orphans + slow clients), milestones every ${INTERVAL_MS} ms, ${availableParallelism()} cores`,
    [
      {
        name: "node RSS at the start of the mixed phase",
        value: rssStartMB,
        unit: "MB",
        baseline: `idle after start: ${idleRss.toFixed(1)} MB`,
      },
      { name: "node RSS in the middle of the mixed phase", value: rssMiddleMB, unit: "MB" },
      {
        name: "node RSS at the end",
        value: rssEndMB,
        unit: "MB",
        target: "<= middle + 20%",
        baseline: `middle ${rssMiddleMB.toFixed(1)} MB; last sample ${rssEndSample.toFixed(1)} MB`,
      },
      {
        name: "RSS end vs middle",
        value: endVsMiddlePct,
        unit: "%",
        target: "<= 20%",
        baseline: `start -> middle ${((100 * (rssMiddleMB - rssStartMB)) / rssStartMB).toFixed(1)}%`,
      },
      { name: "node peak RSS (VmHWM)", value: peakRssMB, unit: "MB" },
      {
        name: "max milestone gap, mixed phase",
        value: maxGap(gapsMix),
        unit: "ms",
        target: `< ${fmtInt(2 * INTERVAL_MS)} ms`,
        baseline: `honest only: ${fmtInt(maxGap(gapsBase))} ms`,
      },
      {
        name: "milestone gap p99, mixed phase",
        value: quantile(gapsMix, 0.99),
        unit: "ms",
        baseline: `honest only: ${fmtInt(quantile(gapsBase, 0.99))} ms`,
      },
      {
        name: "milestone gaps over twice the interval",
        value: overTwice.length,
        unit: "",
        target: "0",
        baseline: overTwice.length > 0 ? `gaps ${overTwice.map(fmtInt).join(", ")} ms` : "",
      },
      {
        name: "milestones confirmed, mixed phase",
        value: milestoneSpan,
        unit: "",
        baseline: `${fmtInt(mixedS / (INTERVAL_MS / 1000))} at the interval`,
      },
      {
        name: "honest blocks accepted (201), mixed phase",
        value: honestBlocksPerSec,
        unit: "blocks/s",
        target: `${HONEST_RATE}/s paced + payments`,
        baseline: `honest only: ${baselineHonestPerSec.toFixed(1)}/s`,
      },
      {
        name: "honest submission p50, mixed phase",
        value: latency(honestMix, 0.5),
        unit: "ms",
        baseline: `honest only: ${latency(honestBase, 0.5).toFixed(1)} ms`,
      },
      {
        name: "honest submission p99, mixed phase",
        value: latency(honestMix, 0.99),
        unit: "ms",
        baseline: `honest only: ${latency(honestBase, 0.99).toFixed(1)} ms`,
      },
      {
        name: "honest answers other than 201, mixed phase",
        value: nonCreated(honestMix),
        unit: "",
        target: "0",
        baseline: `honest only: ${nonCreated(honestBase)}`,
      },
      {
        name: "payments included, mixed phase",
        value: payMix.length / mixedS,
        unit: "/s",
        baseline: `honest only: ${(payBase.length / baselineS).toFixed(2)}/s`,
      },
      {
        name: "payment submit -> included p50, mixed phase",
        value: median(payMix.map((p) => p.ms)),
        unit: "ms",
        baseline: `honest only: ${fmtInt(median(payBase.map((p) => p.ms)))} ms`,
      },
      {
        name: "lazy blocks answered 400 below max depth",
        value: lazy.belowMaxDepth,
        unit: "",
        baseline: `of ${fmtInt(lazy.sent)} sent; ${lazy.accepted} accepted (parent not yet too old)`,
      },
      {
        name: "orphans gossiped to the node",
        value: orphans.published,
        unit: "",
        baseline: `${orphans.unpublished} without a recipient, ${orphans.disconnects} disconnects`,
      },
      {
        name: "old orphans the node still holds",
        value: held?.held ?? Number.NaN,
        unit: "",
        target: "0",
        baseline: `of ${held?.asked ?? 0} sent > ${state.belowMaxDepth + 5} milestones before the end`,
      },
      {
        name: "slow connections closed by the node",
        value: slow.closedByNode,
        unit: "",
        target: `each in ~${fmtInt(REQUEST_TIMEOUT_MS)} ms`,
        baseline: `of ${slow.opened} opened; lifetime p50 ${fmtInt(median(slow.lifetimes))} ms, max ${fmtInt(quantile(slow.lifetimes, 1))} ms`,
      },
      {
        name: "slowest info poll",
        value: slowestInfoMs,
        unit: "ms",
        baseline: `${infoFailures.length} polls failed`,
      },
    ],
  );

  const details: string[] = [];
  for (const [k, v] of honestErrors) details.push(`honest: ${v} x ${k}`);
  for (const [k, v] of lazy.other) details.push(`lazy: ${v} x ${k}`);
  for (const [k, v] of slow.answers) details.push(`slow clients got: ${v} x ${k}`);
  if (slow.refused > 0) details.push(`slow clients: ${slow.refused} connections closed before they were open`);
  for (const f of infoFailures.slice(0, 5))
    details.push(`info poll at ${((f.at - t0) / 1000).toFixed(1)} s: ${f.what}`);
  for (const [k, v] of [...node.warnings].sort((a, b) => b[1] - a[1]).slice(0, 10))
    details.push(`node log: ${v} x ${k}`);
  details.push(`node stopped in ${stopped.ms} ms with code ${stopped.code}`);
  const rssLine = rssSamples
    .filter((_, i) => i % Math.max(1, Math.round(rssSamples.length / 20)) === 0)
    .map((s) => `${((s.at - t0) / 1000).toFixed(0)}s:${s.rss.toFixed(0)}`)
    .join(" ");
  details.push(`node RSS (MB) over time: ${rssLine}`);
  for (const d of details) console.error(d);
  for (const p of problems.slice(0, 20)) console.error(`problem: ${p}`);
  if (problems.length > 0) process.exitCode = 1;

  printFigures("soak", {
    rssStartMB: round1(rssStartMB),
    rssMiddleMB: round1(rssMiddleMB),
    rssEndMB: round1(rssEndMB),
    maxMilestoneGapMs: Math.round(maxMilestoneGapMs),
    honestBlocksPerSec: round1(honestBlocksPerSec),
    baselineHonestBlocksPerSec: round1(baselineHonestPerSec),
    rssEndVsMiddlePct: round1(endVsMiddlePct),
    milestoneGapsOverTwiceInterval: overTwice.length,
    lazyBelowMaxDepth: lazy.belowMaxDepth,
    orphansSent: orphans.published,
    oldOrphansHeld: held?.held ?? -1,
    slowClosedByNode: slow.closedByNode,
    durationS: DURATION_S,
  });
}

process.once("exit", killNodeNow);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    killNodeNow();
    process.exit(130);
  });
}
main().then(
  () => process.exit(),
  (e) => {
    console.error(e);
    killNodeNow();
    process.exit(1);
  },
);
