import type { MilestoneKeys } from "../codec/syntactic.js";
import type { Ed25519Address } from "../codec/types.js";
import type { Faucet } from "../faucet/index.js";
import type { Indexer } from "../indexer/indexer.js";
import type { NetworkView } from "../network/interface.js";
import type { DeltaSnapshotResult, FullSnapshotResult, SnapshotRequest } from "../snapshot/index.js";
import type { Spammer } from "../spammer/index.js";
import type { Repositories } from "../storage/index.js";
import type { MilestoneMode } from "../tangle/coordinator.js";
import type { MilestoneInfo } from "../tangle/events.js";
import type { BlockIntake } from "../tangle/intake.js";
import type { NodeMetrics } from "../tangle/metrics.js";
import type { TangleView } from "../tangle/tangleView.js";
import type { DevStateJson, DevTimeJson } from "./json/dev.js";

/** The dev routes' tools (node/devTools.ts), on a dev network's coordinator. */
export interface DevApi {
  accounts(): Promise<{
    coinType: number;
    accounts: { index: number; path: string; publicKey: Uint8Array; address: Ed25519Address; balance: bigint }[];
  }>;
  issueMilestones(count: number): Promise<MilestoneInfo[]>;
  time(): DevTimeJson;
  setTime(to: { increaseSeconds: number } | { timestamp: number }): Promise<DevTimeJson>;
  saveState(): Promise<DevStateJson>;
  savedStates(): DevStateJson[];
  revertState(id: string): Promise<{ state: DevStateJson; dropped: string[] }>;
  reset(): Promise<{ dropped: string[] }>;
}

/**
 * What the API reads of a running node. The node layer passes itself (it satisfies this shape),
 * so the API never imports upward. The tangle is seen through its read view (`TangleView`): the
 * API never reaches the store, only the repositories (`db`) and the store's state as plain reads.
 */
export interface ApiNode {
  tangle: TangleView;
  /** Typed reads of the stored records. */
  db: Repositories;
  /** Public key(s) whose signature makes a milestone valid. */
  coordinatorPublicKey: Uint8Array;
  /** The network's coordinator keys and how many must sign a milestone (TIP-29): proofs of inclusion are checked against them. */
  milestoneKeys: MilestoneKeys;
  /** The node's one intake (src/tangle/intake.ts): the submit route maps its verdict to a status. */
  intake: Pick<BlockIntake, "submitDraft">;
  /** The indexer behind the indexer routes, kept in step with the ledger by the node. */
  indexer: Indexer;
  /** The `metrics` of the info route, kept by the node from its events, and when the ledger last advanced (ms). */
  metrics: { readonly metrics: NodeMetrics; readonly lastConfirmedAt?: number };
  /** HS256 secret of the JWTs that open protected routes. */
  jwtSecret: Uint8Array;
  /** Snapshot writing for the control route; absent: the route answers 500 (no writer). */
  snapshots?: { create(request: SnapshotRequest): Promise<FullSnapshotResult | DeltaSnapshotResult> };
  /** The background pruner (tangle/prune.ts), for the prune control route; absent: it answers 500. */
  pruner?: { readonly horizon: number; request(target: number): Promise<number> };
  /** The faucet of `/api/faucet/v1`; absent: those routes answer 404 (the node runs none). */
  faucet?: Faucet | undefined;
  /** The spammer of `/api/spammer/v1`; absent: those routes do not exist. */
  spammer?: Spammer | undefined;
  /** The dev routes' tools (`/api/dev/v1`); absent: those routes do not exist. */
  dev?: DevApi | undefined;
  /**
   * The clock of the milestones (time travel moves it ahead of the wall clock): health measures a
   * milestone's age on it. Absent: the wall clock.
   */
  clock?: { nowSeconds(now?: number): number };
  /** The P2P layer (peers, sync status); absent when the node runs without it. */
  network?: NetworkView | undefined;
  options: {
    /** Worker threads for PoW on submitted blocks; 0 = PoW disabled (503 when it is needed). */
    powWorkers: number;
    /** Submitted blocks mined or waiting for it at most (beyond: 503); default 16. */
    powQueue?: number;
    /** Longest PoW on one submitted block, in ms (beyond: 503); default 60 s. */
    powTimeoutMs?: number;
    dataDir: string;
    /** The network's milestone interval in ms: health expects a milestone every few of them. */
    milestoneIntervalMs?: number;
    /**
     * When the coordinator issues milestones (`interval` when absent). In `auto` and `manual` mode
     * an idle ledger waits for blocks or a request: not advancing is no sign of a stopped coordinator.
     */
    milestones?: MilestoneMode;
  };
}
