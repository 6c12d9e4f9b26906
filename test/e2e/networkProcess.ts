import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEV_KEY, DEV_TOKEN_SUPPLY } from "../../src/node/devNetwork.js";
import { freePort, waitFor as until } from "../helpers/nodeProcess.js";

/**
 * Real node processes (`dist/src/cli/main.js`) for the network e2e tests: each on its own data
 * dir, API port and P2P port on loopback, started, killed and restarted by the test. Plus the
 * dev wallet's chain of payments built and signed by `@iota/iota.js@2.0.0-rc.4` (no local PoW:
 * the node mines).
 */

// biome-ignore lint/suspicious/noExplicitAny: node answers are JSON, asserted field by field
export type Json = Record<string, any>;

export class NodeProcess {
  child: ChildProcess | undefined;
  output = "";

  private constructor(
    readonly name: string,
    readonly dataDir: string,
    readonly apiPort: number,
    readonly p2pPort: number,
    private readonly args: string[],
  ) {}

  /** A node on a fresh data dir and free ports; `args` are extra flags (network config, peers). */
  static async create(name: string, args: string[] = []): Promise<NodeProcess> {
    const dir = await mkdtemp(join(tmpdir(), `ledger-node-net-e2e-${name}-`));
    return new NodeProcess(name, dir, await freePort(), await freePort(), args);
  }

  get url(): string {
    return `http://127.0.0.1:${this.apiPort}`;
  }

  /** `runtime`: options of the Node.js process itself (a module to load first) and environment to add. */
  start(extra: string[] = [], runtime: { execArgv?: string[]; env?: Record<string, string> } = {}): void {
    this.output = "";
    this.child = spawn(
      process.execPath,
      [
        ...(runtime.execArgv ?? []),
        "dist/src/cli/main.js",
        "--data-dir",
        this.dataDir,
        "--api-port",
        String(this.apiPort),
        "--p2p-host",
        "127.0.0.1",
        "--p2p-port",
        String(this.p2pPort),
        "--milestone-interval",
        "200",
        "--log-level",
        "warn",
        ...this.args,
        ...extra,
      ],
      { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, LEDGER_NODE_MIN_POW_SCORE: "10", ...runtime.env } },
    );
    this.child.stdout!.on("data", (d) => (this.output += d));
    this.child.stderr!.on("data", (d) => (this.output += d));
  }

  async stop(signal: NodeJS.Signals = "SIGTERM"): Promise<number | null> {
    const c = this.child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return c?.exitCode ?? null;
    const exited = new Promise<number | null>((resolve) => c.once("exit", (code) => resolve(code)));
    c.kill(signal);
    return exited;
  }

  async dispose(): Promise<void> {
    await this.stop("SIGKILL");
    await rm(this.dataDir, { recursive: true, force: true });
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
    const info = await until(
      async () => ((await this.info()).network ? this.info() : undefined),
      20_000,
      `${this.name}'s P2P address`,
    );
    return (info.network.multiAddresses as string[]).find((a) => a.startsWith("/ip4/127.0.0.1/"))!;
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

// ---- the dev wallet's payments, built and signed by iota.js ----

interface Client {
  blockMetadata(id: string): Promise<Json>;
  output(id: string): Promise<Json>;
}
interface Iota {
  SingleNodeClient: new (endpoint: string) => Client;
  Ed25519Seed: new (bytes: Uint8Array) => { keyPair(): { publicKey: Uint8Array; privateKey: Uint8Array } };
  TransactionHelper: {
    transactionIdFromTransactionPayload(payload: Json): string;
    outputIdFromTransactionData(transactionId: string, index: number): string;
  };
  sendAdvanced(
    client: Client,
    inputs: Json[],
    outputs: { address: string; addressType: number; amount: string }[],
  ): Promise<{ blockId: string; block: Json }>;
}
const require = createRequire(import.meta.url);
const iota = require("@iota/iota.js") as Iota;
const { Converter } = require("@iota/util.js") as { Converter: { hexToBytes(hex: string): Uint8Array } };

/** A client of a node's core API. */
export function client(node: NodeProcess): Client {
  return new iota.SingleNodeClient(node.url);
}

/** The dev wallet paying 1 Mi to a new address per payment, each spending the previous change. */
export class DevWallet {
  private readonly keyPair = new iota.Ed25519Seed(Converter.hexToBytes(DEV_KEY.seed.slice(2))).keyPair();
  private change: { id: string; output: Json; amount: bigint } = {
    id: `0x${"00".repeat(34)}`,
    output: {},
    amount: DEV_TOKEN_SUPPLY,
  };
  /** Output IDs created by the payments (payment, change). */
  readonly created: string[] = [];

  constructor(private readonly node: Client) {}

  async pay(n: number): Promise<string> {
    if (this.created.length === 0) this.change.output = (await this.node.output(this.change.id)).output;
    const recipient = `0x${(n % 256).toString(16).padStart(2, "0").repeat(32)}`;
    const rest = this.change.amount - 1_000_000n;
    const id = this.change.id;
    const sent = await iota.sendAdvanced(
      this.node,
      [
        {
          input: {
            type: 0,
            transactionId: id.slice(0, 66),
            transactionOutputIndex: Number.parseInt(id.slice(68, 70) + id.slice(66, 68), 16),
          },
          addressKeyPair: this.keyPair,
          consumingOutput: this.change.output,
        },
      ],
      [
        { address: recipient, addressType: 0, amount: "1000000" },
        { address: DEV_KEY.pubKeyHash, addressType: 0, amount: rest.toString() },
      ],
    );
    const txId = iota.TransactionHelper.transactionIdFromTransactionPayload(sent.block.payload);
    const next = iota.TransactionHelper.outputIdFromTransactionData(txId, 1);
    this.created.push(iota.TransactionHelper.outputIdFromTransactionData(txId, 0), next);
    this.change = { id: next, output: sent.block.payload.essence.outputs[1], amount: rest };
    return sent.blockId;
  }
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

export { freePort, until };
