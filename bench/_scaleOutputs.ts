/**
 * The large-ledger part of `bench scale`: a full TIP-35 snapshot of N unspent basic outputs is
 * generated, then a node starts from it in a child process of its own (`--snapshot`, as an
 * operator starts one), so the load's peak RSS is its own (VmHWM, and RSS sampled every 100 ms)
 * and the node keeps serving HTTP while its query rate is measured.
 * The snapshot is generated as test/helpers/generatedSnapshot.ts describes.
 */
import { type ChildProcess, fork } from "node:child_process";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { buildServer } from "../src/api/server.js";
import { addressToBech32 } from "../src/codec/address.js";
import { LedgerNode } from "../src/node/node.js";
import { defaultNodeOptions, type NodeOptions } from "../src/node/options.js";
import { TARGET_HASH } from "../test/helpers/generatedSnapshot.js";

const bench = (dataDir: string): NodeOptions => ({
  ...defaultNodeOptions,
  devAccounts: 0,
  minPowScore: 0,
  faucet: false,
  p2pPort: 0,
  dataDir,
  logLevel: "silent",
});

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
