/** Settings of the peer-to-peer layer; one object, given to `Network` (see network.ts). */
export interface NetworkOptions {
  /** Address the TCP transport listens on. */
  listenHost: string;
  /** TCP port of the transport; 0 takes a free one. A taken port falls back to a free one (logged). */
  port: number;
  /** Static peers as multiaddrs (`/ip4/…/tcp/…/p2p/<peer id>`), dialled at start and redialled when lost. */
  peers: string[];
  /** First delay before redialling a lost static peer; doubled on every failure up to `reconnectMaxMs`. */
  reconnectMinMs: number;
  reconnectMaxMs: number;
  /** How often a node tells its peers its milestone indexes (Hornet sends heartbeats too). */
  heartbeatIntervalMs: number;
  /**
   * How many milestones the ledger may trail the network's latest and still count as synced: the
   * one milestone a follower is confirming right now is not "behind".
   */
  syncTolerance: number;
  /** Milestone cones requested at the same time while catching up. */
  syncWindow: number;
  /** A request (block, milestone cone) that got no complete answer in this time is retried elsewhere. */
  requestTimeoutMs: number;
  /**
   * A parent still missing after this delay is requested from peers. Gossip mostly brings it
   * first: blocks from one source travel in order, so only real gaps cost a request.
   */
  parentRequestDelayMs: number;
  /** Attempts per missing parent before it is given up on (it may come with a milestone cone later). */
  parentRequestAttempts: number;
  /** Score a peer loses per invalid block or malformed message (it starts at 0 and recovers over time). */
  invalidMessagePenalty: number;
  /** Time for a peer's negative score to recover by half. */
  scoreHalfLifeMs: number;
  /** A peer whose score falls to this value is disconnected and banned for `banMs`. */
  banThreshold: number;
  banMs: number;
  /** Peer connections at most (libp2p's connection manager): the P2P share of the open-file limit (node/descriptors.ts). */
  maxConnections: number;
}

export const defaultNetworkOptions: NetworkOptions = {
  listenHost: "0.0.0.0",
  port: 15600,
  peers: [],
  reconnectMinMs: 500,
  reconnectMaxMs: 30_000,
  heartbeatIntervalMs: 1000,
  syncTolerance: 1,
  syncWindow: 32,
  requestTimeoutMs: 10_000,
  parentRequestDelayMs: 200,
  parentRequestAttempts: 5,
  invalidMessagePenalty: 20,
  scoreHalfLifeMs: 60_000,
  banThreshold: -100,
  banMs: 5 * 60_000,
  maxConnections: 64,
};
