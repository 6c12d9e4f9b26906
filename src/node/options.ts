import { defaultApiAuthOptions } from "../api/auth.js";
import type { MilestoneMode } from "../tangle/coordinator.js";
import { DEFAULT_DEV_MNEMONIC, SHIMMER_COIN_TYPE } from "./devAccounts.js";

export { MILESTONE_MODES, type MilestoneMode } from "../tangle/coordinator.js";

/** Everything a node is started with; the CLI fills it from flags, environment and a config file. */
export interface NodeOptions {
  /** Directory of the LevelDB database and the node's secrets. */
  dataDir: string;
  apiHost: string;
  apiPort: number;
  /** Interval of the built-in coordinator, in milliseconds. */
  milestoneIntervalMs: number;
  /**
   * When the coordinator issues milestones: every interval (`interval`), as soon as a block waits
   * (`auto`, within a few milliseconds) or only when asked (`manual`, `POST /api/dev/v1/milestones`).
   * `auto` and `manual` are for a dev network's coordinator.
   */
  milestones: MilestoneMode;
  /**
   * `auto` milestones: how far (s) their timestamps may run ahead of the clock in a burst (each
   * is a second above the last) before they wait for it; 0: no limit. The default keeps within
   * the five minutes native SDKs allow between their clock and a node's.
   */
  milestoneMaxLeadSeconds: number;
  /** Funded accounts a fresh dev network's genesis holds (0 to 127), derived from `devMnemonic`. */
  devAccounts: number;
  /** The BIP-39 mnemonic of the dev accounts (the well-known one by default: test funds only). */
  devMnemonic: string;
  /** SLIP-44 coin type of the dev accounts' path `m/44'/<coin type>'/<account>'/0'/0'` (4219 Shimmer, 4218 IOTA). */
  devCoinType: number;
  /** Minimum PoW score of blocks (TIP-12); a dev-network setting. */
  minPowScore: number;
  /** Worker threads for Proof-of-Work on submitted blocks; 0 disables it. */
  powWorkers: number;
  logLevel: "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
  /** Port of a separate explorer API; 0 serves the explorer on the API port only. */
  explorerPort: number;
  /** Port of the event API over plain MQTT/TCP; 0: only the WebSocket route on the API port. */
  mqttPort: number;
  /** Port of a listener serving `GET /metrics` alone without a token (Prometheus); 0: off. */
  prometheusPort: number;
  /** Route patterns anyone may call (path only, `*` wildcards). */
  publicRoutes: string[];
  /** Route patterns that need a JWT; they win over `publicRoutes`. */
  protectedRoutes: string[];
  /** A full snapshot file to start an empty data dir from ("" = none). */
  snapshot: string;
  /** A delta snapshot file on top of `snapshot` ("" = none). */
  deltaSnapshot: string;
  /**
   * Import snapshot files whose milestones carry no valid signatures or chain of previous
   * milestone IDs (test files such as Hornet's); every other check still runs. Logged at warn.
   */
  snapshotUnverified: boolean;
  /** Take a full snapshot every this many milestones (0 = off). */
  snapshotInterval: number;
  /** Keep this many milestones of history and prune older data in the background (0 = off). */
  pruneBelow: number;
  /** Address the P2P transport (TCP) listens on. */
  p2pHost: string;
  /** Port of the P2P transport; a taken port falls back to a free one (logged), 0 always takes a free one. */
  p2pPort: number;
  /** Static peers (multiaddrs), dialled at start and redialled with backoff when lost. */
  peers: string[];
  /**
   * The network configuration file of an existing network (`<coordinator data dir>/network.json`):
   * the node joins that network as a follower, without a coordinator key. Empty: the node starts
   * (or resumes) its own dev network as its coordinator, or follows the network its data
   * directory already belongs to.
   */
  networkConfig: string;
  /** Longest time a whole HTTP request may take to arrive, in ms. */
  apiRequestTimeoutMs: number;
  /**
   * Open HTTP connections at most, and per client address (which one makes room:
   * src/api/connectionBudget.ts).
   */
  apiMaxConnections: number;
  apiMaxConnectionsPerAddress: number;
  /** Event API clients at most (both transports), and per client address. */
  mqttMaxClients: number;
  mqttMaxClientsPerAddress: number;
  /** Event API subscriptions of all clients together at most; more are refused in the SUBACK. */
  mqttMaxSubscriptions: number;
  /**
   * Bytes queued for all event API clients together at most, in MiB; the stalled, then the
   * furthest behind, then the biggest holders are dropped first.
   */
  mqttMaxQueuedMiB: number;
  /** How far behind an event API subscriber may fall (its oldest unsent event), in seconds, before it is disconnected. */
  mqttMaxLagSeconds: number;
  /** Origins (`scheme://host[:port]`) allowed to call the API from a browser; `*`: any, empty: none. */
  apiCorsOrigins: string[];
  /** Origins (`scheme://host[:port]`, `*`: any) the dashboard may load images from (NFT images); none by default. */
  dashboardImgSrc: string[];
  /** Submitted blocks the node mines or holds for mining at most; more answer 503. */
  powQueue: number;
  /** Longest the node mines one submitted block, in ms; longer answers 503. */
  powTimeoutMs: number;
  /**
   * Run the faucet (`/api/faucet/v1`, src/faucet). Its key: `faucetKeyFile`, or on the dev
   * network's coordinator the well-known dev key that holds the genesis; without either, none.
   */
  faucet: boolean;
  /** A file holding the faucet's Ed25519 seed as hex ("" = the dev key on the dev network). Never printed. */
  faucetKeyFile: string;
  /** What one faucet request receives, in base units. */
  faucetAmount: number;
  /** Addresses holding this much or more get nothing from the faucet. */
  faucetMaxAddressBalance: number;
  /** Requests one faucet transaction pays at most (1 to 127). */
  faucetBatchSize: number;
  /** Faucet requests waiting at most. */
  faucetQueueSize: number;
  /** One faucet request per address per this many ms. */
  faucetAddressPeriodMs: number;
  /** Faucet requests one client (IP address) may make per `faucetClientPeriodMs` (also its burst). */
  faucetClientRequests: number;
  faucetClientPeriodMs: number;
  /** Serve the spammer (`/api/spammer/v1`, src/spammer; idle until started, protected by default). */
  spammer: boolean;
  /** A file holding the Ed25519 seed value spam pays from ("" = the last dev account on the dev network). Never printed. */
  spammerKeyFile: string;
}

export const defaultNodeOptions: NodeOptions = {
  dataDir: "./data",
  apiHost: "127.0.0.1",
  apiPort: 14265,
  milestoneIntervalMs: 1000,
  milestones: "interval",
  milestoneMaxLeadSeconds: 240,
  devAccounts: 10,
  devMnemonic: DEFAULT_DEV_MNEMONIC,
  devCoinType: SHIMMER_COIN_TYPE,
  minPowScore: 100,
  powWorkers: 1,
  powQueue: 16,
  powTimeoutMs: 60_000,
  faucet: true,
  faucetKeyFile: "",
  faucetAmount: 1_000_000_000,
  faucetMaxAddressBalance: 2_000_000_000,
  faucetBatchSize: 127,
  faucetQueueSize: 10_000,
  faucetAddressPeriodMs: 300_000,
  faucetClientRequests: 20,
  faucetClientPeriodMs: 300_000,
  spammer: true,
  spammerKeyFile: "",
  logLevel: "info",
  explorerPort: 0,
  mqttPort: 0,
  prometheusPort: 0,
  publicRoutes: ["/*"],
  protectedRoutes: [...defaultApiAuthOptions.protectedRoutes],
  snapshot: "",
  deltaSnapshot: "",
  snapshotUnverified: false,
  snapshotInterval: 0,
  pruneBelow: 0,
  p2pHost: "0.0.0.0",
  p2pPort: 15600,
  peers: [],
  networkConfig: "",
  apiRequestTimeoutMs: 30_000,
  apiMaxConnections: 256,
  apiMaxConnectionsPerAddress: 64,
  apiCorsOrigins: ["*"],
  dashboardImgSrc: [],
  mqttMaxClients: 1000,
  mqttMaxClientsPerAddress: 256,
  mqttMaxSubscriptions: 100_000,
  mqttMaxQueuedMiB: 256,
  mqttMaxLagSeconds: 10,
};
