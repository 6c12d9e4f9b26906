/**
 * `npm run bench -- dashboard [--seconds S] [--rounds K] [--rate R]`: what the dashboard's Live
 * tangle page, open in a browser, costs the node under load. A node opened in this process
 * (LevelDB on a temporary dir, no PoW minimum, milestones every second) serves HTTP, the event
 * API and the dashboard on loopback; bench core's load (`--load core`, the default: blocks
 * submitted inside this process; `--load http`: bench events' JSON load from a worker thread)
 * runs for S seconds per phase (default 8) after a 10 s warm-up, as fast as the node answers
 * (`--rate R` paces it at R blocks/s instead).
 *
 * Phases alternate K times (default 3), each round starting one phase later than the last, so
 * that the database's growth over the run weighs on every phase alike: no page (the same-run
 * baseline: Chromium is running, with no page open); headless Chromium (Debian's, driven by
 * playwright-core) showing a static page, the node's info as JSON (for reference: what a
 * browser showing anything costs on these cores); and `/dashboard/tangle`. Each page is opened
 * before its phase and closed after it. Figures: blocks accepted per second in each phase (the
 * median of the rounds) and the ratios to the baseline (target for the Live tangle >= 0.9: the
 * issue's "does not cut the node's throughput by more than 10%"); the share of the accepted
 * blocks the page received (it samples above a few hundred blocks a second) and drew at most
 * (its window's bound); this process's CPU (all threads, and the main thread) and Chromium's
 * (every process under this one) per second of load; the page's own measure of a redraw. A
 * console error on the page fails the run.
 *
 * The machine's cores are shared by the node, the load's worker and Chromium, so the browser's
 * CPU shows in the node's figure, as it would for an operator running both on one machine.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { Session } from "node:inspector/promises";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { DEFAULT_DASHBOARD_DIR } from "../src/api/dashboard.js";
import { buildServer } from "../src/api/server.js";
import { encodePayload } from "../src/codec/payload.js";
import { LedgerNode } from "../src/node/node.js";
import { closeMinerPool } from "../src/pow/index.js";
import { launchChromium } from "../test/browser/helpers/browser.js";
import { argN, argS } from "./_args.js";
import { benchNodeOptions } from "./_benchNode.js";
import { load } from "./_blockLoad.js";
import { frameBlock } from "./_frameBlock.js";
import { median } from "./_stats.js";
import { printFigures, printTable } from "./_table.js";

const SECONDS = argN("--seconds", 8);
/**
 * Load before the first phase: the JIT, the first milestones, and LevelDB past its first
 * levels (its compactions slow intake as the database grows, most in the first seconds).
 */
const WARM_UP_SECONDS = 10;
const ROUNDS = argN("--rounds", 3);
const RATE = argN("--rate", 0);
/**
 * `--load core` (default): bench core's load, blocks submitted inside this process
 * (`node.submitBlock`, 256 in flight, payloads encoded before the clock starts and framed around
 * the node's tips), so the machine's cores are the node's and Chromium's only. `--load http`:
 * bench events' load, JSON over HTTP from a worker thread, which shares the cores with both.
 */
const LOAD = argS("--load") ?? "core";
/**
 * `--profile FILE`: the Live tangle page's main thread profiled by Chromium's own profiler (CDP
 * `Profiler`) during its phases, written to FILE (a .cpuprofile, which Chromium's DevTools open),
 * and the functions that took the most of it printed.
 */
const PROFILE = argS("--profile");
/**
 * The phases of a round: no page (the baseline), a static page (the node's info as JSON: what a
 * headless Chromium showing anything costs on these cores, for reference), the Live tangle.
 */
type Phase = "none" | "static" | "tangle";
const PHASES: Phase[] = ["none", "static", "tangle"];
/** The page's window (web/src/pages/Tangle.tsx): it never draws more. */
const WINDOW = 1000;

/**
 * CPU seconds of every process below this one (Chromium's), from /proc, by process ID with
 * Chromium's process type (`--type=renderer`, `gpu-process`, `utility`; "browser" for the one
 * without); empty where there is no /proc.
 */
function descendantsCpu(): Map<number, { type: string; seconds: number }> {
  const out = new Map<number, { type: string; seconds: number }>();
  if (!existsSync("/proc/self/stat")) return out;
  const parents = new Map<number, number>();
  const ticks = new Map<number, number>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      // the fields after the command's closing parenthesis: state ppid ... utime(14) stime(15)
      const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      parents.set(Number(name), Number(rest[1]));
      ticks.set(Number(name), Number(rest[11]) + Number(rest[12]));
    } catch {
      // a process that ended meanwhile
    }
  }
  for (const [pid, t] of ticks) {
    for (let p = parents.get(pid); p !== undefined && p > 1; p = parents.get(p)) {
      if (p !== process.pid) continue;
      let type = "browser";
      try {
        type = /--type=([a-z-]+)/.exec(readFileSync(`/proc/${pid}/cmdline`, "utf8"))?.[1] ?? "browser";
      } catch {
        // ended meanwhile
      }
      // USER_HZ is 100 on Linux
      out.set(pid, { type, seconds: t / 100 });
      break;
    }
  }
  return out;
}

/**
 * Chromium's CPU seconds between two readings, by process type: the processes alive at the
 * second (one that ended meanwhile, the previous page's renderer say, takes its time along
 * rather than making the sum negative).
 */
function cpuBetween(
  before: Map<number, { type: string; seconds: number }>,
  after: Map<number, { type: string; seconds: number }>,
): Map<string, number> {
  const byType = new Map<string, number>();
  for (const [pid, a] of after) {
    byType.set(a.type, (byType.get(a.type) ?? 0) + a.seconds - (before.get(pid)?.seconds ?? 0));
  }
  return byType;
}

const totalOf = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);

/**
 * This process's CPU seconds: every thread (the node's main thread, LevelDB's and libuv's
 * threads, the collector's helpers) and the main thread alone (from /proc, 0 where there is none).
 */
function ownCpu(): { all: number; main: number } {
  const u = process.cpuUsage();
  let main = 0;
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    main = (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    // no /proc
  }
  return { all: (u.user + u.system) / 1e6, main };
}

/**
 * Bench core's way in: tagged-data payloads encoded before the clock starts, each framed around
 * the node's tips when submitted, 256 in flight, for `seconds`.
 */
async function coreLoad(
  node: LedgerNode,
  seconds: number,
  firstSeq: number,
): Promise<{ accepted: number; failed: number; seconds: number }> {
  const payloads = Array.from({ length: 150_000 }, (_, i) =>
    encodePayload({ type: 5, tag: new TextEncoder().encode(`bench-${firstSeq + i}`), data: new Uint8Array(0) }),
  );
  let next = 0;
  let accepted = 0;
  let failed = 0;
  const t0 = performance.now();
  const until = t0 + seconds * 1000;
  const client = async () => {
    while (performance.now() < until && next < payloads.length) {
      const payloadBytes = payloads[next++]!;
      const parents = node.tangle.selectParents();
      const bytes = frameBlock(parents, payloadBytes);
      try {
        await node.submitBlock(bytes);
        accepted++;
      } catch {
        failed++;
      }
    }
  };
  await Promise.all(Array.from({ length: 256 }, client));
  return { accepted, failed, seconds: (performance.now() - t0) / 1000 };
}

/** What CDP's `Profiler.stop` answers, as far as read here. */
interface Profile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

/** The page's main thread by function (self time), over every profile, per second of load. */
function printProfile(profiles: Profile[], loadSeconds: number): void {
  const self = new Map<string, number>();
  let total = 0;
  for (const p of profiles) {
    const names = new Map<number, string>();
    for (const n of p.nodes) {
      const file = n.callFrame.url.split("/").at(-1) ?? "";
      names.set(n.id, `${n.callFrame.functionName || "(anonymous)"} ${file}:${n.callFrame.lineNumber + 1}`);
    }
    p.samples.forEach((id, i) => {
      const ms = (p.timeDeltas[i] ?? 0) / 1000;
      const name = names.get(id)!;
      if (name.startsWith("(idle)")) return;
      total += ms;
      self.set(name, (self.get(name) ?? 0) + ms);
    });
  }
  console.log(`  main thread busy ${((total / 1000 / loadSeconds) * 100).toFixed(1)}% of a core; by self time:`);
  for (const [name, ms] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25))
    console.log(`  ${((ms / 1000 / loadSeconds) * 100).toFixed(2).padStart(6)}%  ${name}`);
}

/** A number from a `data-*` attribute of the tangle's figure. */
async function figure(page: Page, name: string): Promise<number> {
  return Number(await page.locator("figure[data-drawn]").getAttribute(`data-${name}`));
}

async function main(): Promise<void> {
  if (!existsSync(join(DEFAULT_DASHBOARD_DIR, "index.html"))) {
    throw new Error("the dashboard is not built: `npm run bench` builds it (`npm run build`)");
  }
  const dir = await mkdtemp(join(tmpdir(), "ledger-node-bench-dashboard-"));
  const node = await LedgerNode.open(benchNodeOptions(dir));
  const app = buildServer(node, "silent");
  await app.listen({ host: "127.0.0.1", port: 0 });
  const { port } = app.server.address() as { port: number };
  node.start();
  const browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: "light" });
  const rate = RATE > 0 ? RATE : Number.POSITIVE_INFINITY;
  const problems: string[] = [];
  const rates: Record<Phase, number[]> = { none: [], static: [], tangle: [] };
  /** Chromium's CPU seconds, and the seconds of load, in the phases with a page. */
  const cpu: Record<Phase, number> = { none: 0, static: 0, tangle: 0 };
  /** Chromium's CPU seconds in the Live tangle phases, by process type. */
  const tangleCpuByType = new Map<string, number>();
  /** The page's profiles (CDP `Profiler.Profile`), one per Live tangle phase. */
  const profiles: Profile[] = [];
  /** This process's profiles in the phases with a page. */
  const nodeProfiles: Record<Phase, Profile[]> = { none: [], static: [], tangle: [] };
  const nodeProfiler = new Session();
  if (PROFILE) {
    nodeProfiler.connect();
    await nodeProfiler.post("Profiler.enable");
  }
  const seconds: Record<Phase, number> = { none: 0, static: 0, tangle: 0 };
  const received: number[] = [];
  /** This process's CPU seconds in each phase, and the phase's seconds. */
  const own: Record<Phase, { all: number; main: number; seconds: number }> = {
    none: { all: 0, main: 0, seconds: 0 },
    static: { all: 0, main: 0, seconds: 0 },
    tangle: { all: 0, main: 0, seconds: 0 },
  };
  /** Each phase's rate in the order run. */
  const runOrder: string[] = [];
  let drawnMax = 0;
  /** The page's own measure of its last redraw (layout and drawing), ms. */
  const redrawCosts: number[] = [];
  try {
    // warm-up (WARM_UP_SECONDS)
    let seq = 0;
    const phaseLoad = (seconds: number, firstSeq: number) =>
      LOAD === "http" ? load({ port, rate, seconds, firstSeq, dataBytes: 0 }) : coreLoad(node, seconds, firstSeq);
    await phaseLoad(WARM_UP_SECONDS, seq);
    seq += 1_000_000;
    for (let round = 0; round < ROUNDS; round++) {
      // each round starts one phase later: the database grows all through the run, and a fixed
      // order would hand the same phase the smaller database every round
      const order = PHASES.map((_, i) => PHASES[(i + round) % PHASES.length]!);
      for (const phase of order) {
        let page: Page | undefined;
        const tangle = phase === "tangle";
        if (phase !== "none") {
          page = await context.newPage();
          // (the static page's browser asks for a favicon the API does not have: not the dashboard's)
          if (tangle) {
            page.on("console", (m) => {
              if (m.type() === "error") problems.push(`console error on the page: ${m.text()}`);
            });
            page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
          }
          const path = tangle ? "/dashboard/tangle" : "/api/core/v2/info";
          await page.goto(`http://127.0.0.1:${port}${path}`, { waitUntil: "load" });
          // subscribed: a milestone's block has reached the page
          if (tangle)
            await page.locator('figure[data-milestones]:not([data-milestones="0"])').waitFor({ timeout: 10_000 });
        }
        const seenBefore = tangle ? await figure(page!, "seen") : 0;
        const askedBefore = tangle ? await figure(page!, "asked-referenced") : 0;
        const cdp = tangle && PROFILE ? await context.newCDPSession(page!) : undefined;
        // the node's own thread, profiled the same way (this process: node and load together)
        if (PROFILE && phase !== "none") await nodeProfiler.post("Profiler.start");
        if (cdp) {
          await cdp.send("Profiler.enable");
          await cdp.send("Profiler.start");
        }
        const cpuBefore = descendantsCpu();
        const ownBefore = ownCpu();
        const r = await phaseLoad(SECONDS, seq);
        seq += 1_000_000;
        if (r.failed > 0) problems.push(`${r.failed} submissions failed`);
        rates[phase].push(r.accepted / r.seconds);
        const ownAfter = ownCpu();
        own[phase].all += ownAfter.all - ownBefore.all;
        own[phase].main += ownAfter.main - ownBefore.main;
        own[phase].seconds += r.seconds;
        runOrder.push(`${phase} ${Math.round(r.accepted / r.seconds)}`);
        if (page) {
          const used = cpuBetween(cpuBefore, descendantsCpu());
          cpu[phase] += totalOf(used);
          seconds[phase] += r.seconds;
          if (tangle) for (const [type, s] of used) tangleCpuByType.set(type, (tangleCpuByType.get(type) ?? 0) + s);
        }
        if (PROFILE && phase !== "none") {
          const { profile } = (await nodeProfiler.post("Profiler.stop")) as unknown as { profile: Profile };
          nodeProfiles[phase].push(profile);
        }
        if (cdp) {
          const { profile } = (await cdp.send("Profiler.stop")) as { profile: Profile };
          profiles.push(profile);
          await cdp.detach();
        }
        if (page && tangle) {
          // the last events of the phase, and the page's next rendering of its counts (every second)
          await new Promise((res) => setTimeout(res, 1500));
          redrawCosts.push(await figure(page, "redraw-cost"));
          // sampling, the page learns what is referenced from the blocks it asks about: some must be
          const sampling = (await page.locator("figure[data-drawn]").getAttribute("data-sampling")) === "true";
          const asked = (await figure(page, "asked-referenced")) - askedBefore;
          if (PROFILE) console.log(`round ${round}: sampling ${sampling}, asked blocks seen referenced: ${asked}`);
          if (sampling && asked === 0)
            problems.push("the page sampled, and none of the blocks it asked about was seen referenced");
          // the milestones of the phase reach the page too: the share is of the blocks submitted
          received.push(Math.min(1, ((await figure(page, "seen")) - seenBefore) / r.accepted));
          drawnMax = Math.max(drawnMax, await figure(page, "drawn"));
        }
        await page?.close();
      }
    }
  } finally {
    await browser.close();
    await app.close();
    await node.close();
    await closeMinerPool();
    await rm(dir, { recursive: true, force: true });
  }

  const without = median(rates.none);
  const withPage = median(rates.tangle);
  const withStatic = median(rates.static);
  const throughputRatio = withPage / without;
  const staticRatio = withStatic / without;
  const receivedShare = Math.min(...received);
  const cores = (phase: Phase) => (seconds[phase] > 0 ? cpu[phase] / seconds[phase] : 0);
  const perRound = (phase: Phase) => rates.none.map((w, i) => (rates[phase][i]! / w).toFixed(3)).join(", ");
  if (drawnMax > WINDOW) problems.push(`the page drew ${drawnMax} blocks, more than its window of ${WINDOW}`);
  printTable(
    `dashboard: Live tangle page open in headless Chromium while blocks are submitted ${
      Number.isFinite(rate) ? `at ${rate}/s` : "as fast as the node answers"
    }, ${ROUNDS} alternating rounds of ${SECONDS} s, ${availableParallelism()} cores`,
    [
      { name: "blocks accepted, no page", value: without, unit: "blocks/s", baseline: "same-run baseline" },
      {
        name: "blocks accepted, Live tangle open",
        value: withPage,
        unit: "blocks/s",
        target: ">= 0.9 of baseline",
        baseline: `ratio ${throughputRatio.toFixed(3)} (per round: ${perRound("tangle")})`,
      },
      {
        name: "blocks accepted, a static page open (reference)",
        value: withStatic,
        unit: "blocks/s",
        baseline: `ratio ${staticRatio.toFixed(3)} (per round: ${perRound("static")})`,
      },
      {
        name: "blocks received by the page, least of the rounds",
        value: receivedShare * 100,
        unit: "%",
        baseline: "of the blocks accepted",
      },
      { name: "blocks drawn at most", value: drawnMax, unit: "blocks", target: `<= ${WINDOW} (its window)` },
      {
        name: "this process's CPU, no page",
        value: (own.none.all / own.none.seconds) * 100,
        unit: "% of a core",
        baseline: `main thread ${((own.none.main / own.none.seconds) * 100).toFixed(0)}%`,
      },
      {
        name: "this process's CPU, Live tangle open",
        value: (own.tangle.all / own.tangle.seconds) * 100,
        unit: "% of a core",
        baseline: `main thread ${((own.tangle.main / own.tangle.seconds) * 100).toFixed(0)}%`,
      },
      { name: "Chromium's CPU, Live tangle open", value: cores("tangle") * 100, unit: "% of a core" },
      { name: "Chromium's CPU, a static page open", value: cores("static") * 100, unit: "% of a core" },
      {
        name: "the page's last redraw of a full window",
        value: Math.max(...redrawCosts),
        unit: "ms",
        baseline: "layout and drawing, as the page measures it",
      },
    ],
  );
  const byType = [...tangleCpuByType]
    .sort((a, b) => b[1] - a[1])
    .map(([type, s]) => `${type} ${((s / seconds.tangle) * 100).toFixed(1)}%`);
  console.log(`Chromium's CPU with the Live tangle open, by process: ${byType.join(", ")} of a core`);
  console.log(`blocks/s by phase, in the order run: ${runOrder.join(", ")}`);
  if (PROFILE && profiles.length > 0) {
    await writeFile(PROFILE, JSON.stringify(profiles.at(-1)));
    // this process's, beside it
    for (const phase of ["static", "tangle"] as const) {
      const last = nodeProfiles[phase].at(-1);
      if (last) await writeFile(PROFILE.replace(/(\.cpuprofile)?$/, `.node-${phase}.cpuprofile`), JSON.stringify(last));
    }
    console.log("the page:");
    printProfile(profiles, seconds.tangle);
    console.log("this process (node and load), a static page open:");
    printProfile(nodeProfiles.static, seconds.static);
    console.log("this process (node and load), the Live tangle open:");
    printProfile(nodeProfiles.tangle, seconds.tangle);
  }
  for (const p of problems) console.error(p);
  if (problems.length > 0) process.exitCode = 1;
  printFigures("dashboard", {
    blocksPerSecWithout: Math.round(without),
    blocksPerSecWith: Math.round(withPage),
    throughputRatio: Math.round(throughputRatio * 1000) / 1000,
    pageReceivedShare: Math.round(receivedShare * 1000) / 1000,
    drawnMax,
    throughputRatioStaticPage: Math.round(staticRatio * 1000) / 1000,
    chromiumCpuPercent: Math.round(cores("tangle") * 1000) / 10,
    chromiumCpuPercentStaticPage: Math.round(cores("static") * 1000) / 10,
    redrawCostMs: Math.max(...redrawCosts),
  });
}

await main();
