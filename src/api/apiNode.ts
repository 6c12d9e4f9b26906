import type { Block } from "../codec/types.js";
import type { NetworkView } from "../network/interface.js";
import type { DeltaSnapshotResult, FullSnapshotResult, SnapshotRequest } from "../snapshot/index.js";
import type { Tangle } from "../tangle/tangle.js";

/**
 * What the API reads of a running node. The node layer passes itself (it satisfies this shape),
 * so the API never imports upward.
 */
export interface ApiNode {
  tangle: Tangle;
  /** Public key(s) whose signature makes a milestone valid. */
  coordinatorPublicKey: Uint8Array;
  /**
   * The internal submit path (src/tangle/acceptBlock.ts): decode, syntactic rules, PoW or
   * milestone signature, store, solidify, with signatures pre-checked on worker threads.
   */
  submitBlock(bytes: Uint8Array, checked?: Block): Promise<{ blockId: Uint8Array; isNew: boolean }>;
  /** HS256 secret of the JWTs that open protected routes. */
  jwtSecret: Uint8Array;
  /** Snapshot writing for the control route; absent: the route answers 500 (no writer). */
  snapshots?: { create(request: SnapshotRequest): Promise<FullSnapshotResult | DeltaSnapshotResult> };
  /** The P2P layer (peers, sync status); absent when the node runs without it. */
  network?: NetworkView | undefined;
  options: {
    /** Worker threads for PoW on submitted blocks; 0 = PoW disabled (503 when it is needed). */
    powWorkers: number;
    dataDir: string;
  };
}
