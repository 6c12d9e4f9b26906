import type { Heartbeat } from "./messages.js";

/**
 * What layers above (the API) read of the network. The node passes its `Network`, which
 * satisfies these shapes; the JSON of `GET /api/core/v2/peers` follows Hornet's peer object
 * (`@iota/iota.js`'s `IPeer`), with this node's score of the peer added.
 */

/** Counters per peer, named as Hornet's gossip metrics. */
export interface GossipMetrics {
  /** Blocks from this peer that were new here. */
  newBlocks: number;
  /** Blocks from this peer that this node had already. */
  knownBlocks: number;
  /** Every block received from it (gossip and answers). */
  receivedBlocks: number;
  receivedBlockRequests: number;
  receivedMilestoneRequests: number;
  receivedHeartbeats: number;
  /** Blocks sent in answers to its requests. */
  sentBlocks: number;
  sentBlockRequests: number;
  sentMilestoneRequests: number;
  sentHeartbeats: number;
  /** Requests to it that failed (timeout, reset, no answer). */
  droppedPackets: number;
  /** Invalid blocks and malformed messages it sent. */
  invalidMessages: number;
}

/** A connected peer, a static peer (connected or not) or a banned one. */
export interface PeerView {
  id: string;
  multiAddresses: string[];
  /** "known": a static peer (`--peer` or added at runtime); "unknown": a peer that dialled in. */
  relation: "known" | "unknown";
  connected: boolean;
  /** This node's score of the peer (0 neutral, negative after invalid messages). */
  score: number;
  /** Banned peers are disconnected and refused until the ban ends. */
  banned: boolean;
  /** The alias a static peer was added with (TIP-25 `alias`). */
  alias?: string;
  gossip?: { heartbeat: Heartbeat; metrics: GossipMetrics };
}

export interface SyncStatus {
  /** The ledger is within the sync tolerance of the newest milestone known in the network. */
  isSynced: boolean;
  /** The newest milestone index this node knows of (peers' heartbeats, received milestones). */
  latestMilestoneIndex: number;
  /** The ledger index. */
  confirmedMilestoneIndex: number;
  connectedPeers: number;
  syncedPeers: number;
}

export interface NetworkView {
  /** This node's libp2p peer ID. */
  readonly peerId: string;
  /** The multiaddrs it listens on, each ending in `/p2p/<peer id>`. */
  listenAddresses(): string[];
  peers(): PeerView[];
  syncStatus(): SyncStatus;
  /** Adds a static peer at runtime, kept across restarts; resolves with its view. */
  addPeer(multiAddress: string, alias?: string): Promise<PeerView>;
  /** Removes a peer: disconnected, no longer static (UnknownPeer when there is no such peer). */
  removePeer(peerId: string): Promise<void>;
}
