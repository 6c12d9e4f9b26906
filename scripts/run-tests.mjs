#!/usr/bin/env node
// Runs node's built-in test runner over the compiled tests (dist/test/{unit,spec,e2e,adversarial,browser}).
// Node 20's --test takes no globs, so the files are listed here. Optional arguments narrow
// the run to files whose path contains one of them: `npm test -- codec pow`.
//
// Two passes. The files that time themselves against the clock run first, one at a time (ALONE):
// they were written to have the machine to themselves. The rest then share it, as many files at
// once as it has cores (at least two): most of their time is spent waiting on node processes,
// browsers and clocks.
import { spawn } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { ensureChromium } from "./ensure-chromium.mjs";

const root = "dist/test";
const filters = process.argv.slice(2);
const files = [];
const walk = (dir) => {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (name.endsWith(".test.js")) files.push(path);
  }
};
for (const group of ["unit", "spec", "e2e", "adversarial", "browser"]) {
  try {
    walk(join(root, group));
  } catch {
    // a group with no tests yet has no folder
  }
}
const selected = filters.length ? files.filter((f) => filters.some((x) => f.includes(x))) : files;
if (selected.length === 0) {
  console.error("no test files matched");
  process.exit(1);
}
// the browser tests need Chromium: found, or installed when this machine lets us
if (selected.some((f) => f.includes(join(root, "browser")))) ensureChromium();

const ALONE = [
  join(root, "adversarial"), // HTTP and event API slots, a mining flood's cadence, kills aimed after milestones
  join(root, "browser", "tangle.test.js"), // 1,000 blocks in 4 s to make the Live tangle page sample
];
const alone = selected.filter((f) => ALONE.some((a) => f.startsWith(a)));
const shared = selected.filter((f) => !alone.includes(f));
const passes = [
  { name: "alone", files: alone, concurrency: 1 },
  { name: "shared", files: shared, concurrency: Math.max(2, availableParallelism()) },
].filter((p) => p.files.length > 0);

// Runs one pass, its output passed through; resolves to its exit code and its summary's counts
// (the reporter's closing "ℹ tests N", "ℹ pass N" lines).
const run = (pass) =>
  new Promise((resolve) => {
    const args = ["--test", "--test-reporter=spec", `--test-concurrency=${pass.concurrency}`, ...pass.files];
    const env = process.stdout.isTTY ? { ...process.env, FORCE_COLOR: "1" } : process.env;
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"], env });
    const counts = { tests: 0, pass: 0 };
    let line = "";
    child.stdout.on("data", (d) => {
      process.stdout.write(d);
      const lines = (line + d).split("\n");
      line = lines.pop();
      for (const l of lines) {
        const m = /^ℹ (tests|pass) (\d+)$/.exec(l.trim());
        if (m) counts[m[1]] = Number(m[2]);
      }
    });
    child.on("close", (code) => resolve({ code, ...counts }));
  });

const results = [];
for (const pass of passes) {
  if (passes.length > 1)
    console.log(`\n# ${pass.files.length} test files, ${pass.concurrency} at a time (${pass.name})\n`);
  const started = Date.now();
  const result = await run(pass);
  results.push({ name: pass.name, seconds: Math.round((Date.now() - started) / 1000), ...result });
}
if (passes.length > 1) {
  const sum = (k) => results.reduce((n, r) => n + r[k], 0);
  const each = results.map((r) => `${r.name}: ${r.pass} of ${r.tests} in ${r.seconds} s${r.code ? ", FAILED" : ""}`);
  console.log(`\n# ${sum("pass")} of ${sum("tests")} tests passed (${each.join("; ")})`);
}
process.exit(results.some((r) => r.code !== 0) ? 1 : 0);
