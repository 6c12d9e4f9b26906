/** Everything a node is started with; the CLI fills it from flags, environment and a config file. */
export interface NodeOptions {
  /** Directory of the LevelDB database and the node's secrets. */
  dataDir: string;
  apiHost: string;
  apiPort: number;
  /** Interval of the built-in coordinator, in milliseconds. */
  milestoneIntervalMs: number;
  /** Minimum PoW score of blocks (TIP-12); a dev-network setting. */
  minPowScore: number;
  /** Worker threads for Proof-of-Work on submitted blocks; 0 disables it. */
  powWorkers: number;
  logLevel: "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
  /** Port of a separate explorer API; 0 serves the explorer on the API port only. */
  explorerPort: number;
  /** Route patterns anyone may call (path only, `*` wildcards). */
  publicRoutes: string[];
  /** Route patterns that need a JWT; they win over `publicRoutes`. */
  protectedRoutes: string[];
}

export const defaultNodeOptions: NodeOptions = {
  dataDir: "./data",
  apiHost: "127.0.0.1",
  apiPort: 14265,
  milestoneIntervalMs: 1000,
  minPowScore: 100,
  powWorkers: 1,
  logLevel: "info",
  explorerPort: 0,
  publicRoutes: ["/*"],
  protectedRoutes: ["/api/core/v2/control/*", "/api/core/v2/peers*"],
};
