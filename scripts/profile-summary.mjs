#!/usr/bin/env node
// `node scripts/profile-summary.mjs FILE.cpuprofile [FILE.heapprofile]`: what a profile written by
// `bench core --profile DIR` says, as docs/performance.md reads it: the main thread's time by
// phase of a block's life (inclusive), the functions that take the most of it (self), and where
// the bytes the garbage collector reclaims are allocated.
import { readFileSync } from "node:fs";

/** The phases of docs/performance.md, by the function that runs each (inclusive time). */
const PHASES = [
  ["intake: decode, syntax, PoW, store, solidify (BlockIntake.submit)", "submit"],
  ["  of which taken in (BlockIntake.take)", "take"],
  ["white-flag and the ledger's writes planned (planConfirmation)", "planConfirmation"],
  ["  of which white-flag's semantic checks (whiteFlagMutations)", "whiteFlagMutations"],
  ["the milestone's batch filled (applyConfirmation)", "applyConfirmation"],
  ["the indexer's writes of a milestone (addIndexWrites)", "addIndexWrites"],
  ["the address ledger's writes of a milestone (addAddressLedgerWrites)", "addAddressLedgerWrites"],
  ["tip selection (TipPool.select)", "select"],
  ["LevelDB calls on this thread (classic-level: batch put/del, get, getMany)", "level"],
  ["garbage collection", "(garbage collector)"],
  ["idle (waiting for LevelDB, the verify thread, the clients)", "(idle)"],
];

const where = (cf) =>
  `${cf.functionName || "(anonymous)"} ${cf.url.split("/").slice(-2).join("/")}:${cf.lineNumber + 1}`;
const pct = (v, total) => `${((v / total) * 100).toFixed(1).padStart(5)} %`;

function cpu(file) {
  const p = JSON.parse(readFileSync(file, "utf8"));
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const timeOf = new Map();
  let total = 0;
  p.samples.forEach((id, i) => {
    const dt = p.timeDeltas[i] ?? 0;
    timeOf.set(id, (timeOf.get(id) ?? 0) + dt);
    total += dt;
  });
  const inclusive = new Map(PHASES.map(([, fn]) => [fn, 0]));
  const self = new Map();
  for (const [id, t] of timeOf) {
    const k = where(byId.get(id).callFrame);
    self.set(k, (self.get(k) ?? 0) + t);
    const counted = new Set();
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
      const cf = byId.get(cur).callFrame;
      // every call into LevelDB's binding counts as one phase, whichever layer made it
      const fn = /(classic|abstract)-level\//.test(cf.url) ? "level" : cf.functionName;
      if (inclusive.has(fn) && !counted.has(fn)) {
        inclusive.set(fn, inclusive.get(fn) + t);
        counted.add(fn);
      }
    }
  }
  console.log(`${file}: ${(total / 1000).toFixed(0)} ms of the main thread\n\nphase`);
  for (const [name, fn] of PHASES) console.log(`${pct(inclusive.get(fn), total)}  ${name}`);
  console.log("\nfunctions (self time)");
  for (const [k, t] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`${pct(t, total)}  ${k}`);
}

function allocations(file) {
  const p = JSON.parse(readFileSync(file, "utf8"));
  const self = new Map();
  let total = 0;
  const walk = (n) => {
    if (n.selfSize) {
      const k = where(n.callFrame);
      self.set(k, (self.get(k) ?? 0) + n.selfSize);
      total += n.selfSize;
    }
    for (const c of n.children) walk(c);
  };
  walk(p.head);
  console.log(`\n${file}: ${(total / 1e6).toFixed(0)} MB allocated (sampled)\n\nallocations (self)`);
  for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log(`${pct(v, total)}  ${k}`);
}

const [cpuFile, heapFile] = process.argv.slice(2);
if (!cpuFile) {
  console.error("usage: node scripts/profile-summary.mjs FILE.cpuprofile [FILE.heapprofile]");
  process.exit(2);
}
cpu(cpuFile);
if (heapFile) allocations(heapFile);
