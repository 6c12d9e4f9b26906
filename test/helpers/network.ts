import { encodeBlock } from "../../src/codec/block.js";
import { compareBytes, toHex } from "../../src/codec/hex.js";
import type { Block, Payload } from "../../src/codec/types.js";
import type { Network, NetworkLogger, NetworkOptions } from "../../src/network/index.js";
import { networkConfigPath } from "../../src/network/index.js";
import type { LedgerNode } from "../../src/node/node.js";
import type { NodeOptions } from "../../src/node/options.js";
import { minerPool, powDigest, withNonce } from "../../src/pow/index.js";
import { Bucket, decodeMilestoneRecord, indexKey } from "../../src/storage/index.js";
import { openNode, removeDir, tempDir } from "./node.js";
import { waitFor } from "./waitFor.js";

/**
 * In-process nodes for the network tests: real LedgerNodes on temporary data dirs, each with
 * its own libp2p host on a free loopback port, and network timings shortened so tests run in
 * seconds (heartbeats every 100 ms, parents requested after 50 ms, quick redials).
 */

export const FAST_NETWORK: Partial<NetworkOptions> = {
  heartbeatIntervalMs: 100,
  parentRequestDelayMs: 50,
  reconnectMinMs: 100,
  reconnectMaxMs: 1000,
  requestTimeoutMs: 5000,
};

/** Network logs on stderr when NETWORK_TEST_LOG is set (debugging), else none. */
function testLogger(dir: string): NetworkLogger | undefined {
  if (!process.env.NETWORK_TEST_LOG) return undefined;
  const name = dir.split("-").slice(-2).join("-");
  const line = (level: string) => (obj: object, msg?: string) =>
    console.error(
      `${Date.now() % 100000} ${name} ${level} ${msg ?? ""} ${JSON.stringify(obj)} ${(obj as { err?: Error }).err?.message ?? ""}`,
    );
  return { debug: line("debug"), info: line("info"), warn: line("warn"), error: line("error") };
}

export interface TestNode {
  node: LedgerNode;
  network: Network;
  dir: string;
  /** A multiaddr others dial (loopback, with the peer ID). */
  address: string;
  close(): Promise<void>;
}

/** Opens a node on `dir` and starts its network (the coordinator is left to the test). */
export async function startNode(
  dir: string,
  options: Partial<NodeOptions> = {},
  network: Partial<NetworkOptions> = {},
): Promise<TestNode> {
  const node = await openNode(dir, { p2pHost: "127.0.0.1", p2pPort: 0, ...options });
  const net = await node.startNetwork(testLogger(dir), { ...FAST_NETWORK, ...network });
  const address = net.listenAddresses().find((a) => a.startsWith("/ip4/127.0.0.1/"))!;
  return {
    node,
    network: net,
    dir,
    address,
    close: () => node.close(),
  };
}

/** A coordinator node on a fresh data dir. */
export async function startCoordinator(
  options: Partial<NodeOptions> = {},
  network: Partial<NetworkOptions> = {},
): Promise<TestNode> {
  return startNode(await tempDir("net-coo"), options, network);
}

/** A follower of `coordinator`'s network, dialling `peers`. */
export async function startFollower(
  coordinator: TestNode,
  peers: string[],
  options: Partial<NodeOptions> = {},
  network: Partial<NetworkOptions> = {},
  dir?: string,
): Promise<TestNode> {
  return startNode(
    dir ?? (await tempDir("net-follower")),
    { networkConfig: networkConfigPath(coordinator.dir), peers, ...options },
    network,
  );
}

export async function removeNode(n: TestNode): Promise<void> {
  await n.close().catch(() => {});
  await removeDir(n.dir);
}

/** `waitFor` polling every 20 ms: in-process state changes quickly. */
export function until<T>(
  fn: () => T | undefined | false | Promise<T | undefined | false>,
  ms: number,
  what: string,
): Promise<T> {
  return waitFor(fn, ms, what, 20);
}

/** A block with `payload` on `parents` (default: the node's tip selection), mined to `minPowScore`. */
export async function makeBlock(node: LedgerNode, payload?: Payload, parents?: Uint8Array[]): Promise<Uint8Array> {
  const block: Block = {
    protocolVersion: 2,
    parents: [...(parents ?? node.tangle.selectParents())].sort(compareBytes),
    ...(payload ? { payload } : {}),
    nonce: 0n,
  };
  const bytes = encodeBlock(block);
  const min = node.tangle.protocolParameters.minPowScore;
  if (min <= 0) return bytes;
  const nonce = await minerPool().mine(powDigest(bytes), min, bytes.length, { workers: 1 });
  return withNonce(bytes, nonce);
}

/** A tagged data payload with a counter, so every block is different. */
export function taggedData(n: number): Payload {
  return { type: 5, tag: new TextEncoder().encode("net-test"), data: new TextEncoder().encode(`block ${n}`) };
}

/** What must agree between nodes: unspent outputs, and per milestone its ID and ledger diff. */
export async function ledgerState(node: LedgerNode): Promise<{ unspent: string[]; milestones: string[] }> {
  const unspent: string[] = [];
  for await (const key of node.store.scanKeys({ prefix: Uint8Array.of(Bucket.Unspent) }))
    unspent.push(toHex(key.subarray(1)));
  const milestones: string[] = [];
  for (let i = 1; i <= node.tangle.latestMilestone.index; i++) {
    const record = decodeMilestoneRecord((await node.store.get(indexKey(Bucket.MilestoneByIndex, i)))!);
    const diff = await node.store.get(indexKey(Bucket.LedgerDiff, i));
    milestones.push(`${i} ${toHex(record.milestoneId)} ${diff ? toHex(diff) : "-"}`);
  }
  return { unspent: unspent.sort(), milestones };
}
