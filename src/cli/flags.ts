import { MAX_TRANSACTION_INPUTS } from "../faucet/options.js";
import { MAX_MILESTONE_INTERVAL_MS } from "../network/networkConfig.js";
import { MAX_STATIC_PEERS } from "../network/peeringFile.js";
import { MAX_DEV_ACCOUNTS } from "../node/devAccounts.js";
import { defaultNodeOptions, MILESTONE_MODES, type NodeOptions } from "../node/options.js";
import { command, parseCommand, type Values } from "./parse.js";
import { usageError } from "./usageError.js";
import {
  between,
  integer,
  list,
  milliseconds,
  mnemonic,
  oneOf,
  origin,
  peerAddress,
  port,
  seconds,
  text,
  trueOrFalse,
  u32,
  upTo,
  type ValueType,
} from "./values.js";

/**
 * The node's flags → NodeOptions. Each flag can also come from the environment (`LEDGER_NODE_<FLAG>`,
 * e.g. LEDGER_NODE_API_PORT) and from a JSON config file (`--config`, keys as the flag names without
 * dashes in camelCase). Precedence: flag > environment > config file > default.
 */

const LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

/** PoW worker threads at most: each is a thread of its own, and mining is bound by the cores. */
const MAX_POW_WORKERS = 256;

/** A flag that sets `key` of NodeOptions, its default that of defaultNodeOptions. */
function flag<K extends keyof NodeOptions>(key: K, name: string, value: ValueType<NodeOptions[K]>, help: string) {
  return { key, name, value, help, default: defaultNodeOptions[key], env: true } as const;
}

/** The data directory, also of the commands that read a node's files (token, network-config). */
export const dataDirFlag = flag(
  "dataDir",
  "data-dir",
  text("<dir>"),
  "data directory (LevelDB database and node secrets)",
);

export const nodeCommand = command({
  name: "",
  about: ["Starts a ledger node on the dev network (a fresh data directory gets the dev genesis)."],
  config: true,
  flags: [
    dataDirFlag,
    flag("apiHost", "api-host", text(), "address the HTTP API listens on"),
    flag("apiPort", "api-port", port, "port of the HTTP API"),
    flag(
      "apiRequestTimeoutMs",
      "api-request-timeout",
      milliseconds,
      "longest time a whole HTTP request may take to arrive, in ms",
    ),
    flag(
      "apiMaxConnections",
      "api-max-connections",
      integer,
      "open HTTP connections at most (the longest idle or trickling one, else the greediest address's oldest, makes room)",
    ),
    flag(
      "apiMaxConnectionsPerAddress",
      "api-max-connections-per-address",
      integer,
      "open HTTP connections of one client address at most",
    ),
    flag(
      "apiCorsOrigins",
      "api-cors-origins",
      list(origin),
      "comma-separated origins (scheme://host[:port]) browsers may call the API from; * for any",
    ),
    flag(
      "dashboardImgSrc",
      "dashboard-img-src",
      list(origin),
      "comma-separated origins (scheme://host[:port]) the dashboard may load images from (NFT images); * for any; none by default",
    ),
    flag(
      "milestoneIntervalMs",
      "milestone-interval",
      between(1, MAX_MILESTONE_INTERVAL_MS),
      "coordinator milestone interval in ms",
    ),
    flag(
      "milestones",
      "milestones",
      oneOf(MILESTONE_MODES),
      "when the coordinator issues milestones: every interval, auto (as soon as a block waits) or manual (POST /api/dev/v1/milestones)",
    ),
    flag(
      "milestoneMaxLeadSeconds",
      "milestone-max-lead",
      seconds,
      "auto milestones: seconds their timestamps may run ahead of the clock in a burst before they wait for it (0: no limit)",
    ),
    flag("devAccounts", "dev-accounts", upTo(MAX_DEV_ACCOUNTS), "funded accounts of a fresh dev network (0-127)"),
    flag("devMnemonic", "dev-mnemonic", mnemonic, "BIP-39 mnemonic of the dev accounts (test funds only)"),
    flag(
      "devCoinType",
      "dev-coin-type",
      upTo(0x7fff_ffff),
      "coin type of the dev accounts' path (4219 Shimmer, 4218 IOTA)",
    ),
    flag("minPowScore", "min-pow-score", u32, "minimum Proof-of-Work score of blocks (TIP-12)"),
    flag(
      "powWorkers",
      "pow-workers",
      upTo(MAX_POW_WORKERS),
      `worker threads for PoW on submitted blocks (0 disables, at most ${MAX_POW_WORKERS})`,
    ),
    flag("powQueue", "pow-queue", integer, "submitted blocks mined or waiting for PoW at most (more answer 503)"),
    flag("powTimeoutMs", "pow-timeout", milliseconds, "longest PoW on one submitted block in ms (longer answers 503)"),
    flag("logLevel", "log-level", oneOf(LEVELS), `log level (${LEVELS.join(", ")})`),
    flag("explorerPort", "explorer-port", port, "also serve the explorer API on this port (0: API port only)"),
    flag(
      "mqttPort",
      "mqtt-port",
      port,
      "also serve the event API as plain MQTT over TCP on this port (0: WebSocket at /api/mqtt/v1 only)",
    ),
    flag(
      "mqttMaxClients",
      "mqtt-max-clients",
      integer,
      "event API clients at most, both transports (an idle one, else the greediest address's, makes room)",
    ),
    flag(
      "mqttMaxClientsPerAddress",
      "mqtt-max-clients-per-address",
      integer,
      "event API clients of one client address at most",
    ),
    flag(
      "mqttMaxSubscriptions",
      "mqtt-max-subscriptions",
      integer,
      "event API subscriptions of all clients together at most (more are refused in the SUBACK)",
    ),
    flag(
      "mqttMaxQueuedMiB",
      "mqtt-max-queued-mb",
      integer,
      "MiB queued for all event API clients together at most (the stalled, then the furthest behind, are dropped first)",
    ),
    flag(
      "mqttMaxLagSeconds",
      "mqtt-max-lag-seconds",
      seconds,
      "seconds an event API subscriber may fall behind (its oldest unsent event) before it is disconnected",
    ),
    flag(
      "prometheusPort",
      "prometheus-port",
      port,
      "also serve GET /metrics on this port without a token (0: API port only, protected)",
    ),
    flag("publicRoutes", "public-routes", list(), "comma-separated route patterns open to anyone"),
    flag("protectedRoutes", "protected-routes", list(), "comma-separated route patterns that need a JWT"),
    flag("snapshot", "snapshot", text(), "start an empty data dir from this full snapshot file"),
    flag("deltaSnapshot", "delta-snapshot", text(), "with --snapshot: a delta snapshot on top of it"),
    {
      key: "snapshotUnverified",
      name: "snapshot-unverified",
      help: "with --snapshot: accept files whose milestones are not signed or chained (test snapshots such as Hornet's)",
    } as const,
    flag(
      "snapshotInterval",
      "snapshot-interval",
      u32,
      "write a full snapshot every N milestones, keeping the newest two of them (0: off)",
    ),
    flag("pruneBelow", "prune-below", u32, "keep N milestones of history, prune older data (0: off)"),
    flag("p2pHost", "p2p-host", text(), "address the P2P transport (TCP) listens on"),
    flag("p2pPort", "p2p-port", port, "port of the P2P transport (taken: a free one; 0: a free one)"),
    flag(
      "peers",
      "peer",
      list(peerAddress),
      "static peer multiaddr /ip4/<host>/tcp/<port>/p2p/<peer id>; repeat the flag for more",
    ),
    flag(
      "networkConfig",
      "network-config",
      text(),
      "join the network this file describes (<coordinator data dir>/network.json) as a follower",
    ),
    flag(
      "faucet",
      "faucet",
      trueOrFalse,
      "run the faucet (/api/faucet/v1): true or false; on the dev coordinator it pays from the dev key",
    ),
    flag(
      "faucetKeyFile",
      "faucet-key-file",
      text(),
      "file holding the faucet's Ed25519 seed as hex (never printed); default: <data-dir>/keys/faucet.key if there, else the dev key on the dev network",
    ),
    flag("faucetAmount", "faucet-amount", integer, "base units one faucet request receives"),
    flag(
      "faucetMaxAddressBalance",
      "faucet-max-address-balance",
      integer,
      "addresses holding this much or more get nothing from the faucet",
    ),
    flag(
      "faucetBatchSize",
      "faucet-batch-size",
      between(1, MAX_TRANSACTION_INPUTS - 1),
      "faucet requests paid by one transaction at most (1-127)",
    ),
    flag("faucetQueueSize", "faucet-queue-size", integer, "faucet requests waiting at most"),
    flag("faucetAddressPeriodMs", "faucet-address-period", integer, "one faucet request per address per this many ms"),
    flag(
      "faucetClientRequests",
      "faucet-client-requests",
      integer,
      "faucet requests one client (IP address) may make per --faucet-client-period",
    ),
    flag("faucetClientPeriodMs", "faucet-client-period", integer, "the period of --faucet-client-requests, in ms"),
    flag(
      "spammer",
      "spammer",
      trueOrFalse,
      "serve the spammer (/api/spammer/v1, protected; idle until started): true or false",
    ),
    flag(
      "spammerKeyFile",
      "spammer-key-file",
      text(),
      "file holding the Ed25519 seed value spam pays from (never printed); default: the last dev account on the dev network",
    ),
  ],
});

export interface ParsedArgs {
  options: NodeOptions;
  help: boolean;
}

/** The node's options from its flags, the environment and the config file; throws a usage error. */
export function parseArgs(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): ParsedArgs {
  return nodeOptionsOf(parseCommand(nodeCommand, argv, env));
}

/** The parsed values as NodeOptions, and whether --help was given. */
export function nodeOptionsOf(values: Values<typeof nodeCommand.flags>): ParsedArgs {
  const { help, argument: _, ...options } = values;
  if (options.peers.length > MAX_STATIC_PEERS) {
    throw usageError(`--peer names ${options.peers.length} peers; the node keeps at most ${MAX_STATIC_PEERS}`);
  }
  return { options: options satisfies NodeOptions, help };
}
