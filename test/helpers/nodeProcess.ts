import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { copyFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { withMallocEnv } from "../../src/cli/mallocEnv.js";
import { type CoreClient, iota, type Json } from "./iota.js";
import { removeDir, tempDir } from "./node.js";
import { freePort } from "./ports.js";
import { waitFor } from "./waitFor.js";

/**
 * The real node process (`dist/src/cli/main.js`, what `npm start` runs) on a temporary data
 * directory and free loopback ports, started, stopped, killed and restarted by the test, which
 * drives it over HTTP only.
 */

/** How a node process is created. */
export interface NodeProcessOptions {
  /**
   * The network tests' settings (the default): P2P on loopback on a free port of its own, a
   * milestone every 200 ms, warn logs, a minimum PoW score of 10 (from the environment). Without
   * them only the data directory and the API port are given, and the node's defaults hold.
   */
  networkDefaults?: boolean;
  /** Serve the event API over MQTT/TCP too (`--mqtt-port`), on a free port: `mqttPort`. */
  mqtt?: boolean;
}

/** How one run of the process is started beyond its flags. */
export interface StartOptions {
  /** Options of the Node.js process itself (a module to load first, say). */
  execArgv?: string[];
  /** Environment added to the test's own. */
  env?: Record<string, string>;
  /** Variables taken out of the environment (as a launcher other than `npm start` leaves them). */
  unsetEnv?: string[];
  /**
   * Soft and hard open-file limit of the process (`ulimit -n`). Both are set: node raises its
   * soft limit to the hard one at start. The shell sets it and execs node in its place, so the
   * process ID stays the node's.
   */
  openFileLimit?: number;
}

export class NodeProcess {
  child: ChildProcess | undefined;
  /** What the current run printed so far (stdout and stderr). */
  output = "";

  private constructor(
    readonly name: string,
    readonly dataDir: string,
    readonly apiPort: number,
    readonly p2pPort: number | undefined,
    readonly mqttPort: number | undefined,
    private readonly args: string[],
  ) {}

  /** A node on a fresh data dir and free ports; `args` are extra flags (network config, peers). */
  static async create(name: string, args: string[] = [], options: NodeProcessOptions = {}): Promise<NodeProcess> {
    const dir = await tempDir(`proc-${name}`);
    const p2pPort = options.networkDefaults === false ? undefined : await freePort();
    const mqttPort = options.mqtt ? await freePort() : undefined;
    return new NodeProcess(name, dir, await freePort(), p2pPort, mqttPort, args);
  }

  /** A node of `coordinator`'s network (its `network.json`) dialling `peers`, `args` added. */
  static follower(name: string, coordinator: NodeProcess, peers: string[], args: string[] = []): Promise<NodeProcess> {
    const config = join(coordinator.dataDir, "network.json");
    return NodeProcess.create(name, ["--network-config", config, ...peers.flatMap((p) => ["--peer", p]), ...args]);
  }

  /** `http://127.0.0.1:<API port>` */
  get url(): string {
    return `http://127.0.0.1:${this.apiPort}`;
  }

  /** The process ID of the current run (to read its memory from /proc). */
  get pid(): number {
    return this.child!.pid!;
  }

  /** Starts the process with `extra` flags after the node's own. */
  start(extra: string[] = [], runtime: StartOptions = {}): void {
    // a second process on the same data dir fails on LevelDB's lock, and the first one would be
    // left running, out of `dispose`'s reach, holding the test file open
    if (this.child && this.child.exitCode === null && this.child.signalCode === null) {
      throw new Error(`${this.name} is running already`);
    }
    this.output = "";
    const network =
      this.p2pPort === undefined
        ? []
        : [
            "--p2p-host",
            "127.0.0.1",
            "--p2p-port",
            String(this.p2pPort),
            "--milestone-interval",
            "200",
            "--log-level",
            "warn",
          ];
    const args = [
      ...(runtime.execArgv ?? []),
      "dist/src/cli/main.js",
      "--data-dir",
      this.dataDir,
      "--api-port",
      String(this.apiPort),
      ...network,
      ...(this.mqttPort === undefined ? [] : ["--mqtt-port", String(this.mqttPort)]),
      // the dev key holds the whole genesis, as the tests' ledgers assume, unless a test asks for accounts
      ...([...this.args, ...extra].includes("--dev-accounts") ? [] : ["--dev-accounts", "0"]),
      ...this.args,
      ...extra,
    ];
    // launched as `npm start` launches it (its malloc settings)
    const env: NodeJS.ProcessEnv = {
      ...withMallocEnv(process.env),
      ...(this.p2pPort === undefined ? {} : { LEDGER_NODE_MIN_POW_SCORE: "10" }),
      ...runtime.env,
    };
    for (const name of runtime.unsetEnv ?? []) delete env[name];
    const stdio: ["ignore", "pipe", "pipe"] = ["ignore", "pipe", "pipe"];
    this.child =
      runtime.openFileLimit === undefined
        ? spawn(process.execPath, args, { stdio, env })
        : spawn(
            "/bin/sh",
            ["-c", `ulimit -n ${Math.floor(runtime.openFileLimit)} && exec "$0" "$@"`, process.execPath, ...args],
            { stdio, env },
          );
    this.child.stdout!.on("data", (d) => (this.output += d));
    this.child.stderr!.on("data", (d) => (this.output += d));
  }

  /**
   * Waits until `/health` answers 200 (the node has confirmed a milestone); fails at once when
   * the process exits, and with what it printed.
   */
  async waitHealthy(ms = 20_000): Promise<void> {
    const child = this.child!;
    try {
      const r = await waitFor(
        async () => {
          if (child.exitCode !== null || child.signalCode !== null) return "exited";
          return (await fetch(`${this.url}/health`)).status === 200 ? "healthy" : undefined;
        },
        ms,
        `${this.name}'s first milestone (/health 200)`,
      );
      if (r === "exited") throw new Error(`the node exited with code ${child.exitCode}`);
    } catch (e) {
      throw this.explained(e);
    }
  }

  /**
   * `e` (a wait on this node that failed) with what the node's run tells of it: whether it is
   * still running, and the last of what it printed, so a node that hung or died under a loaded
   * machine names its own cause.
   */
  explained(e: unknown): Error {
    const c = this.child;
    const state = !c
      ? "never started"
      : c.exitCode !== null || c.signalCode !== null
        ? `exited (code ${c.exitCode}, signal ${c.signalCode})`
        : "still running";
    const tail = this.output.length > 8_000 ? `…${this.output.slice(-8_000)}` : this.output;
    return new Error(`${(e as Error).message}; ${this.name} ${state}, its output: ${tail || "(none)"}`);
  }

  /** `wait`, failing with `explained`'s account of this node. */
  async explain<T>(wait: Promise<T>): Promise<T> {
    try {
      return await wait;
    } catch (e) {
      throw this.explained(e);
    }
  }

  /** Stops the current run with `signal` and answers its exit code (the data dir stays). */
  async stop(signal: NodeJS.Signals = "SIGTERM"): Promise<number | null> {
    const c = this.child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return c?.exitCode ?? null;
    const exited = new Promise<number | null>((resolve) => c.once("exit", (code) => resolve(code)));
    c.kill(signal);
    return exited;
  }

  /** SIGTERM, wait for the exit, remove the data directory; answers the exit code. */
  async close(): Promise<number | null> {
    const code = await this.stop();
    await removeDir(this.dataDir);
    return code;
  }

  /** SIGKILL (when running) and remove the data directory. */
  async dispose(): Promise<void> {
    await this.stop("SIGKILL");
    await removeDir(this.dataDir);
  }

  async get(path: string, token?: string): Promise<{ status: number; body: Json }> {
    const res = await fetch(`${this.url}${path}`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Json) : {} };
  }

  async json(path: string): Promise<Json> {
    const { status, body } = await this.get(path);
    if (status !== 200) throw new Error(`${this.name} ${path}: ${status} ${JSON.stringify(body)}`);
    return body;
  }

  info(): Promise<Json> {
    return this.json("/api/core/v2/info");
  }

  /** The node's loopback multiaddr with its peer ID (from info). */
  async address(): Promise<string> {
    const info = await waitFor(
      async () => ((await this.info()).network ? this.info() : undefined),
      20_000,
      `${this.name}'s P2P address`,
    );
    return (info.network.multiAddresses as string[]).find((a) => a.startsWith("/ip4/127.0.0.1/"))!;
  }

  /**
   * Starts the node, waits until its P2P layer is up (its key files are written then), stops it
   * to take a JWT for the protected routes from them, and starts it again; answers the JWT.
   */
  async startWithToken(): Promise<string> {
    this.start();
    await this.address();
    await this.stop();
    const token = this.token();
    this.start();
    return token;
  }

  /** The node's entry for peer `id` in the protected peers route, if it lists one. */
  async peer(id: string, token: string): Promise<Json | undefined> {
    return ((await this.get("/api/core/v2/peers", token)).body as unknown as Json[]).find((p) => p.id === id);
  }

  /** Polls the peers route until the entry for peer `id` satisfies `ok`; answers the entry. */
  waitForPeer(id: string, token: string, ok: (peer: Json) => boolean, ms: number, what: string): Promise<Json> {
    return waitFor(
      async () => {
        const p = await this.peer(id, token);
        return p && ok(p) ? p : undefined;
      },
      ms,
      what,
    );
  }

  /**
   * Waits until the node has written snapshot `file` into its data dir (a file appears complete
   * only once renamed into place) and copies it, with its checksum when there is one, to `dir`;
   * answers the copy's path.
   */
  async copySnapshot(file: string, dir: string, ms: number): Promise<string> {
    const from = join(this.dataDir, "snapshots");
    await waitFor(
      async () => (await readdir(from).catch(() => [] as string[])).includes(file),
      ms,
      `${this.name}'s snapshot ${file}`,
    );
    const copy = join(dir, file);
    await copyFile(join(from, file), copy);
    await copyFile(join(from, `${file}.sha256`), `${copy}.sha256`).catch(() => {});
    return copy;
  }

  /** A JWT for the protected routes, from the `jwt` command (it reads the key file, the node may run). */
  token(): string {
    const r = spawnSync(process.execPath, ["dist/src/cli/main.js", "jwt", "--data-dir", this.dataDir], {
      encoding: "utf8",
    });
    if (r.status !== 0) throw new Error(`jwt: ${r.stderr}`);
    return r.stdout.trim().split("\n").pop()!;
  }
}

/**
 * Starts a coordinator `names[0]` and, one after the other, followers of its network (its
 * `network.json`): follower `i` dials the nodes `dials[i]` names by index among those started
 * before it (by default the one just before it). What was started is disposed if a step fails.
 */
export async function startNodes<const N extends readonly string[]>(
  names: N,
  dials: number[][] = [],
): Promise<{ [K in keyof N]: NodeProcess }> {
  const nodes: NodeProcess[] = [];
  try {
    for (const [i, name] of names.entries()) {
      const peers = await Promise.all((dials[i] ?? (i === 0 ? [] : [i - 1])).map((j) => nodes[j]!.address()));
      const node = i === 0 ? await NodeProcess.create(name) : await NodeProcess.follower(name, nodes[0]!, peers);
      nodes.push(node);
      node.start();
    }
  } catch (e) {
    for (const n of nodes) await n.dispose();
    throw e;
  }
  return nodes as { [K in keyof N]: NodeProcess };
}

/**
 * Starts a node with only `flags` added to its data dir and API port (the node's defaults
 * otherwise), and waits until `/health` answers 200. The free port is found before the node
 * starts, so another listener (the node's own P2P port 0 among them) may take it first: then
 * the node is started once more on another port. `close()` stops it and removes its data dir.
 */
export async function startNodeProcess(
  flags: string[],
  startupMs = 20_000,
  options: StartOptions & Pick<NodeProcessOptions, "mqtt"> = {},
): Promise<NodeProcess> {
  const once = async () => {
    const node = await NodeProcess.create("e2e", flags, { networkDefaults: false, mqtt: options.mqtt });
    node.start([], options);
    try {
      await node.waitHealthy(startupMs);
    } catch (e) {
      await node.dispose();
      throw e;
    }
    return node;
  };
  try {
    return await once();
  } catch (e) {
    if (!/EADDRINUSE/.test((e as Error).message)) throw e;
    return once();
  }
}

/** A client of a node's core API (`@iota/iota.js`'s `SingleNodeClient`). */
export function client(node: NodeProcess): CoreClient {
  return new iota.SingleNodeClient(node.url);
}

/** Every unspent basic output the node's indexer lists, with the ledger index of the listing. */
export async function unspentBasicOutputs(node: NodeProcess): Promise<{ ledgerIndex: number; ids: string[] }> {
  const ids: string[] = [];
  let cursor: string | undefined;
  let ledgerIndex = -1;
  do {
    const page = await node.json(`/api/indexer/v1/outputs/basic?pageSize=1000${cursor ? `&cursor=${cursor}` : ""}`);
    if (ledgerIndex >= 0 && page.ledgerIndex !== ledgerIndex) throw new Error("the ledger moved while paging");
    ledgerIndex = page.ledgerIndex;
    ids.push(...(page.items as string[]));
    cursor = page.cursor ?? undefined;
  } while (cursor);
  return { ledgerIndex, ids: ids.sort() };
}
