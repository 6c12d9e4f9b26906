/**
 * `npm run bench -- network [--blocks N] [--milestones M]`: the P2P layer on loopback.
 *
 * 1. Propagation: three node processes in a line, A - B - C. A gossips N blocks (a chain of
 *    tagged-data blocks of about 300 bytes with valid PoW, prepared before the clock starts);
 *    B checks each one (decode, syntactic rules, PoW score), stores it and forwards it; C checks
 *    and stores it. The figure is N divided by the time from A's first publish to C having
 *    stored the last block. Baseline in the same run: three bare gossipsub processes in the
 *    same line relaying N random messages of the same size, with no checks and no storage.
 * 2. Catch-up: a follower that was stopped while the coordinator issued M milestones (one
 *    block each) is restarted and catches up by requesting the milestone cones by index; the
 *    figure is the time until its ledger index equals the coordinator's. Baseline in the same
 *    run: the time the coordinator took to issue and confirm those milestones itself.
 *
 * The dev network's minimum PoW score is lowered to 1 for the propagation blocks so that A can
 * prepare thousands of them quickly; checking a block costs one Curl-P-81 hash whatever the
 * target, so the relays do the same work as at the default score.
 */
import "../src/network/polyfill.js";
import { type ChildProcess, fork } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { noise } from "@chainsafe/libp2p-noise";
import { yamux } from "@chainsafe/libp2p-yamux";
import { gossipsub } from "@libp2p/gossipsub";
import { identify } from "@libp2p/identify";
import { tcp } from "@libp2p/tcp";
import { multiaddr } from "@multiformats/multiaddr";
import { createLibp2p } from "libp2p";
import { encodeBlock } from "../src/codec/block.js";
import { blockIdFromBytes } from "../src/codec/ids.js";
import type { Block } from "../src/codec/types.js";
import { blocksTopic, networkConfigPath } from "../src/network/index.js";
import { LedgerNode } from "../src/node/node.js";
import { defaultNodeOptions, type NodeOptions } from "../src/node/options.js";
import { createSlicedCurl, powDigest, searchNonce, targetTrailingZeros, withNonce } from "../src/pow/index.js";
import { NULL_BLOCK_ID } from "../src/tangle/tangle.js";
import { argN, hasFlag } from "./_args.js";
import { printFigures, printTable } from "./_table.js";

const BLOCKS = argN("--blocks", 10_000);
const MILESTONES = argN("--milestones", 1000);
const DATA_BYTES = 220;
const now = () => performance.timeOrigin + performance.now();
const tempDir = (name: string) => mkdtemp(join(tmpdir(), `ledger-node-${name}-`));

// ---- child processes: one node each, driven over IPC ----

type Command =
  | { cmd: "start"; kind: "raw" | "node"; dataDir: string; networkConfig?: string }
  | { cmd: "dial"; address: string }
  | { cmd: "prepare"; n: number }
  | { cmd: "expect"; n: number }
  | { cmd: "publish" }
  | { cmd: "cpu" }
  | { cmd: "stop" };

type Report =
  | { ev: "ready"; address: string }
  | { ev: "prepared"; bytes: number }
  | { ev: "received"; at: number; count: number }
  | { ev: "published"; start: number; end: number }
  | { ev: "cpu"; ms: number; active: number }
  | { ev: "ok" };

/** A chain of `n` tagged-data blocks from the null block, each mined to `minPowScore`. */
function blockChain(n: number, minPowScore: number): Uint8Array[] {
  const curl = createSlicedCurl();
  const blocks: Uint8Array[] = [];
  let parent: Uint8Array = NULL_BLOCK_ID;
  for (let i = 0; i < n; i++) {
    const data = new Uint8Array(DATA_BYTES);
    new DataView(data.buffer).setUint32(0, i);
    const block: Block = {
      protocolVersion: 2,
      parents: [parent],
      payload: { type: 5, tag: new TextEncoder().encode("bench"), data },
      nonce: 0n,
    };
    let bytes = encodeBlock(block);
    const zeros = targetTrailingZeros(minPowScore, bytes.length);
    const found = searchNonce(curl, powDigest(bytes), zeros, { start: 0n });
    bytes = withNonce(bytes, found.nonce!);
    blocks.push(bytes);
    parent = blockIdFromBytes(bytes);
  }
  return blocks;
}

async function child(): Promise<void> {
  const send = (r: Report) => process.send!(r);
  let stop: () => Promise<void> = async () => {};
  let dial: (address: string) => Promise<void> = async () => {};
  let publishAll: () => Promise<void> = async () => {};
  let prepared: Uint8Array[] = [];
  let expected = Number.POSITIVE_INFINITY;
  let count = 0;
  const counted = () => {
    count++;
    if (count === expected) send({ ev: "received", at: now(), count });
  };
  let node: LedgerNode | undefined;

  process.on("message", async (c: Command) => {
    if (c.cmd === "start" && c.kind === "raw") {
      const host = await createLibp2p({
        addresses: { listen: ["/ip4/127.0.0.1/tcp/0"] },
        transports: [tcp()],
        connectionEncrypters: [noise()],
        streamMuxers: [yamux({ maxEarlyStreams: 512 })],
        services: {
          identify: identify(),
          pubsub: gossipsub({
            globalSignaturePolicy: "StrictNoSign",
            allowPublishToZeroTopicPeers: true,
            msgIdFn: (m) => blockIdFromBytes(m.data),
          }),
        },
      });
      const topic = blocksTopic("dev");
      host.services.pubsub.subscribe(topic);
      host.services.pubsub.addEventListener("message", counted);
      dial = async (address) => void (await host.dial(multiaddr(address)));
      publishAll = async () => {
        for (const m of prepared) await host.services.pubsub.publish(topic, m);
      };
      stop = async () => {
        await host.stop();
      };
      send({ ev: "ready", address: host.getMultiaddrs()[0]!.toString() });
    } else if (c.cmd === "start") {
      const options: NodeOptions = {
        ...defaultNodeOptions,
        devAccounts: 0,
        dataDir: c.dataDir,
        minPowScore: 1,
        logLevel: "silent",
        p2pHost: "127.0.0.1",
        p2pPort: 0,
        networkConfig: c.networkConfig ?? "",
      };
      node = await LedgerNode.open(options);
      const network = await node.startNetwork(undefined, { heartbeatIntervalMs: 250 });
      node.events.on("blockSolid", counted);
      dial = async (address) => void (await network.connect(address));
      publishAll = async () => {
        for (const b of prepared) await network.broadcast(b, "api");
      };
      stop = () => node!.close();
      send({ ev: "ready", address: network.listenAddresses()[0]! });
    } else if (c.cmd === "dial") {
      await dial(c.address);
      send({ ev: "ok" });
    } else if (c.cmd === "prepare") {
      if (node) {
        prepared = blockChain(c.n, node.tangle.protocolParameters.minPowScore);
      } else {
        prepared = Array.from({ length: c.n }, (_, i) => {
          const m = new Uint8Array(blockChainSize());
          crypto.getRandomValues(m);
          new DataView(m.buffer).setUint32(0, i);
          return m;
        });
      }
      send({ ev: "prepared", bytes: prepared[0]!.length });
    } else if (c.cmd === "expect") {
      expected = count + c.n;
      send({ ev: "ok" });
    } else if (c.cmd === "publish") {
      const start = now();
      await publishAll();
      send({ ev: "published", start, end: now() });
    } else if (c.cmd === "cpu") {
      const u = process.cpuUsage();
      const elu = performance.eventLoopUtilization();
      send({ ev: "cpu", ms: (u.user + u.system) / 1000, active: elu.active });
    } else if (c.cmd === "stop") {
      await stop();
      send({ ev: "ok" });
      process.exit(0);
    }
  });
}

let chainBlockSize = 0;
function blockChainSize(): number {
  chainBlockSize ||= blockChain(1, 1)[0]!.length;
  return chainBlockSize;
}

// ---- the orchestrating process ----

class Child {
  readonly proc: ChildProcess;
  private waiting: ((r: Report) => void)[] = [];
  private reports: Report[] = [];

  constructor() {
    this.proc = fork(process.argv[1]!, ["--child"], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
    this.proc.on("message", (r: Report) => {
      const w = this.waiting.shift();
      if (w) w(r);
      else this.reports.push(r);
    });
  }

  next(): Promise<Report> {
    const r = this.reports.shift();
    if (r) return Promise.resolve(r);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  async ask(c: Command): Promise<Report> {
    this.proc.send(c);
    return this.next();
  }
}

/** Runs A - B - C and returns blocks (or messages) per second from A's first publish to C's last receipt. */
async function propagation(kind: "raw" | "node"): Promise<{ perSec: number; bytes: number; publishPerSec: number }> {
  const dirs = await Promise.all([tempDir("bench-a"), tempDir("bench-b"), tempDir("bench-c")]);
  const [a, b, c] = [new Child(), new Child(), new Child()];
  try {
    const addrA = ((await a.ask({ cmd: "start", kind, dataDir: dirs[0]! })) as { address: string }).address;
    const networkConfig = networkConfigPath(dirs[0]!);
    const addrB = ((await b.ask({ cmd: "start", kind, dataDir: dirs[1]!, networkConfig })) as { address: string })
      .address;
    await c.ask({ cmd: "start", kind, dataDir: dirs[2]!, networkConfig });
    await b.ask({ cmd: "dial", address: addrA });
    await c.ask({ cmd: "dial", address: addrB });
    const prepared = (await a.ask({ cmd: "prepare", n: BLOCKS })) as { bytes: number };
    // gossipsub grafts its mesh on its heartbeat (1 s)
    await new Promise((r) => setTimeout(r, 2500));
    await c.ask({ cmd: "expect", n: BLOCKS });
    const cpuBefore = await Promise.all(
      [a, b, c].map(async (x) => (await x.ask({ cmd: "cpu" })) as { ms: number; active: number }),
    );
    const published = (await a.ask({ cmd: "publish" })) as { start: number; end: number };
    const received = (await Promise.race([
      c.next(),
      new Promise((_, reject) => setTimeout(() => reject(new Error(`${kind}: C did not receive everything`)), 120_000)),
    ])) as { at: number };
    const seconds = (received.at - published.start) / 1000;
    const cpuAfter = await Promise.all(
      [a, b, c].map(async (x) => (await x.ask({ cmd: "cpu" })) as { ms: number; active: number }),
    );
    if (process.env.BENCH_CPU) {
      console.error(
        kind,
        "cpu ms A B C",
        cpuAfter.map((v, i) => Math.round(v.ms - cpuBefore[i]!.ms)),
        "loop busy ms",
        cpuAfter.map((v, i) => Math.round(v.active - cpuBefore[i]!.active)),
        "wall ms",
        Math.round(seconds * 1000),
        "publish ms",
        Math.round(published.end - published.start),
      );
    }
    return {
      perSec: BLOCKS / seconds,
      bytes: prepared.bytes,
      publishPerSec: BLOCKS / ((published.end - published.start) / 1000),
    };
  } finally {
    await Promise.all([a, b, c].map((x) => x.ask({ cmd: "stop" }).catch(() => {})));
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  }
}

/** A follower restarted M milestones behind: time to catch up, and the coordinator's own time for them. */
async function catchUp(): Promise<{ catchUpMs: number; issueMs: number }> {
  const base = { logLevel: "silent" as const, p2pHost: "127.0.0.1", p2pPort: 0, minPowScore: 0 };
  const dirA = await tempDir("bench-coo");
  const dirC = await tempDir("bench-follower");
  const a = await LedgerNode.open({ ...defaultNodeOptions, devAccounts: 0, ...base, dataDir: dirA });
  let c: LedgerNode | undefined;
  try {
    const netA = await a.startNetwork(undefined, { heartbeatIntervalMs: 100 });
    const address = netA.listenAddresses()[0]!;
    const follower = { ...defaultNodeOptions, ...base, dataDir: dirC, networkConfig: networkConfigPath(dirA) };
    c = await LedgerNode.open({ ...follower, peers: [address] });
    await c.startNetwork(undefined, { heartbeatIntervalMs: 100 });
    await a.coordinator.issueMilestone();
    while (c.tangle.latestMilestone.index < 1) await new Promise((r) => setTimeout(r, 10));
    await c.close();
    c = undefined;

    const t0 = performance.now();
    for (let i = 0; i < MILESTONES; i++) {
      const block: Block = { protocolVersion: 2, parents: a.tangle.selectParents(), nonce: 0n };
      block.payload = { type: 5, tag: new TextEncoder().encode("bench"), data: new Uint8Array(8).fill(i & 255) };
      await a.submitBlock(encodeBlock(block));
      await a.coordinator.issueMilestone();
    }
    const issueMs = performance.now() - t0;
    const target = a.tangle.latestMilestone.index;

    const t1 = performance.now();
    c = await LedgerNode.open({ ...follower, peers: [address] });
    await c.startNetwork(undefined, { heartbeatIntervalMs: 100 });
    const deadline = Date.now() + 300_000;
    while (c.tangle.latestMilestone.index < target) {
      if (Date.now() > deadline) throw new Error("the follower did not catch up");
      await new Promise((r) => setTimeout(r, 5));
    }
    return { catchUpMs: performance.now() - t1, issueMs };
  } finally {
    await c?.close();
    await a.close();
    await rm(dirA, { recursive: true, force: true });
    await rm(dirC, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const raw = await propagation("raw");
  const nodes = await propagation("node");
  const sync = await catchUp();
  printTable("network: propagation A -> B -> C and catch-up (loopback, one process per node)", [
    {
      name: `blocks A->C over one hop (${nodes.bytes} B, checked and stored)`,
      value: nodes.perSec,
      unit: "blocks/s",
      target: ">= 3,000/s",
      baseline: `bare gossipsub A->C, same size: ${Math.round(raw.perSec).toLocaleString("en-US")}/s`,
    },
    {
      name: "A's gossip publishing rate",
      value: nodes.publishPerSec,
      unit: "blocks/s",
      baseline: `bare gossipsub: ${Math.round(raw.publishPerSec).toLocaleString("en-US")}/s`,
    },
    {
      name: `catch-up of ${MILESTONES} milestones after a restart`,
      value: sync.catchUpMs,
      unit: "ms",
      baseline: `the coordinator issuing them: ${Math.round(sync.issueMs).toLocaleString("en-US")} ms`,
    },
  ]);
  printFigures("network", {
    propagatedBlocksPerSec: Math.round(nodes.perSec),
    catchUp1000Ms: Math.round(sync.catchUpMs * (1000 / MILESTONES)),
    baselineGossipMessagesPerSec: Math.round(raw.perSec),
    coordinatorIssue1000Ms: Math.round(sync.issueMs * (1000 / MILESTONES)),
  });
}

if (hasFlag("--child")) void child();
else
  main().then(
    () => process.exit(0),
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
