/**
 * The growth part of `bench scale` (see scale.ts, 1): one node takes signed self-transfers of W
 * wallets, round after round, until N blocks are confirmed; a segment's rate, RSS and heap are
 * taken each time S more blocks are confirmed.
 */
import { readFileSync } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { getHeapSpaceStatistics, writeHeapSnapshot } from "node:v8";
import { addressToBech32 } from "../src/codec/address.js";
import { toHex } from "../src/codec/hex.js";
import type { AddressUnlockCondition, BasicOutput } from "../src/codec/types.js";
import { LedgerNode } from "../src/node/node.js";
import type { NodeOptions } from "../src/node/options.js";
import { frameBlock } from "./_frameBlock.js";
import { type PackedPayloads, payloadAt, TransferRounds } from "./_transferRounds.js";

const MB = 1024 * 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const fmt = (v: number) => Math.round(v).toLocaleString("en-US");

/** Largest RSS of this process, sampled every 100 ms. */
export class RssSampler {
  peak = 0;
  private readonly timer = setInterval(() => this.sample(), 100);
  sample(): number {
    const rss = process.memoryUsage().rss;
    this.peak = Math.max(this.peak, rss);
    return rss;
  }
  stop(): void {
    clearInterval(this.timer);
  }
}

/**
 * This process's RSS by kind of mapping (Linux /proc/self/smaps; empty elsewhere): table files
 * LevelDB maps for reading (.ldb), V8's 256 KiB heap pages (of every isolate: the verify pool's
 * workers too), and the other anonymous memory (malloc: LevelDB's caches, batches and
 * memtables, Buffers; V8's large objects).
 */
function rssByKind(): { ldbMB: number; v8PagesMB: number; otherAnonMB: number } | undefined {
  let text: string;
  try {
    text = readFileSync("/proc/self/smaps", "utf8");
  } catch {
    return undefined;
  }
  const kinds = { ldbMB: 0, v8PagesMB: 0, otherAnonMB: 0 };
  let kind: keyof typeof kinds | undefined;
  for (const line of text.split("\n")) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      const size = Number.parseInt(head[2]!, 16) - Number.parseInt(head[1]!, 16);
      const name = head[3]!;
      kind = name.endsWith(".ldb")
        ? "ldbMB"
        : name === "" && size === 256 * 1024
          ? "v8PagesMB"
          : name === "" || name === "[heap]"
            ? "otherAnonMB"
            : undefined;
    } else if (kind && line.startsWith("Rss:")) {
      kinds[kind] += Number(line.slice(4).trim().split(" ")[0]) / 1024;
    }
  }
  return kinds;
}

/** The main isolate's large-object spaces (objects V8 allocates apart from its pages), MB. */
function largeObjectsMB(): number {
  return (
    getHeapSpaceStatistics()
      .filter((space) => space.space_name.includes("large_object"))
      .reduce((sum, space) => sum + space.space_used_size, 0) / MB
  );
}

/** LevelDB's own count of its memory (memtables and block cache), MB. */
function levelDbMemoryMB(node: LedgerNode): number {
  // biome-ignore lint/suspicious/noExplicitAny: a debugging view into the store's LevelDB handle
  const db = (node.store as any).db as { getProperty(name: string): string };
  return Number(db.getProperty("leveldb.approximate-memory-usage")) / MB;
}

export async function dirSizeMB(dir: string): Promise<number> {
  let bytes = 0;
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) bytes += (await stat(join(entry.parentPath, entry.name))).size;
  }
  return bytes / MB;
}

export interface Segment {
  blocks: number;
  perSec: number;
  rssMB: number;
  heapUsedMB: number;
  /** V8's heap as committed (in RSS), of which `heapUsedMB` is in use. */
  heapTotalMB: number;
  /** Memory of Buffers and other objects outside V8's heap (LevelDB's own is in RSS only). */
  externalMB: number;
}

export interface Growth {
  segments: Segment[];
  dbSizeMB: number;
  conflicting: number;
  generatorBusyMs: number;
  generatorUsPerPayload: number;
  elapsedMs: number;
  /** An output the last milestones created, for the reads after the restart. */
  sample: { outputId: Uint8Array; address: string };
}

/** What a growth run is given (bench scale's flags). */
export interface GrowthOptions {
  dir: string;
  node: NodeOptions;
  blocks: number;
  segment: number;
  wallets: number;
  milestoneMs: number;
  inFlight: number;
  heapSnapshots: boolean;
  problems: string[];
}

export async function grow(o: GrowthOptions, rss: RssSampler): Promise<Growth> {
  const { blocks: BLOCKS, segment: SEGMENT, wallets: WALLETS, milestoneMs: MILESTONE_MS, problems } = o;
  const rounds = await TransferRounds.start(WALLETS);
  const node = await LedgerNode.open(o.node);
  const submit = async (payload: Uint8Array) =>
    (await node.submitBlock(frameBlock(node.tangle.selectParents(), payload))).blockId;

  // fund the wallets (not timed)
  await node.coordinator.issueMilestone();
  for (const tx of rounds.funding) await submit(tx);
  await node.coordinator.issueMilestone();

  // every milestone: what it included, and a segment's end once S more blocks are confirmed
  const segments: Segment[] = [];
  let included = 0;
  let conflicting = 0;
  let segmentStart = performance.now();
  let sample: Growth["sample"] | undefined;
  const hrp = node.tangle.protocolParameters.bech32Hrp;
  const unsubscribe = node.events.on("milestoneConfirmed", ({ result }) => {
    included += result.included.length;
    conflicting += result.referenced.filter((b) => b.payloadType === 6).length - result.included.length;
    const created = result.created[0];
    if (created) {
      // the wallets' outputs are basic outputs with one address unlock condition
      const owner = (created.output as BasicOutput).unlockConditions[0] as AddressUnlockCondition;
      sample = { outputId: created.outputId, address: addressToBech32(owner.address, hrp) };
    }
    while (included >= (segments.length + 1) * SEGMENT && segments.length < Math.ceil(BLOCKS / SEGMENT)) {
      const now = performance.now();
      const mem = process.memoryUsage();
      rss.peak = Math.max(rss.peak, mem.rss);
      segments.push({
        blocks: SEGMENT,
        perSec: (SEGMENT * 1000) / (now - segmentStart),
        rssMB: mem.rss / MB,
        heapUsedMB: mem.heapUsed / MB,
        heapTotalMB: mem.heapTotal / MB,
        externalMB: mem.external / MB,
      });
      segmentStart = now;
      // progress as it happens: a long run shows its trend before the table
      const s = segments.at(-1)!;
      if (o.heapSnapshots && (segments.length === 1 || segments.length === Math.ceil(BLOCKS / SEGMENT) - 1)) {
        console.error(`heap snapshot: ${writeHeapSnapshot(`scale-segment-${segments.length}.heapsnapshot`)}`);
      }
      console.error(
        `segment ${segments.length}: ${fmt(s.perSec)} blocks/s, RSS ${fmt(s.rssMB)} MB, ` +
          `heap used ${fmt(s.heapUsedMB)} of ${fmt(s.heapTotalMB)} MB, ` +
          `external ${fmt(s.externalMB)} MB, ${node.tangle.unreferencedCount()} unreferenced`,
      );
      const kinds = rssByKind();
      if (kinds) {
        console.error(
          `  RSS by kind: LevelDB tables mapped ${fmt(kinds.ldbMB)} MB, V8 pages ${fmt(kinds.v8PagesMB)} MB, ` +
            `other anonymous ${fmt(kinds.otherAnonMB)} MB, of which this isolate's large objects ${fmt(largeObjectsMB())} MB ` +
            `and LevelDB's own count (memtables, block cache) ${fmt(levelDbMemoryMB(node))} MB`,
        );
      }
    }
  });

  // the first round is signed before the clock starts (the next one is signed meanwhile)
  const held = new Map<number, Promise<PackedPayloads>>([[0, rounds.round(0)]]);
  await held.get(0);

  // timed: 256 clients take the next block of the round-robin over the wallets
  const t0 = performance.now();
  segmentStart = t0;
  const roundOf = (r: number) => {
    let p = held.get(r);
    if (!p) {
      p = rounds.round(r);
      held.set(r, p);
      held.delete(r - 2);
    }
    return p;
  };
  // a wallet's block of round r goes once its block of round r - 1 is submitted and referenced;
  // the payload is copied out of its round, so no round is held longer than it is being sent
  const lastBlock: (Uint8Array | undefined)[] = new Array(WALLETS);
  const roundsSent = new Int32Array(WALLETS);
  const referenced = async (blockId: Uint8Array) => {
    for (const since = performance.now(); node.tangle.unreferencedMetadata(blockId); await sleep(5)) {
      if (performance.now() - since > 120_000) throw new Error(`block ${toHex(blockId)} not referenced in 120 s`);
    }
  };
  let next = 0;
  const client = async () => {
    while (next < BLOCKS) {
      const seq = next++;
      const wallet = seq % WALLETS;
      const round = Math.floor(seq / WALLETS);
      const payload = payloadAt(await roundOf(round), wallet).slice();
      while (roundsSent[wallet]! < round) await sleep(5);
      const before = lastBlock[wallet];
      if (before) await referenced(before);
      lastBlock[wallet] = await submit(payload);
      roundsSent[wallet] = round + 1;
    }
  };
  node.coordinator.options.intervalMs = MILESTONE_MS;
  node.coordinator.start();
  await Promise.all(Array.from({ length: o.inFlight }, client));
  for (const since = performance.now(); included + conflicting < BLOCKS && performance.now() - since < 60_000; ) {
    await sleep(5);
  }
  const elapsedMs = performance.now() - t0;
  await node.coordinator.stop();
  unsubscribe();
  await rounds.close();
  await node.close();
  if (included !== BLOCKS) problems.push(`${included} of ${BLOCKS} transactions included, ${conflicting} conflicting`);
  return {
    segments,
    dbSizeMB: await dirSizeMB(o.dir),
    conflicting,
    generatorBusyMs: rounds.busyMs,
    generatorUsPerPayload: (rounds.busyMs * 1000) / Math.max(1, rounds.made),
    elapsedMs,
    sample: sample!,
  };
}
