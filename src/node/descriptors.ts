import { readFileSync } from "node:fs";
import { defaultKvStoreOptions } from "../storage/index.js";

/**
 * How the node shares the process's open-file limit (read once at start): LevelDB's table files,
 * the P2P layer's connections, a fixed reserve for the process itself (standard streams, the
 * listening sockets, worker threads, log and snapshot files), and what is left for clients'
 * connections (HTTP, WebSocket, MQTT over TCP), kept within it by the one connection budget
 * (api/connectionBudget.ts). So a flood of clients never takes the descriptor LevelDB or a new
 * client needs (docs/decisions.md, "Fair slots").
 */
export interface DescriptorPlan {
  /** The open-file limit the plan is made for. */
  limit: number;
  /** LevelDB's `maxOpenFiles`. */
  databaseFiles: number;
  /** P2P connections at most (libp2p's connection manager). */
  p2pConnections: number;
  /** Client connections of every server together at most. */
  clientConnections: number;
}

/**
 * Descriptors the process keeps for itself beyond the database and the connections: 128 for its
 * files, threads and listening sockets, and 64 for the run files an index rebuild merges at once
 * (indexer/externalSort.ts, `MAX_OPEN_RUNS`).
 */
const PROCESS_RESERVE = 192;
/** The store's bound of open files, which also bounds the table files it maps into memory. */
const MAX_DATABASE_FILES = defaultKvStoreOptions.maxOpenFiles;
const P2P_CONNECTIONS = 64;

/**
 * The process's soft open-file limit from /proc/self/limits (Node raises it to the hard limit at
 * start); undefined where the file does not exist or says "unlimited".
 */
export function openFileLimit(): number | undefined {
  try {
    const line = readFileSync("/proc/self/limits", "utf8")
      .split("\n")
      .find((l) => l.startsWith("Max open files"));
    const soft = Number(line?.split(/\s{2,}/)[1]);
    return Number.isFinite(soft) && soft > 0 ? soft : undefined;
  } catch {
    return undefined;
  }
}

/** The plan for `limit` descriptors (an unknown limit is taken as 65,536, a common default). */
export function planDescriptors(limit: number = openFileLimit() ?? 65_536): DescriptorPlan {
  // a quarter of the limit for the database (at least 64 files, the store's bound at most)
  const databaseFiles = Math.max(64, Math.min(MAX_DATABASE_FILES, Math.floor(limit / 4)));
  const p2pConnections = Math.max(8, Math.min(P2P_CONNECTIONS, Math.floor(limit / 16)));
  const clientConnections = Math.max(32, limit - PROCESS_RESERVE - databaseFiles - p2pConnections);
  return { limit, databaseFiles, p2pConnections, clientConnections };
}
