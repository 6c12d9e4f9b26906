#!/usr/bin/env node
// Runs node's built-in test runner over the compiled tests (dist/test/{unit,spec,e2e,adversarial,browser}).
// Node 20's --test takes no globs, so the files are listed here. Optional arguments narrow
// the run to files whose path contains one of them: `npm test -- codec pow`.
import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
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
const r = spawnSync(process.execPath, ["--test", "--test-reporter=spec", ...selected], { stdio: "inherit" });
process.exit(r.status ?? 1);
