/**
 * The large-ledger part of `bench scale`: a full TIP-35 snapshot of N unspent basic outputs is
 * generated, then a node starts from it in a child process of its own (`--snapshot`, as an
 * operator starts one), so the load's peak RSS is its own (VmHWM, and RSS sampled every 100 ms)
 * and the node keeps serving HTTP while its query rate is measured.
 *
 * The snapshot is written by the node's own writer from a real ledger: a dev node (no funded
 * accounts) confirms milestone 1, signed by its coordinator key; the genesis output is then
 * replaced in its LevelDB by N outputs that share the token supply, booked at milestone 1
 * (written directly in batches, not through white-flag), and `writeFullSnapshot` streams them
 * into the file. One target address owns 100 of the outputs, spread over the ledger; the others
 * belong to N/10 addresses, ten outputs each.
 */
import { type ChildProcess, fork } from "node:child_process";
import { createHash } from "node:crypto";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildServer } from "../src/api/server.js";
import { addressToBech32 } from "../src/codec/address.js";
import { encodeOutput } from "../src/codec/outputs/output.js";
import type { BasicOutput } from "../src/codec/types.js";
import { devProtocolParameters, GENESIS_OUTPUT_ID } from "../src/node/devNetwork.js";
import { LedgerNode } from "../src/node/node.js";
import { defaultNodeOptions, type NodeOptions } from "../src/node/options.js";
import { writeFullSnapshot } from "../src/snapshot/index.js";
import {
  Bucket,
  defaultKvStoreOptions,
  EMPTY_VALUE,
  encodeOutputRecord,
  idKey,
  KvStore,
  Repositories,
} from "../src/storage/index.js";

const params = devProtocolParameters(0);
const BATCH = 10_000;
/** Outputs the target address of the indexer query owns. */
export const TARGET_OUTPUTS = 100;
const sha256 = (s: string) => new Uint8Array(createHash("sha256").update(s).digest());
export const TARGET_HASH = sha256("scale target owner");

const bench = (dataDir: string): NodeOptions => ({
  ...defaultNodeOptions,
  devAccounts: 0,
  minPowScore: 0,
  faucet: false,
  p2pPort: 0,
  dataDir,
  logLevel: "silent",
});

/** The owner of output `i` of `n`: the target for 100 of them, spread evenly, else one of n/10 addresses. */
function ownerOf(i: number, n: number): Uint8Array {
  const every = Math.max(1, Math.floor(n / TARGET_OUTPUTS));
  if (i % every === 0 && i / every < TARGET_OUTPUTS) return TARGET_HASH;
  return sha256(`scale owner ${i % Math.max(1, Math.floor(n / 10))}`);
}

/** Writes a full snapshot of `n` unspent outputs to `filePath` (a source database under `workDir`, removed after). */
export async function generateSnapshot(workDir: string, n: number, filePath: string): Promise<void> {
  const dir = join(workDir, `source-${n}`);
  const source = await LedgerNode.open(bench(dir));
  await source.coordinator.issueMilestone();
  const booked = source.tangle.latestMilestone;
  await source.close();
  const store = await KvStore.open({ ...defaultKvStoreOptions, path: join(dir, "db") });
  try {
    const db = Repositories.of(store);
    const blockId = (await db.milestones.get(booked.index))!.blockId;
    const share = params.tokenSupply / BigInt(n);
    let batch = store
      .batch()
      .del(idKey(Bucket.Output, GENESIS_OUTPUT_ID))
      .del(idKey(Bucket.Unspent, GENESIS_OUTPUT_ID));
    for (let i = 0; i < n; i++) {
      const id = new Uint8Array(34);
      id.set(sha256(`scale tx ${Math.floor(i / 100)}`));
      id[32] = i % 100;
      const output: BasicOutput = {
        type: 3,
        amount: i === 0 ? params.tokenSupply - share * BigInt(n - 1) : share,
        nativeTokens: [],
        unlockConditions: [{ type: 0, address: { type: 0, pubKeyHash: ownerOf(i, n) } }],
        features: [],
      };
      const record = {
        blockId,
        bookedIndex: booked.index,
        bookedTimestamp: booked.timestamp,
        proof: EMPTY_VALUE,
        outputBytes: encodeOutput(output),
      };
      batch.put(idKey(Bucket.Output, id), encodeOutputRecord(record)).put(idKey(Bucket.Unspent, id), EMPTY_VALUE);
      if ((i + 1) % BATCH === 0 || i === n - 1) {
        await batch.write({ sync: false });
        batch = store.batch();
      }
    }
    await writeFullSnapshot(store, booked.index, filePath);
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** What a loading child reports once its node is ready and listening. */
export interface LoadedNode {
  loadMs: number;
  /** Largest RSS sampled every 100 ms during the load, MB. */
  sampledPeakRssMB: number;
  port: number;
  /** The target address in bech32. */
  target: string;
}

/** A load that did not finish: the child died, or was killed for its RSS. */
export class LoadFailed extends Error {
  constructor(
    message: string,
    readonly elapsedMs: number,
    readonly peakMB: number,
    readonly killed: boolean,
  ) {
    super(message);
  }
}

/** A node started from a snapshot in a child process; `close` ends it. */
export class LoadingChild {
  /** Largest VmRSS the parent read from /proc every 100 ms, MB (a cross-check of VmHWM). */
  watchedPeakMB = 0;
  private readonly watch: NodeJS.Timeout;

  private constructor(
    private readonly child: ChildProcess,
    killAboveMB: number,
  ) {
    this.watch = setInterval(() => {
      void procStatusMB(child.pid!, "VmRSS").then((mb) => {
        this.watchedPeakMB = Math.max(this.watchedPeakMB, mb);
        // keep a runaway load from taking the machine down: report it instead
        if (mb > killAboveMB) child.kill("SIGKILL");
      });
    }, 100);
  }

  /** Forks the child, which opens a node on `dataDir` from `snapshot`; resolves once it serves. */
  static async start(
    dataDir: string,
    snapshot: string,
    killAboveMB: number,
  ): Promise<{ child: LoadingChild; loaded: LoadedNode }> {
    const proc = fork(fileURLToPath(import.meta.url), ["--scale-load-child", dataDir, snapshot], {
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    const child = new LoadingChild(proc, killAboveMB);
    const t0 = performance.now();
    try {
      const loaded = await new Promise<LoadedNode>((resolve, reject) => {
        proc.once("message", (m: LoadedNode) => resolve(m));
        proc.once("exit", (code, signal) => {
          const killed = signal === "SIGKILL";
          reject(
            new LoadFailed(
              `the node loading ${snapshot} exited (${code ?? signal}) at ${Math.round(child.watchedPeakMB)} MB RSS` +
                (killed ? `, killed above ${killAboveMB} MB` : ""),
              performance.now() - t0,
              child.watchedPeakMB,
              killed,
            ),
          );
        });
      });
      return { child, loaded };
    } finally {
      if (proc.exitCode !== null || proc.signalCode !== null) clearInterval(child.watch);
    }
  }

  /** The child's peak RSS (VmHWM), MB. */
  peakRssMB(): Promise<number> {
    return procStatusMB(this.child.pid!, "VmHWM");
  }

  async close(): Promise<void> {
    clearInterval(this.watch);
    const exited = new Promise((resolve) => this.child.once("exit", resolve));
    this.child.send("close");
    await exited;
  }
}

/** A `kB` line of /proc/<pid>/status, in MB (0 once the process is gone). */
async function procStatusMB(pid: number, field: "VmRSS" | "VmHWM"): Promise<number> {
  try {
    const status = await readFile(`/proc/${pid}/status`, "utf8");
    const kb = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status);
    return kb ? Number(kb[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** The child: the node opened from the snapshot (verify, import, indexes caught up), then its API. */
async function loadChild(dataDir: string, snapshot: string): Promise<void> {
  let peak = 0;
  const sample = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 100);
  const t0 = performance.now();
  const node = await LedgerNode.open({ ...bench(dataDir), snapshot });
  const loadMs = performance.now() - t0;
  clearInterval(sample);
  peak = Math.max(peak, process.memoryUsage().rss);
  const app = buildServer(node, "silent");
  await app.listen({ host: "127.0.0.1", port: 0 });
  const { port } = app.server.address() as { port: number };
  const target = addressToBech32({ type: 0, pubKeyHash: TARGET_HASH }, node.tangle.protocolParameters.bech32Hrp);
  const loaded: LoadedNode = { loadMs, sampledPeakRssMB: peak / (1024 * 1024), port, target };
  process.send!(loaded);
  process.once("message", async () => {
    await app.close();
    await node.close();
    process.exit(0);
  });
}

if (process.argv[2] === "--scale-load-child") await loadChild(process.argv[3]!, process.argv[4]!);
