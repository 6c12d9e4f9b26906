import type { GossipMetrics, PeerView } from "./interface.js";
import type { Heartbeat } from "./messages.js";

/** Gossip counters per peer (Hornet's names), kept for the peers route. */
export class PeerMetrics {
  private readonly byPeer = new Map<string, GossipMetrics>();

  /** The counters of `peer`, created at zero on first use. */
  of(peer: string): GossipMetrics {
    let m = this.byPeer.get(peer);
    if (!m) {
      m = {
        newBlocks: 0,
        knownBlocks: 0,
        receivedBlocks: 0,
        receivedBlockRequests: 0,
        receivedMilestoneRequests: 0,
        receivedHeartbeats: 0,
        sentBlocks: 0,
        sentBlockRequests: 0,
        sentMilestoneRequests: 0,
        sentHeartbeats: 0,
        droppedPackets: 0,
        invalidMessages: 0,
      };
      this.byPeer.set(peer, m);
    }
    return m;
  }

  has(peer: string): boolean {
    return this.byPeer.has(peer);
  }

  /** Drops a disconnected peer's counters, so the map holds connected peers (and static ones) only. */
  forget(peer: string): void {
    this.byPeer.delete(peer);
  }

  get size(): number {
    return this.byPeer.size;
  }
}

/** What the peers route shows of one peer. */
export function peerView(
  peer: {
    id: string;
    addresses: string[];
    connected: boolean;
    alias?: string | undefined;
    isStatic: boolean;
    score: number;
    banned: boolean;
  },
  heartbeat: Heartbeat | undefined,
  metrics: PeerMetrics,
): PeerView {
  const gossip =
    heartbeat || metrics.has(peer.id)
      ? {
          heartbeat: heartbeat ?? {
            solidMilestoneIndex: 0,
            prunedMilestoneIndex: 0,
            latestMilestoneIndex: 0,
            connectedPeers: 0,
            syncedPeers: 0,
          },
          metrics: { ...metrics.of(peer.id) },
        }
      : undefined;
  return {
    id: peer.id,
    multiAddresses: peer.addresses,
    relation: peer.isStatic ? "known" : "unknown",
    connected: peer.connected,
    score: Math.round(peer.score * 100) / 100,
    banned: peer.banned,
    ...(peer.alias === undefined ? {} : { alias: peer.alias }),
    ...(gossip ? { gossip } : {}),
  };
}
