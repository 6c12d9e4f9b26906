/**
 * `npm run bench -- scale [--blocks N] [--outputs M] [--segment S] [--wallets W]
 * [--base-outputs B] [--kill-above-mb K] [--milestone-interval MS] [--only blocks|outputs]
 * [--heap-snapshots] [--snapshot-dir D]`: what happens to the node as its work grows, where the other benches stop
 * at 20,000 blocks or a million outputs.
 *
 * 1. Growth. One node in this process (as bench core opens it: a fresh LevelDB, no funded
 *    accounts, PoW score 0, its ledger indexes on) takes signed value-transaction blocks until N
 *    (default 1,000,000) are confirmed: W wallets (default 20,000) funded from the genesis,
 *    each spending its output back to itself round after round; the payloads are signed in a
 *    process of its own one round ahead (`_transferRounds.ts`), so memory holds two rounds,
 *    never the million, and the RSS measured is the node's alone. Blocks are framed around the
 *    node's tips and submitted 256 in flight through the internal submit path while the
 *    coordinator issues milestones on its timer; a wallet's next block waits until its previous
 *    one is referenced. For every S blocks (default 100,000) confirmed: blocks/s of that
 *    segment, RSS and heap used at its end; at the end the database's size on disk.
 * 2. Restart. The node is closed and opened again on that database (until `open` returns:
 *    indexes caught up); then, over HTTP against its API server: the info route, a v3 output
 *    read and an indexer query, each the median of 200 sequential requests.
 * 3. A large ledger. Full snapshots of B (default 1,000,000) and M (default 10,000,000) outputs are
 *    generated (`_scaleOutputs.ts`); a node starts from each in a child process: load time and
 *    peak RSS; then both serve the same indexer query (100 outputs of one address) in
 *    alternating rounds, and the query rate at M is set against the rate at B. A loading child
 *    whose RSS passes --kill-above-mb (default 8,192) is killed, so that a load that outgrows
 *    the machine is reported (how long it ran, what RSS it reached) instead of taking it down.
 *    With --snapshot-dir the generated files are kept in D (`full_snapshot_<n>.bin`) and a file
 *    already there is loaded instead of generated again (about 37 s per million outputs). With
 *    M equal to B there is one load, and its row carries the load targets.
 *
 * Targets: last segment >= 0.85 of the first; peak RSS <= 1,024 MB throughout; restart <= 5 s;
 * the M-output ledger loaded in <= 200 s within 1,024 MB, answering >= 0.7 of the rate at 1M.
 */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildServer } from "../src/api/server.js";
import { mallocEnvApplied } from "../src/cli/mallocEnv.js";
import { toHex } from "../src/codec/hex.js";
import { LedgerNode } from "../src/node/node.js";
import type { NodeOptions } from "../src/node/options.js";
import { generateSnapshot, TARGET_OUTPUTS } from "../test/helpers/generatedSnapshot.js";
import { argN, argS, hasFlag } from "./_args.js";
import { benchNodeOptions } from "./_benchNode.js";
import { getRequest, loadFromWorker } from "./_httpLoad.js";
import { type Growth, grow, RssSampler } from "./_scaleGrowth.js";
import { LoadFailed, LoadingChild } from "./_scaleOutputs.js";
import { type BenchRow, printFigures, printTable } from "./_table.js";

const only = argS("--only");
const BLOCKS = argN("--blocks", 1_000_000);
const OUTPUTS = argN("--outputs", 10_000_000);
const SEGMENT = argN("--segment", 100_000);
const WALLETS = argN("--wallets", 20_000);
const MILESTONE_MS = argN("--milestone-interval", 500);
/** Writes a V8 heap snapshot into the working directory after the first and the second-to-last segment. */
const HEAP_SNAPSHOTS = hasFlag("--heap-snapshots");
const IN_FLIGHT = 256;
const REQUESTS = 200;
const BASE_OUTPUTS = Math.min(argN("--base-outputs", 1_000_000), OUTPUTS);
const RSS_LIMIT_MB = 1024;
/** A loading child above this is killed (and reported) before it can starve the machine. */
const KILL_ABOVE_MB = argN("--kill-above-mb", 8192);
/** Where generated snapshots are kept and reused from (else the run's temporary directory, removed after). */
const SNAPSHOT_DIR = argS("--snapshot-dir");

const MB = 1024 * 1024;
const problems: string[] = [];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const fmt = (v: number) => Math.round(v).toLocaleString("en-US");
const check = (ok: boolean, target: string) => `${ok ? "✓" : "✗"} ${target}`;

const nodeOptions = (dataDir: string): NodeOptions => benchNodeOptions(dataDir, { milestoneIntervalMs: MILESTONE_MS });

// ---------------------------------------------------------------- 2. restart and reads

/** Median time of `REQUESTS` sequential GETs of `path` (after 20 not counted), ms. */
async function medianGetMs(base: string, path: string): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < REQUESTS + 20; i++) {
    const t0 = performance.now();
    const res = await fetch(base + path);
    await res.arrayBuffer();
    if (i >= 20) times.push(performance.now() - t0);
    if (res.status !== 200) {
      problems.push(`GET ${path} answered ${res.status}`);
      break;
    }
  }
  return median(times);
}

async function restart(dir: string, sample: Growth["sample"]) {
  const t0 = performance.now();
  const node = await LedgerNode.open(nodeOptions(dir));
  const restartMs = performance.now() - t0;
  const app = buildServer(node, "silent");
  try {
    await app.listen({ host: "127.0.0.1", port: 0 });
    const { port } = app.server.address() as { port: number };
    const base = `http://127.0.0.1:${port}`;
    return {
      restartMs,
      infoMs: await medianGetMs(base, "/api/core/v2/info"),
      outputReadMs: await medianGetMs(base, `/api/core/v3/outputs/${toHex(sample.outputId)}/full`),
      indexerQueryMs: await medianGetMs(base, `/api/indexer/v1/outputs/basic?address=${sample.address}`),
    };
  } finally {
    await app.close();
    await node.close();
  }
}

// ---------------------------------------------------------------- 3. a large ledger from a snapshot

/** Indexer queries per second of one node (32 connections, `seconds` after a 200 ms warm-up). */
async function queryRate(port: number, target: string, seconds: number): Promise<number> {
  const path = `/api/indexer/v1/outputs/basic?address=${target}`;
  const r = await loadFromWorker({
    port,
    connections: 32,
    request: getRequest(port, path),
    warmMs: 200,
    maxMs: seconds * 1000,
  });
  if (r.failed > 0) problems.push(`${r.failed} indexer queries failed`);
  return (r.ok * 1000) / r.elapsedMs;
}

interface Loaded {
  outputs: number;
  loadMs: number;
  peakRssMB: number;
  child: LoadingChild;
  port: number;
  target: string;
}

async function largeLedger(dir: string) {
  const loads: Loaded[] = [];
  const generated: { outputs: number; ms: number }[] = [];
  let failed: LoadFailed | undefined;
  try {
    // one load when both sizes are the same: a second node on the same data would find it locked
    for (const outputs of [...new Set([BASE_OUTPUTS, OUTPUTS])]) {
      const file = join(SNAPSHOT_DIR ?? dir, `full_snapshot_${outputs}.bin`);
      if (SNAPSHOT_DIR && existsSync(file)) {
        console.error(`loading the snapshot of ${fmt(outputs)} outputs kept in ${file}`);
      } else {
        const t0 = performance.now();
        if (SNAPSHOT_DIR) await mkdir(SNAPSHOT_DIR, { recursive: true });
        // the writer renames the file into place once complete: a run stopped midway leaves none to reuse
        await generateSnapshot(dir, outputs, file);
        generated.push({ outputs, ms: performance.now() - t0 });
        console.error(`snapshot of ${fmt(outputs)} outputs generated in ${fmt(performance.now() - t0)} ms; loading it`);
      }
      let started: Awaited<ReturnType<typeof LoadingChild.start>>;
      try {
        started = await LoadingChild.start(join(dir, `node-${outputs}`), file, KILL_ABOVE_MB);
      } catch (e) {
        // a load that outgrows the machine is a result too: how far it got, and at what RSS
        if (!(e instanceof LoadFailed) || outputs !== OUTPUTS) throw e;
        failed = e;
        problems.push(e.message);
        break;
      } finally {
        if (!SNAPSHOT_DIR) for (const f of [file, `${file}.sha256`]) await rm(f, { force: true });
      }
      const { child, loaded } = started;
      const peakRssMB = Math.max(await child.peakRssMB(), loaded.sampledPeakRssMB, child.watchedPeakMB);
      loads.push({ outputs, loadMs: loaded.loadMs, peakRssMB, child, port: loaded.port, target: loaded.target });
      console.error(`loaded in ${fmt(loaded.loadMs)} ms, peak RSS ${fmt(peakRssMB)} MB`);
      // the answer holds what the generator gave the target
      const res = await fetch(`http://127.0.0.1:${loaded.port}/api/indexer/v1/outputs/basic?address=${loaded.target}`);
      const items = ((await res.json()) as { items?: unknown[] }).items?.length;
      if (res.status !== 200 || items !== Math.min(TARGET_OUTPUTS, outputs)) {
        problems.push(`the indexer query at ${fmt(outputs)} outputs answered ${res.status} with ${items} items`);
      }
    }
    // the nodes serve the same query, in alternating rounds (the machine is shared)
    const rates = loads.map(() => [] as number[]);
    for (let round = 0; round < 3; round++) {
      for (const [i, l] of loads.entries()) rates[i]!.push(await queryRate(l.port, l.target, 2));
    }
    const summary = (i: number) => ({ ...loads[i]!, queriesPerSec: median(rates[i]!), rounds: rates[i]! });
    // with one load (M = B) that failed there is no base to compare with
    const base = loads.length > 0 ? summary(0) : undefined;
    return { generated, base, large: failed || loads.length < 2 ? undefined : summary(1), failed };
  } finally {
    for (const l of loads) await l.child.close();
  }
}

// ---------------------------------------------------------------- the run

const dir = await mkdtemp(join(tmpdir(), "ledger-node-bench-scale-"));
const rows: BenchRow[] = [];

/** The rows of a load the targets are for: its time and its peak RSS. */
function targetLoadRows(outputs: string, l: { loadMs: number; peakRssMB: number }): BenchRow[] {
  return [
    {
      name: `load ${outputs} outputs from the snapshot (open until ready)`,
      value: l.loadMs,
      unit: "ms",
      target: check(l.loadMs <= 200_000, "<= 200,000 ms"),
    },
    {
      name: "  peak RSS of that load (VmHWM)",
      value: l.peakRssMB,
      unit: "MB",
      target: check(l.peakRssMB <= RSS_LIMIT_MB, `<= ${fmt(RSS_LIMIT_MB)} MB`),
    },
  ];
}

/** The row of the indexer's query rate at `outputs`, with its rounds. */
function queryRow(outputs: string, l: { queriesPerSec: number; rounds: number[] }): BenchRow {
  return {
    name: `indexer query at ${outputs} outputs (32 connections)`,
    value: l.queriesPerSec,
    unit: "req/s",
    baseline: `rounds ${l.rounds.map(fmt).join(", ")}`,
  };
}
const figures: Record<string, number> = { blocks: only === "outputs" ? 0 : BLOCKS };
const rss = new RssSampler();
try {
  console.log(`scale bench in ${dir}`);
  if (only !== "outputs") {
    const g = await grow(
      {
        dir: join(dir, "grown"),
        node: nodeOptions(join(dir, "grown")),
        blocks: BLOCKS,
        segment: SEGMENT,
        wallets: WALLETS,
        milestoneMs: MILESTONE_MS,
        inFlight: IN_FLIGHT,
        heapSnapshots: HEAP_SNAPSHOTS,
        problems,
      },
      rss,
    );
    const growthPeakMB = rss.peak / MB;
    g.segments.forEach((s, i) => {
      rows.push({
        name: `segment ${i + 1}: blocks ${fmt(i * SEGMENT + 1)}..${fmt((i + 1) * SEGMENT)} in + confirmed`,
        value: s.perSec,
        unit: "/s",
        baseline: `RSS ${fmt(s.rssMB)} MB, heap used ${fmt(s.heapUsedMB)} MB, external ${fmt(s.externalMB)} MB`,
      });
    });
    const first = g.segments[0]?.perSec ?? 0;
    const last = g.segments.at(-1)?.perSec ?? 0;
    const ratio = first > 0 ? last / first : 0;
    const busyShare = g.generatorBusyMs / g.elapsedMs;
    rows.push(
      { name: "last segment / first", value: ratio, unit: "", target: check(ratio >= 0.85, ">= 0.85") },
      {
        name: "peak RSS while growing (sampled every 100 ms)",
        value: growthPeakMB,
        unit: "MB",
        target: check(growthPeakMB <= RSS_LIMIT_MB, `<= ${fmt(RSS_LIMIT_MB)} MB`),
        // the node's malloc settings come from its launcher (src/cli/mallocEnv.ts)
        baseline: mallocEnvApplied()
          ? "malloc settings as npm start"
          : "glibc's default malloc: run through npm run bench",
      },
      { name: `database on disk after ${fmt(BLOCKS)} blocks`, value: g.dbSizeMB, unit: "MB" },
      {
        name: "payload generator (own process): signing + encoding",
        value: g.generatorUsPerPayload,
        unit: "µs/payload",
        baseline: `${(100 * busyShare).toFixed(0)}% of one core over the run`,
      },
    );
    const r = await restart(join(dir, "grown"), g.sample);
    rows.push(
      {
        name: "restart on that database (open until ready)",
        value: r.restartMs,
        unit: "ms",
        target: check(r.restartMs <= 5000, "<= 5,000 ms"),
      },
      { name: `  GET /api/core/v2/info, median of ${REQUESTS}`, value: r.infoMs, unit: "ms" },
      { name: `  GET /api/core/v3/outputs/{id}/full, median of ${REQUESTS}`, value: r.outputReadMs, unit: "ms" },
      { name: `  GET indexer basic ?address, median of ${REQUESTS}`, value: r.indexerQueryMs, unit: "ms" },
    );
    Object.assign(figures, {
      segments: g.segments.length,
      firstSegmentPerSec: Math.round(first),
      lastSegmentPerSec: Math.round(last),
      segmentRatio: Number(ratio.toFixed(3)),
      peakRssMB: Math.round(growthPeakMB),
      mallocSettings: mallocEnvApplied() ? 1 : 0,
      dbSizeMB: Math.round(g.dbSizeMB),
      generatorUsPerPayload: Number(g.generatorUsPerPayload.toFixed(1)),
      conflicting: g.conflicting,
      restartMs: Math.round(r.restartMs),
      infoMs: Number(r.infoMs.toFixed(2)),
      outputReadMs: Number(r.outputReadMs.toFixed(2)),
      indexerQueryMs: Number(r.indexerQueryMs.toFixed(2)),
    });
    await rm(join(dir, "grown"), { recursive: true, force: true });
  }
  rss.stop();
  if (only !== "blocks") {
    const l = await largeLedger(dir);
    const m = fmt(OUTPUTS);
    for (const g of l.generated) {
      rows.push({ name: `generate a snapshot of ${fmt(g.outputs)} outputs (not a target)`, value: g.ms, unit: "ms" });
    }
    const large = l.large;
    const base = l.base;
    if (base && OUTPUTS === BASE_OUTPUTS) {
      // one load: its own row carries the targets
      rows.push(...targetLoadRows(m, base), queryRow(m, base));
    } else if (base) {
      rows.push({
        name: `load ${fmt(BASE_OUTPUTS)} outputs from the snapshot (open until ready)`,
        value: base.loadMs,
        unit: "ms",
        baseline: `peak RSS ${fmt(base.peakRssMB)} MB (VmHWM)`,
      });
    }
    if (large && base) {
      const ratio = large.queriesPerSec / base.queriesPerSec;
      rows.push(...targetLoadRows(m, large), queryRow(fmt(BASE_OUTPUTS), base), queryRow(m, large), {
        name: `  rate at ${m} / rate at ${fmt(BASE_OUTPUTS)}`,
        value: ratio,
        unit: "",
        target: check(ratio >= 0.7, ">= 0.7"),
      });
      Object.assign(figures, {
        outputs10MLoadMs: Math.round(large.loadMs),
        outputs10MPeakRssMB: Math.round(large.peakRssMB),
        indexerQueriesPerSec10M: Math.round(large.queriesPerSec),
        indexerRatio: Number(ratio.toFixed(3)),
      });
    } else if (l.failed) {
      // the load did not finish: what it reached is a lower bound, said as such
      const f = l.failed;
      rows.push(
        {
          name: `load ${m} outputs from the snapshot: ${f.killed ? `killed above ${fmt(KILL_ABOVE_MB)} MB` : "failed"} after`,
          value: f.elapsedMs,
          unit: "ms",
          target: check(false, "<= 200,000 ms (unfinished)"),
        },
        {
          name: "  RSS it had reached",
          value: f.peakMB,
          unit: "MB",
          target: check(false, `<= ${fmt(RSS_LIMIT_MB)} MB`),
        },
      );
      if (base) {
        rows.push({
          name: `indexer query at ${fmt(BASE_OUTPUTS)} outputs (32 connections)`,
          value: base.queriesPerSec,
          unit: "req/s",
          baseline: `rounds ${base.rounds.map(fmt).join(", ")}`,
        });
      }
      Object.assign(figures, {
        outputs10MLoadMs: Math.round(f.elapsedMs),
        outputs10MPeakRssMB: Math.round(f.peakMB),
        outputs10MLoadUnfinished: 1,
      });
    }
    Object.assign(figures, { outputs: OUTPUTS, baseOutputs: BASE_OUTPUTS });
    if (base && OUTPUTS === BASE_OUTPUTS && OUTPUTS === 10_000_000) {
      // the one load is the 10,000,000-output one: its figures under the names the issue gives them
      Object.assign(figures, {
        outputs10MLoadMs: Math.round(base.loadMs),
        outputs10MPeakRssMB: Math.round(base.peakRssMB),
        indexerQueriesPerSec10M: Math.round(base.queriesPerSec),
      });
    } else if (base) {
      Object.assign(figures, {
        outputs1MLoadMs: Math.round(base.loadMs),
        outputs1MPeakRssMB: Math.round(base.peakRssMB),
        indexerQueriesPerSec1M: Math.round(base.queriesPerSec),
      });
    }
  }
} finally {
  rss.stop();
  await rm(dir, { recursive: true, force: true });
}
const parts = [
  only !== "outputs" ? `${fmt(BLOCKS)} blocks grown` : "",
  only !== "blocks" ? `${fmt(OUTPUTS)} outputs loaded` : "",
];
printTable(`scale: ${parts.filter(Boolean).join(", ")}`, rows);
for (const p of problems) console.error(p);
if (problems.length > 0) process.exitCode = 1;
printFigures("scale", figures);
