/**
 * `npm run bench -- snapshot [--outputs N]`: writing and loading a full TIP-35 snapshot of a
 * ledger of N unspent outputs (default 1,000,000). The writer streams the ledger from LevelDB to
 * the file (temporary name, fsync, rename, checksum); the loader checks the whole file, then
 * fills an empty database in bounded batches. Each of the two runs in its own process, so its
 * peak RSS is its own, not the setup's. Baseline in the same run: raw LevelDB batch writes and
 * a scan of the same number of records of the same size.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ClassicLevel } from "classic-level";
import { encodeOutput } from "../src/codec/outputs/output.js";
import { encodeProtocolParameters } from "../src/codec/protocolParameters.js";
import type { BasicOutput } from "../src/codec/types.js";
import { devProtocolParameters } from "../src/node/devNetwork.js";
import { importSnapshot, writeFullSnapshot } from "../src/snapshot/index.js";
import {
  Bucket,
  defaultKvStoreOptions,
  EMPTY_VALUE,
  encodeMilestoneRecord,
  encodeOutputRecord,
  encodeU32,
  idKey,
  indexKey,
  KvStore,
  NodeStateKey,
  nodeStateKey,
  SCHEMA_VERSION,
} from "../src/storage/index.js";
import { argS } from "./_args.js";
import { printFigures, printTable } from "./_table.js";

const OUTPUTS = Number(argS("--outputs") ?? 1_000_000);
const params = devProtocolParameters(0);
const BATCH = 10_000;
const TIMESTAMP = 1_700_000_000;

/** Output `i` of the synthetic ledger: a basic output to an address of its own; amounts sum to the supply. */
function outputAt(i: number): { id: Uint8Array; bytes: Uint8Array } {
  const tx = createHash("sha256")
    .update(`tx ${Math.floor(i / 100)}`)
    .digest();
  const id = new Uint8Array(34);
  id.set(tx);
  id[32] = i % 100;
  const share = params.tokenSupply / BigInt(OUTPUTS);
  const amount = i === 0 ? params.tokenSupply - share * BigInt(OUTPUTS - 1) : share;
  const pubKeyHash = createHash("sha256").update(`owner ${i}`).digest();
  const output: BasicOutput = {
    type: 3,
    amount,
    nativeTokens: [],
    unlockConditions: [{ type: 0, address: { type: 0, pubKeyHash: new Uint8Array(pubKeyHash) } }],
    features: [],
  };
  return { id, bytes: encodeOutput(output) };
}

/** The ledger a confirmed milestone 1 left: N unspent outputs and the node state around them. */
async function fillLedger(path: string): Promise<void> {
  const store = await KvStore.open({ ...defaultKvStoreOptions, path });
  const blockId = new Uint8Array(createHash("sha256").update("block").digest());
  await store
    .batch()
    .put(nodeStateKey(NodeStateKey.SchemaVersion), encodeU32(SCHEMA_VERSION))
    .put(nodeStateKey(NodeStateKey.NetworkName), new TextEncoder().encode(params.networkName))
    .put(nodeStateKey(NodeStateKey.LedgerIndex), encodeU32(1))
    .put(indexKey(Bucket.ProtocolParameters, 0), encodeProtocolParameters(params))
    .put(
      indexKey(Bucket.MilestoneByIndex, 1),
      encodeMilestoneRecord({
        milestoneId: new Uint8Array(createHash("sha256").update("milestone").digest()),
        blockId,
        timestamp: TIMESTAMP,
      }),
    )
    .write();
  for (let start = 0; start < OUTPUTS; start += BATCH) {
    const batch = store.batch();
    for (let i = start; i < Math.min(OUTPUTS, start + BATCH); i++) {
      const o = outputAt(i);
      batch.put(
        idKey(Bucket.Output, o.id),
        encodeOutputRecord({
          blockId,
          bookedIndex: 1,
          bookedTimestamp: TIMESTAMP,
          proof: EMPTY_VALUE,
          outputBytes: o.bytes,
        }),
      );
      batch.put(idKey(Bucket.Unspent, o.id), new Uint8Array());
    }
    await batch.write({ sync: false });
  }
  await store.close();
  // a node's database is compacted in steady state; a freshly filled one still has its level-0
  // files overlapping, which would slow every read of the first minutes down
  const db = new ClassicLevel<Uint8Array, Uint8Array>(path, { keyEncoding: "view", valueEncoding: "view" });
  await db.open();
  await db.compactRange(Uint8Array.of(0), Uint8Array.of(0xff));
  await db.close();
}

/** Baseline: N records of the Output record's size written in batches, then scanned, on raw LevelDB. */
async function rawLevelDb(path: string): Promise<{ writeMs: number; scanMs: number }> {
  const store = await KvStore.open({ ...defaultKvStoreOptions, path });
  const records = Array.from({ length: Math.min(OUTPUTS, BATCH) }, (_, i) => outputAt(i));
  const value = encodeOutputRecord({
    blockId: new Uint8Array(32),
    bookedIndex: 1,
    bookedTimestamp: 1,
    proof: EMPTY_VALUE,
    outputBytes: records[0]!.bytes,
  });
  const t0 = performance.now();
  for (let start = 0; start < OUTPUTS; start += BATCH) {
    const batch = store.batch();
    for (let i = start; i < Math.min(OUTPUTS, start + BATCH); i++) {
      const key = idKey(Bucket.Output, records[i % records.length]!.id);
      key[33] = i & 0xff;
      key[34] = (i >> 8) & 0xff;
      key[1] = (i >> 16) & 0xff;
      batch.put(key, value);
    }
    await batch.write({ sync: false });
  }
  const writeMs = performance.now() - t0;
  const t1 = performance.now();
  let n = 0;
  for await (const _entry of store.scan({ prefix: Uint8Array.of(Bucket.Output) })) n++;
  const scanMs = performance.now() - t1;
  if (n !== OUTPUTS) throw new Error(`baseline scan found ${n} records, wrote ${OUTPUTS}`);
  await store.close();
  return { writeMs, scanMs };
}

/** One timed phase in this process; prints its figures as JSON. */
async function phase(which: "write" | "load", dir: string): Promise<void> {
  const t0 = performance.now();
  if (which === "write") {
    const store = await KvStore.open({ ...defaultKvStoreOptions, path: join(dir, "source") });
    await writeFullSnapshot(store, 1, join(dir, "full_snapshot_1.bin"));
    await store.close();
  } else {
    const store = await KvStore.open({ ...defaultKvStoreOptions, path: join(dir, "loaded") });
    const r = await importSnapshot(store, { fullPath: join(dir, "full_snapshot_1.bin"), expectedNetworkName: "dev" });
    if (r.outputCount !== OUTPUTS) throw new Error(`loaded ${r.outputCount} outputs, expected ${OUTPUTS}`);
    await store.close();
  }
  const ms = performance.now() - t0;
  console.log(JSON.stringify({ ms, maxRssMB: process.resourceUsage().maxRSS / 1024 }));
}

/** Runs a phase in a child process and returns its figures. */
function child(which: "write" | "load", dir: string): { ms: number; maxRssMB: number } {
  const self = fileURLToPath(import.meta.url);
  const r = spawnSync(process.execPath, [self, "--phase", which, "--dir", dir, "--outputs", String(OUTPUTS)], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  if (r.status !== 0) throw new Error(`the ${which} phase failed (exit ${r.status})`);
  return JSON.parse(r.stdout.trim().split("\n").pop()!);
}

const which = argS("--phase");
if (which === "write" || which === "load") {
  await phase(which, argS("--dir")!);
} else {
  const dir = await mkdtemp(join(tmpdir(), "ledger-node-bench-snapshot-"));
  try {
    console.log(`snapshot bench: ${OUTPUTS.toLocaleString("en-US")} unspent outputs in ${dir}`);
    const baseline = await rawLevelDb(join(dir, "raw"));
    const tSetup = performance.now();
    await fillLedger(join(dir, "source"));
    const setupMs = performance.now() - tSetup;
    const write = child("write", dir);
    const load = child("load", dir);
    const fileMB = (await stat(join(dir, "full_snapshot_1.bin"))).size / (1024 * 1024);
    const perSec = (ms: number) => Math.round((OUTPUTS * 1000) / ms).toLocaleString("en-US");
    printTable(
      `snapshot: full snapshot of ${OUTPUTS.toLocaleString("en-US")} unspent outputs (${fileMB.toFixed(1)} MiB)`,
      [
        {
          name: "write full snapshot (stream, fsync, rename)",
          value: write.ms,
          unit: "ms",
          target: "< 10,000 ms",
          baseline: `raw LevelDB batch write ${Math.round(baseline.writeMs).toLocaleString("en-US")} ms`,
        },
        { name: "  outputs written per second", value: (OUTPUTS * 1000) / write.ms, unit: "/s" },
        {
          name: "load full snapshot (check, then import)",
          value: load.ms,
          unit: "ms",
          target: "< 20,000 ms",
          baseline: `raw LevelDB scan ${Math.round(baseline.scanMs).toLocaleString("en-US")} ms`,
        },
        { name: "  outputs loaded per second", value: (OUTPUTS * 1000) / load.ms, unit: "/s" },
        { name: "peak RSS while writing", value: write.maxRssMB, unit: "MB", target: "< 500 MB" },
        { name: "peak RSS while loading", value: load.maxRssMB, unit: "MB", target: "< 500 MB" },
        {
          name: "raw LevelDB write (baseline)",
          value: baseline.writeMs,
          unit: "ms",
          baseline: `${perSec(baseline.writeMs)}/s`,
        },
        {
          name: "raw LevelDB scan (baseline)",
          value: baseline.scanMs,
          unit: "ms",
          baseline: `${perSec(baseline.scanMs)}/s`,
        },
        { name: "ledger setup and compaction (not timed above)", value: setupMs, unit: "ms" },
      ],
    );
    printFigures("snapshot", {
      outputs: OUTPUTS,
      writeMs: Math.round(write.ms),
      loadMs: Math.round(load.ms),
      peakRssMB: Math.round(Math.max(write.maxRssMB, load.maxRssMB)),
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
