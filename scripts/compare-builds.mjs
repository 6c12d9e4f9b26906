#!/usr/bin/env node
// `node scripts/compare-builds.mjs <commit> [--pairs N] [--this-bench] <bench> [bench args]`: a
// bench of this build against the same bench of <commit>, in N alternating pairs (default 2; the
// base first), then each figure of the JSON lines side by side with the ratio of their medians.
//
// The machines the benches run on are shared: a single run swings by 10 % and more, and a slow
// minute lands on whichever build runs in it. Alternating spreads the slow minutes over both
// (docs/performance.md, How to measure). The base is built once per commit in a directory of the
// OS's temp dir (its `git archive`, this checkout's node_modules, its own `npm run build` steps).
// Each build runs its own bench script; `--this-bench` runs this build's on both, so that both
// measure alike when the bench changed since (it must then only use what the base's code has).
// Build this checkout first (`npm run build`).
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { median } from "../dist/bench/_stats.js";

const args = process.argv.slice(2);
const pairsAt = args.indexOf("--pairs");
const pairs = pairsAt >= 0 ? Number(args.splice(pairsAt, 2)[1]) : 2;
const thisBenchAt = args.indexOf("--this-bench");
const thisBench = thisBenchAt >= 0 && args.splice(thisBenchAt, 1).length === 1;
const [commit, bench, ...benchArgs] = args;
if (!commit || !bench || !Number.isInteger(pairs) || pairs < 1) {
  console.error("usage: node scripts/compare-builds.mjs <commit> [--pairs N] [--this-bench] <bench> [bench args]");
  process.exit(2);
}
const here = resolve(".");
if (!existsSync(join(here, "dist/bench", `${bench}.js`))) {
  console.error(`no dist/bench/${bench}.js: run npm run build first`);
  process.exit(2);
}

const sha = execFileSync("git", ["rev-parse", "--verify", `${commit}^{commit}`], { encoding: "utf8" }).trim();
const base = join(tmpdir(), `ledger-node-base-${sha.slice(0, 12)}`);
if (!existsSync(join(base, ".built"))) {
  console.error(`building ${sha.slice(0, 12)} in ${base}`);
  rmSync(base, { recursive: true, force: true });
  mkdirSync(base, { recursive: true });
  execFileSync("sh", ["-c", `git archive ${sha} | tar -x -C "${base}"`], { stdio: "inherit" });
  symlinkSync(join(here, "node_modules"), join(base, "node_modules"));
  execFileSync(process.execPath, [join(here, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], {
    cwd: base,
    stdio: "inherit",
  });
  if (existsSync(join(base, "scripts/build-web.mjs"))) {
    execFileSync(process.execPath, ["scripts/build-web.mjs"], { cwd: base, stdio: "inherit" });
  }
  cpSync(join(base, "dist/bench"), join(base, "dist/bench.own"), { recursive: true });
  writeFileSync(join(base, ".built"), `${sha}\n`);
}
rmSync(join(base, "dist/bench"), { recursive: true, force: true });
cpSync(thisBench ? join(here, "dist/bench") : join(base, "dist/bench.own"), join(base, "dist/bench"), {
  recursive: true,
});

/** One run of the bench in `dir`; its last line, parsed. */
function run(dir, label) {
  console.error(`${new Date().toISOString().slice(11, 19)} ${bench} on ${label}`);
  const r = spawnSync(process.execPath, [join(here, "scripts/run-bench.mjs"), bench, ...benchArgs], {
    cwd: dir,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  const last = r.stdout.trim().split("\n").at(-1) ?? "";
  try {
    return JSON.parse(last);
  } catch {
    console.error(r.stdout.slice(-2000), r.stderr.slice(-2000));
    throw new Error(`${bench} on ${label} printed no JSON line (exit ${r.status})`);
  }
}

const runs = { base: [], this: [] };
for (let i = 0; i < pairs; i++) {
  runs.base.push(run(base, sha.slice(0, 12)));
  runs.this.push(run(here, "this build"));
}

const fields = Object.keys(runs.this[0]).filter((k) => runs.this.every((r) => typeof r[k] === "number"));
const rows = [["figure", "this build", sha.slice(0, 12), "ratio of medians"]];
for (const k of fields) {
  const mine = runs.this.map((r) => r[k]);
  const theirs = runs.base.map((r) => r[k]).filter((v) => typeof v === "number");
  const ratio = theirs.length && median(theirs) !== 0 ? (median(mine) / median(theirs)).toFixed(3) : "";
  rows.push([k, mine.join(" / "), theirs.length ? theirs.join(" / ") : "(not printed)", ratio]);
}
const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => String(r[c]).length)));
for (const r of rows) console.log(r.map((v, c) => String(v).padEnd(widths[c])).join(" | "));
console.log(JSON.stringify({ compare: bench, base: sha, pairs, this: runs.this, baseRuns: runs.base }));
