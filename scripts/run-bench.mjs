#!/usr/bin/env node
// `npm run bench -- <name> [args]` runs dist/bench/<name>.js with the remaining arguments.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { withMallocEnv } from "../dist/src/cli/mallocEnv.js";

const [name, ...rest] = process.argv.slice(2);
const available = readdirSync("dist/bench")
  .filter((f) => f.endsWith(".js") && !f.startsWith("_"))
  .map((f) => f.slice(0, -3));
if (!name || !existsSync(`dist/bench/${name}.js`)) {
  console.error(`usage: npm run bench -- <${available.join("|")}> [args]`);
  process.exit(2);
}
// with the malloc settings `npm start` launches the node with, so the benches measure it as run
const r = spawnSync(process.execPath, [`dist/bench/${name}.js`, ...rest], { stdio: "inherit", env: withMallocEnv() });
process.exit(r.status ?? 1);
