#!/usr/bin/env node
// Builds the dashboard (web/) into dist/web with Vite, but only when its inputs changed since
// the last build: `npm run build` runs before every test run and must not pay a Vite build each
// time. The inputs' fingerprint (path, size and mtime of every file under web/, of the parts of
// src/ the app bundles, plus package-lock.json) is kept in dist/web/.build-stamp. `--force`
// builds anyway.
//
// Several builds may start at once (tests run in parallel checkouts of one tree), so a build
// holds a lock directory, writes into a fresh folder, and swaps it in with renames: a node
// serving dist/web never sees a half-written bundle.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = join(root, "dist", "web");
const stampFile = join(out, ".build-stamp");
const lock = join(root, "dist", ".web-build.lock");
// the explorer bundles the codec and its hashing, bech32 and the conflict reason codes; every page
// the API's media type and event topic names (src/api/json); test/unit/architecture.test.ts
// checks that nothing else of src/ is bundled
const INPUTS = [
  "web",
  "src/codec",
  "src/crypto",
  "src/util",
  "src/ledger/conflictReason.ts",
  "src/api/json",
  "package-lock.json",
];
/** A lock older than this is taken to be left by a build that died. */
const STALE_LOCK_MS = 5 * 60_000;

function fingerprint() {
  const hash = createHash("sha256");
  const visit = (path) => {
    let st;
    try {
      st = statSync(path);
    } catch {
      return;
    }
    if (st.isDirectory()) {
      for (const name of readdirSync(path).sort()) {
        if (name === "node_modules" || name.startsWith(".")) continue;
        visit(join(path, name));
      }
    } else if (st.isFile()) {
      hash.update(`${relative(root, path)}\0${st.size}\0${st.mtimeMs}\n`);
    }
  };
  for (const input of INPUTS) visit(join(root, input));
  return hash.digest("hex");
}

function upToDate(print) {
  try {
    return existsSync(join(out, "index.html")) && readFileSync(stampFile, "utf8") === print;
  } catch {
    return false;
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function acquireLock() {
  mkdirSync(dirname(lock), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, "pid"), String(process.pid));
      return;
    } catch (e) {
      if (e.code !== "EEXIST") throw e;
    }
    let holderAlive = false;
    try {
      const age = Date.now() - statSync(lock).mtimeMs;
      const pid = Number(readFileSync(join(lock, "pid"), "utf8"));
      holderAlive = age < STALE_LOCK_MS && pid > 0 && isAlive(pid);
    } catch {
      // the pid file is not written yet: the holder has just taken it
      holderAlive = true;
    }
    if (!holderAlive) rmSync(lock, { recursive: true, force: true });
    else await sleep(200);
  }
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === "EPERM";
  }
}

const force = process.argv.includes("--force");
if (!force && upToDate(fingerprint())) process.exit(0);

await acquireLock();
try {
  // another build may have finished while this one waited for the lock
  const print = fingerprint();
  if (force || !upToDate(print)) {
    const staging = join(root, "dist", `web.building-${process.pid}`);
    rmSync(staging, { recursive: true, force: true });
    const { build } = await import("vite");
    await build({
      configFile: join(root, "web", "vite.config.ts"),
      build: { outDir: staging, emptyOutDir: true },
    });
    writeFileSync(join(staging, ".build-stamp"), print);
    const old = join(root, "dist", `web.old-${process.pid}`);
    if (existsSync(out)) renameSync(out, old);
    renameSync(staging, out);
    rmSync(old, { recursive: true, force: true });
    console.log(`dashboard built into ${relative(root, out)}`);
  }
} finally {
  rmSync(lock, { recursive: true, force: true });
}
