import { readFileSync } from "node:fs";
import { parsePeerAddress } from "../network/peering.js";
import { defaultNodeOptions, type NodeOptions } from "../node/options.js";
import { isLedgerNodeError, LedgerNodeError } from "../util/ledgerNodeError.js";

/**
 * Flags → NodeOptions. Each flag can also come from the environment (`LEDGER_NODE_<FLAG>`, e.g.
 * LEDGER_NODE_API_PORT) and from a JSON config file (`--config`, keys as the flag names without
 * dashes in camelCase). Precedence: flag > environment > config file > default.
 */

interface FlagSpec {
  flag: string;
  key: keyof NodeOptions;
  kind: "string" | "int" | "level" | "list" | "bool";
  help: string;
}

const LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

export const FLAGS: FlagSpec[] = [
  { flag: "data-dir", key: "dataDir", kind: "string", help: "data directory (LevelDB database and node secrets)" },
  { flag: "api-host", key: "apiHost", kind: "string", help: "address the HTTP API listens on" },
  { flag: "api-port", key: "apiPort", kind: "int", help: "port of the HTTP API" },
  {
    flag: "api-request-timeout",
    key: "apiRequestTimeoutMs",
    kind: "int",
    help: "longest time a whole HTTP request may take to arrive, in ms",
  },
  {
    flag: "api-max-connections",
    key: "apiMaxConnections",
    kind: "int",
    help: "open HTTP connections at most (the oldest idle one makes room)",
  },
  {
    flag: "api-max-connections-per-address",
    key: "apiMaxConnectionsPerAddress",
    kind: "int",
    help: "open HTTP connections of one client address at most",
  },
  {
    flag: "api-cors-origins",
    key: "apiCorsOrigins",
    kind: "list",
    help: "comma-separated origins (scheme://host[:port]) browsers may call the API from; * for any",
  },
  { flag: "milestone-interval", key: "milestoneIntervalMs", kind: "int", help: "coordinator milestone interval in ms" },
  { flag: "min-pow-score", key: "minPowScore", kind: "int", help: "minimum Proof-of-Work score of blocks (TIP-12)" },
  {
    flag: "pow-workers",
    key: "powWorkers",
    kind: "int",
    help: "worker threads for PoW on submitted blocks (0 disables)",
  },
  {
    flag: "pow-queue",
    key: "powQueue",
    kind: "int",
    help: "submitted blocks mined or waiting for PoW at most (more answer 503)",
  },
  {
    flag: "pow-timeout",
    key: "powTimeoutMs",
    kind: "int",
    help: "longest PoW on one submitted block in ms (longer answers 503)",
  },
  { flag: "log-level", key: "logLevel", kind: "level", help: `log level (${LEVELS.join(", ")})` },
  {
    flag: "explorer-port",
    key: "explorerPort",
    kind: "int",
    help: "also serve the explorer API on this port (0: API port only)",
  },
  {
    flag: "mqtt-port",
    key: "mqttPort",
    kind: "int",
    help: "also serve the event API as plain MQTT over TCP on this port (0: WebSocket at /api/mqtt/v1 only)",
  },
  {
    flag: "mqtt-max-clients",
    key: "mqttMaxClients",
    kind: "int",
    help: "event API clients at most, both transports (an idle one, else the greediest address's, makes room)",
  },
  {
    flag: "mqtt-max-clients-per-address",
    key: "mqttMaxClientsPerAddress",
    kind: "int",
    help: "event API clients of one client address at most",
  },
  {
    flag: "mqtt-max-subscriptions",
    key: "mqttMaxSubscriptions",
    kind: "int",
    help: "event API subscriptions of all clients together at most (more are refused in the SUBACK)",
  },
  {
    flag: "mqtt-max-queued-mb",
    key: "mqttMaxQueuedMiB",
    kind: "int",
    help: "MiB queued for all event API clients together at most (the biggest holders are dropped first)",
  },
  {
    flag: "prometheus-port",
    key: "prometheusPort",
    kind: "int",
    help: "also serve GET /metrics on this port without a token (0: API port only, protected)",
  },
  { flag: "public-routes", key: "publicRoutes", kind: "list", help: "comma-separated route patterns open to anyone" },
  {
    flag: "protected-routes",
    key: "protectedRoutes",
    kind: "list",
    help: "comma-separated route patterns that need a JWT",
  },
  { flag: "snapshot", key: "snapshot", kind: "string", help: "start an empty data dir from this full snapshot file" },
  {
    flag: "delta-snapshot",
    key: "deltaSnapshot",
    kind: "string",
    help: "with --snapshot: a delta snapshot on top of it",
  },
  {
    flag: "snapshot-interval",
    key: "snapshotInterval",
    kind: "int",
    help: "write a full snapshot every N milestones (0: off)",
  },
  {
    flag: "prune-below",
    key: "pruneBelow",
    kind: "int",
    help: "keep N milestones of history, prune older data (0: off)",
  },
  { flag: "p2p-host", key: "p2pHost", kind: "string", help: "address the P2P transport (TCP) listens on" },
  {
    flag: "p2p-port",
    key: "p2pPort",
    kind: "int",
    help: "port of the P2P transport (taken: a free one; 0: a free one)",
  },
  {
    flag: "peer",
    key: "peers",
    kind: "list",
    help: "static peer multiaddr /ip4/<host>/tcp/<port>/p2p/<peer id>; repeat the flag for more",
  },
  {
    flag: "network-config",
    key: "networkConfig",
    kind: "string",
    help: "join the network this file describes (<coordinator data dir>/network.json) as a follower",
  },
  {
    flag: "faucet",
    key: "faucet",
    kind: "bool",
    help: "run the faucet (/api/faucet/v1): true or false; on the dev coordinator it pays from the dev key",
  },
  {
    flag: "faucet-key-file",
    key: "faucetKeyFile",
    kind: "string",
    help: "file holding the faucet's Ed25519 seed as hex (never printed); default: the dev key on the dev network",
  },
  { flag: "faucet-amount", key: "faucetAmount", kind: "int", help: "base units one faucet request receives" },
  {
    flag: "faucet-max-address-balance",
    key: "faucetMaxAddressBalance",
    kind: "int",
    help: "addresses holding this much or more get nothing from the faucet",
  },
  {
    flag: "faucet-batch-size",
    key: "faucetBatchSize",
    kind: "int",
    help: "faucet requests paid by one transaction at most (1-127)",
  },
  { flag: "faucet-queue-size", key: "faucetQueueSize", kind: "int", help: "faucet requests waiting at most" },
  {
    flag: "faucet-address-period",
    key: "faucetAddressPeriodMs",
    kind: "int",
    help: "one faucet request per address per this many ms",
  },
  {
    flag: "faucet-client-requests",
    key: "faucetClientRequests",
    kind: "int",
    help: "faucet requests one client (IP address) may make per --faucet-client-period",
  },
  {
    flag: "faucet-client-period",
    key: "faucetClientPeriodMs",
    kind: "int",
    help: "the period of --faucet-client-requests, in ms",
  },
];

/** Why the command line was refused. */
export enum CliErrorCode {
  /** A flag, value or argument the command does not take (the message says which). */
  Usage = "CLI_USAGE",
}

/** The command line is wrong: the CLI prints the message and exits with 2. */
export function usageError(message: string): LedgerNodeError<CliErrorCode> {
  return new LedgerNodeError(CliErrorCode.Usage, message);
}

export function isUsageError(e: unknown): e is LedgerNodeError<CliErrorCode> {
  return isLedgerNodeError(e, CliErrorCode, CliErrorCode.Usage);
}

const envName = (flag: string) => `LEDGER_NODE_${flag.toUpperCase().replace(/-/g, "_")}`;

function parseValue(spec: FlagSpec, raw: unknown, source: string): NodeOptions[keyof NodeOptions] {
  const text = Array.isArray(raw) ? raw.join(",") : String(raw);
  if (spec.kind === "int") {
    if (!/^\d+$/.test(text)) throw usageError(`${source}: --${spec.flag} takes a non-negative integer, got "${text}"`);
    return Number(text);
  }
  if (spec.kind === "list") {
    if (Array.isArray(raw)) return raw.map(String);
    return text
      .split(",")
      .map((x) => x.trim())
      .filter((x) => x.length > 0);
  }
  if (spec.kind === "bool") {
    if (text !== "true" && text !== "false") throw usageError(`${source}: --${spec.flag} takes true or false`);
    return text === "true";
  }
  if (spec.kind === "level") {
    if (!(LEVELS as readonly string[]).includes(text))
      throw usageError(`${source}: --${spec.flag} takes one of ${LEVELS.join(", ")}`);
    return text as NodeOptions["logLevel"];
  }
  return text;
}

export interface ParsedArgs {
  options: NodeOptions;
  help: boolean;
}

export function parseArgs(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): ParsedArgs {
  const fromFlags = new Map<string, string>();
  let configPath: string | undefined = env.LEDGER_NODE_CONFIG;
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--help" || arg === "-h") {
      help = true;
      continue;
    }
    if (!arg.startsWith("--")) throw usageError(`unexpected argument "${arg}"`);
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    const value = eq < 0 ? argv[++i] : arg.slice(eq + 1);
    if (value === undefined) throw usageError(`--${name} needs a value`);
    const spec = FLAGS.find((f) => f.flag === name);
    if (name === "config") configPath = value;
    // a list flag may be repeated (--peer a --peer b), its values add up
    else if (spec?.kind === "list" && fromFlags.has(name)) fromFlags.set(name, `${fromFlags.get(name)},${value}`);
    else if (spec) fromFlags.set(name, value);
    else throw usageError(`unknown flag --${name} (see --help)`);
  }
  let fromFile: Record<string, unknown> = {};
  if (configPath) {
    try {
      fromFile = JSON.parse(readFileSync(configPath, "utf8"));
    } catch (e) {
      throw usageError(`cannot read config file ${configPath}: ${(e as Error).message}`);
    }
  }
  const options = { ...defaultNodeOptions } as Record<keyof NodeOptions, unknown>;
  for (const spec of FLAGS) {
    const fileKey = spec.flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
    if (fromFlags.has(spec.flag)) options[spec.key] = parseValue(spec, fromFlags.get(spec.flag), "flag");
    else if (env[envName(spec.flag)] !== undefined)
      options[spec.key] = parseValue(spec, env[envName(spec.flag)], envName(spec.flag));
    else if (fromFile[fileKey] !== undefined)
      options[spec.key] = parseValue(spec, fromFile[fileKey], `config ${fileKey}`);
  }
  // an origin is compared with the browser's Origin header as a string, so each is written as
  // browsers write it (lower case, no default port, no slash); one with a path or without a
  // scheme would never match and is refused
  options.apiCorsOrigins = (options.apiCorsOrigins as string[]).map((origin) => {
    if (origin === "*") return origin;
    const serialized = serializedOrigin(origin);
    if (serialized === undefined)
      throw usageError(`--api-cors-origins: "${origin}" is not an origin (scheme://host[:port]) or *`);
    return serialized;
  });
  // a peer address libp2p cannot dial is a usage error, found before anything starts
  for (const peer of options.peers as string[]) {
    try {
      parsePeerAddress(peer);
    } catch (e) {
      throw usageError(`--peer ${(e as Error).message}`);
    }
  }
  return { options: options as unknown as NodeOptions, help };
}

/** `text` as a browser's `Origin` header would carry it, when it names an http(s) origin and nothing more. */
function serializedOrigin(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  const bare = url.pathname === "/" && url.search === "" && url.hash === "" && url.username === "";
  if (!bare || (url.protocol !== "http:" && url.protocol !== "https:")) return undefined;
  return url.origin;
}

export function helpText(): string {
  const rows = FLAGS.map((f) => {
    const value = defaultNodeOptions[f.key];
    const def = Array.isArray(value) ? value.join(",") : value;
    return `  --${f.flag.padEnd(20)} ${f.help} (default: ${def}; env ${envName(f.flag)})`;
  });
  return [
    "usage: npm start -- [flags]",
    "",
    "Starts a ledger node on the dev network (a fresh data directory gets the dev genesis).",
    "",
    ...rows,
    `  --${"config".padEnd(20)} JSON config file with the same settings in camelCase (env LEDGER_NODE_CONFIG)`,
    `  --${"help".padEnd(20)} this text`,
  ].join("\n");
}
