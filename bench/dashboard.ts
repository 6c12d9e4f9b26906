/**
 * `npm run bench -- dashboard [--seconds S] [--rounds K] [--rate R]`: what the dashboard's Live
 * tangle page, open in a browser, costs the node under load. A node opened in this process
 * (LevelDB on a temporary dir, no PoW minimum, milestones every second) serves HTTP, the event
 * API and the dashboard on loopback; the block load of `bench events` (bench/_blockLoad.ts:
 * tagged-data blocks as JSON from a worker thread, 32 requests in flight) runs for S seconds
 * per phase (default 8), as fast as the node answers (`--rate R` paces it at R blocks/s instead).
 *
 * Phases alternate K times (default 2): without the dashboard (the same-run baseline: Chromium
 * is running, with no page open) and with headless Chromium (Debian's, driven by
 * playwright-core) showing `/dashboard/tangle`, opened before the phase and closed after it.
 * Figures: blocks accepted per second in each phase and their ratio (target >= 0.9: the issue's
 * "does not cut the node's throughput by more than 10%"); the share of the accepted blocks the
 * page received and drew at most (its window's bound); Chromium's CPU time (every process under
 * this one) per second of the phases with the page. A console error on the page fails the run.
 *
 * The machine's cores are shared by the node, the load's worker and Chromium, so the page's
 * CPU shows in the node's figure as it would on an operator's machine running both.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { DEFAULT_DASHBOARD_DIR } from "../src/api/dashboard.js";
import { buildServer } from "../src/api/server.js";
import { LedgerNode } from "../src/node/node.js";
import { defaultNodeOptions } from "../src/node/options.js";
import { closeMinerPool } from "../src/pow/index.js";
import { launchChromium } from "../test/browser/helpers/browser.js";
import { load } from "./_blockLoad.js";
import { printFigures, printTable } from "./_table.js";

const args = process.argv.slice(2);
const argN = (name: string, def: number) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : def;
};
const SECONDS = argN("--seconds", 8);
const ROUNDS = argN("--rounds", 2);
const RATE = argN("--rate", 0);
/** The page's window (web/src/pages/Tangle.tsx): it never draws more. */
const WINDOW = 1000;

const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** Clock ticks of every process below this one (Chromium's), from /proc; 0 where there is none. */
function descendantsCpuSeconds(): number {
  if (!existsSync("/proc/self/stat")) return 0;
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
  let sum = 0;
  for (const [pid, t] of ticks) {
    for (let p = parents.get(pid); p !== undefined && p > 1; p = parents.get(p)) {
      if (p === process.pid) {
        sum += t;
        break;
      }
    }
  }
  // USER_HZ is 100 on Linux
  return sum / 100;
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
  const node = await LedgerNode.open({ ...defaultNodeOptions, dataDir: dir, logLevel: "silent", minPowScore: 0 });
  const app = buildServer(node, "silent");
  await app.listen({ host: "127.0.0.1", port: 0 });
  const { port } = app.server.address() as { port: number };
  node.start();
  const browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: "light" });
  const rate = RATE > 0 ? RATE : Number.POSITIVE_INFINITY;
  const problems: string[] = [];
  const rates = { without: [] as number[], with: [] as number[] };
  const received: number[] = [];
  let drawnMax = 0;
  /** The page's own measure of its last redraw (layout and drawing), ms. */
  const redrawCosts: number[] = [];
  let chromiumCpu = 0;
  let pageSeconds = 0;
  try {
    // warm-up: the JIT, LevelDB's first files, the first milestones
    let seq = 0;
    await load({ port, rate, seconds: 2, firstSeq: seq, dataBytes: 0 });
    seq += 1_000_000;
    for (let round = 0; round < ROUNDS; round++) {
      for (const withPage of [false, true]) {
        let page: Page | undefined;
        if (withPage) {
          page = await context.newPage();
          page.on("console", (m) => {
            if (m.type() === "error") problems.push(`console error on the page: ${m.text()}`);
          });
          page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
          await page.goto(`http://127.0.0.1:${port}/dashboard/tangle${process.env.TQ ?? ""}`, { waitUntil: "load" });
          // subscribed: a milestone's block has reached the page
          await page.locator('figure[data-milestones]:not([data-milestones="0"])').waitFor({ timeout: 10_000 });
        }
        const seenBefore = page ? await figure(page, "seen") : 0;
        const cpuBefore = descendantsCpuSeconds();
        const r = await load({ port, rate, seconds: SECONDS, firstSeq: seq, dataBytes: 0 });
        seq += 1_000_000;
        if (r.failed > 0) problems.push(`${r.failed} submissions failed`);
        (withPage ? rates.with : rates.without).push(r.accepted / r.seconds);
        if (page) {
          chromiumCpu += descendantsCpuSeconds() - cpuBefore;
          pageSeconds += r.seconds;
          // the last events of the phase, and the page's next rendering of its counts (every second)
          await new Promise((res) => setTimeout(res, 1500));
          redrawCosts.push(await figure(page, "redraw-cost"));
          // the milestones of the phase reach the page too: the share is of the blocks submitted
          received.push(Math.min(1, ((await figure(page, "seen")) - seenBefore) / r.accepted));
          drawnMax = Math.max(drawnMax, await figure(page, "drawn"));
          await page.close();
        }
      }
    }
  } finally {
    await browser.close();
    await app.close();
    await node.close();
    await closeMinerPool();
    await rm(dir, { recursive: true, force: true });
  }

  const without = median(rates.without);
  const withPage = median(rates.with);
  const throughputRatio = withPage / without;
  const receivedShare = Math.min(...received);
  const chromiumCores = pageSeconds > 0 ? chromiumCpu / pageSeconds : 0;
  if (drawnMax > WINDOW) problems.push(`the page drew ${drawnMax} blocks, more than its window of ${WINDOW}`);
  printTable(
    `dashboard: Live tangle page open in headless Chromium while blocks are submitted ${
      Number.isFinite(rate) ? `at ${rate}/s` : "as fast as the node answers"
    }, ${ROUNDS} alternating rounds of ${SECONDS} s, ${availableParallelism()} cores`,
    [
      { name: "blocks accepted, no dashboard", value: without, unit: "blocks/s", baseline: "same-run baseline" },
      {
        name: "blocks accepted, Live tangle open",
        value: withPage,
        unit: "blocks/s",
        target: ">= 0.9 of baseline",
        baseline: `ratio ${throughputRatio.toFixed(3)} (per round: ${rates.without
          .map((w, i) => (rates.with[i]! / w).toFixed(3))
          .join(", ")})`,
      },
      {
        name: "blocks received by the page, least of the rounds",
        value: receivedShare * 100,
        unit: "%",
        baseline: "of the blocks accepted",
      },
      { name: "blocks drawn at most", value: drawnMax, unit: "blocks", target: `<= ${WINDOW} (its window)` },
      { name: "Chromium's CPU while the page is open", value: chromiumCores * 100, unit: "% of a core" },
      {
        name: "the page's last redraw of a full window",
        value: Math.max(...redrawCosts),
        unit: "ms",
        baseline: "layout and drawing, as the page measures it",
      },
    ],
  );
  for (const p of problems) console.error(p);
  if (problems.length > 0) process.exitCode = 1;
  printFigures("dashboard", {
    blocksPerSecWithout: Math.round(without),
    blocksPerSecWith: Math.round(withPage),
    throughputRatio: Math.round(throughputRatio * 1000) / 1000,
    pageReceivedShare: Math.round(receivedShare * 1000) / 1000,
    drawnMax,
    chromiumCpuPercent: Math.round(chromiumCores * 1000) / 10,
    redrawCostMs: Math.max(...redrawCosts),
  });
}

await main();
