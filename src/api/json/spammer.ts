/**
 * The spammer's answers (routes/spammer.ts): inx-spammer's `spammerStatus` fields
 * (`pkg/spammer/routes.go`), then this node's figures of the run. Types only, for the routes and
 * the dashboard (web/).
 */

/** `GET /api/spammer/v1/status`, and the answer of start and stop. */
export interface SpammerStatusJson {
  running: boolean;
  valueSpamEnabled: boolean;
  bpsRateLimit: number;
  cpuMaxUsage: number;
  spammerWorkers: number;
  spammerWorkersMax: number;
  /** Blocks taken in per second over the last 5 complete seconds of the run. */
  blocksPerSecond: number;
  /** Blocks taken in since the last start. */
  sentBlocks: number;
  /** Blocks refused or failed since the last start. */
  errors: number;
  /** The node process's CPU use over the last second, 0..1 of the cores (0 when stopped). */
  cpuUsage: number;
}

/** `POST /api/spammer/v1/start`: every field optional; one left out keeps its last value. */
export interface SpammerStartJson {
  bpsRateLimit?: number;
  cpuMaxUsage?: number;
  spammerWorkers?: number;
  valueSpamEnabled?: boolean;
}
