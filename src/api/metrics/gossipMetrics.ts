import { Gauge } from "prom-client";
import type { PeerView } from "../../network/interface.js";
import type { NodeEventMap } from "../../tangle/events.js";
import type { ApiNode } from "../apiNode.js";
import type { MetricsScraper } from "./scraper.js";

/**
 * Gossip as Hornet's Prometheus component names it (`components/prometheus/gossip_peers.go`,
 * `gossip_node.go`): per peer, the counters of `GET /api/core/v2/peers` under
 * `iota_gossip_peers_{blocks,requests,heartbeats,dropped_packets}{type}` and
 * `iota_gossip_peers_connected_peers`, labelled by peer ID and first address (Hornet's `alias`
 * label is left out: peers have none here); this node's score of each peer and the invalid
 * messages it sent under names of our own; and for the node, blocks new from gossip and blocks
 * referenced by milestones, counted from the event stream.
 */

/**
 * Peers described at most. The network bounds its peers already (connections, static peers,
 * and a capped table of banned ones); this keeps a scrape's size bounded whatever it lists.
 * Connected peers come first.
 */
export const MAX_PEER_SERIES = 256;

const PEER_LABELS = ["address", "id"] as const;
type PeerLabel = (typeof PEER_LABELS)[number];

/** The peers a scrape describes: those that exchanged gossip or are connected now. */
function describedPeers(peers: readonly PeerView[]): PeerView[] {
  return peers
    .filter((p) => p.connected || p.gossip !== undefined)
    .sort((a, b) => Number(b.connected) - Number(a.connected))
    .slice(0, MAX_PEER_SERIES);
}

/** The gossip metrics' listeners of the node's events (attached in api/server.ts). */
export interface GossipCounters {
  /** `blockTaken`: a new block from a peer. */
  blockTaken(e: NodeEventMap["blockTaken"]): void;
  /** `milestoneConfirmed`: the blocks it referenced. */
  milestoneConfirmed(e: NodeEventMap["milestoneConfirmed"]): void;
}

/** Registers the gossip metrics; returns the counters its listeners feed. */
export function registerGossipMetrics(scraper: MetricsScraper, node: ApiNode): GossipCounters {
  const registers = [scraper.registry];
  const perPeer = <T extends string>(name: string, help: string, typed: T[]) =>
    new Gauge<PeerLabel | T>({ name, help, labelNames: [...PEER_LABELS, ...typed], registers });

  const blocks = perPeer("iota_gossip_peers_blocks", "Number of blocks by peer.", ["type"]);
  const requests = perPeer("iota_gossip_peers_requests", "Number of requests by peer.", ["type"]);
  const heartbeats = perPeer("iota_gossip_peers_heartbeats", "Number of heartbeats by peer.", ["type"]);
  const dropped = perPeer("iota_gossip_peers_dropped_packets", "Number of dropped packets by peer.", ["type"]);
  const connected = perPeer("iota_gossip_peers_connected_peers", "Are peers connected?", []);
  const invalid = perPeer(
    "iota_gossip_peers_invalid_messages",
    "Invalid blocks and malformed messages by peer (each lowers its score).",
    [],
  );
  const score = perPeer(
    "iota_gossip_peers_score",
    "This node's score of the peer (negative after invalid messages).",
    [],
  );
  const nodeBlocks = new Gauge<"type">({
    name: "iota_gossip_node_blocks",
    help: "Number of blocks: new ones from peers, referenced ones by milestones.",
    labelNames: ["type"],
    registers,
  });

  // O(1) per event; a milestone counts its referenced blocks at once
  let newFromPeers = 0;
  let referenced = 0;
  const counters: GossipCounters = {
    blockTaken: (e) => {
      if (e.source === "peer") newFromPeers++;
    },
    milestoneConfirmed: (e) => {
      referenced += e.result.referenced.length;
    },
  };

  scraper.addCollect(() => {
    nodeBlocks.set({ type: "new" }, newFromPeers);
    nodeBlocks.set({ type: "referenced" }, referenced);
    // peers come and go: only the current ones are described
    for (const g of [blocks, requests, heartbeats, dropped, connected, invalid, score]) g.reset();
    for (const peer of describedPeers(node.network?.peers() ?? [])) {
      const labels = { id: peer.id, address: peer.multiAddresses[0] ?? "" };
      connected.set(labels, peer.connected ? 1 : 0);
      score.set(labels, peer.score);
      const m = peer.gossip?.metrics;
      if (!m) continue;
      const typed = (type: string) => ({ ...labels, type });
      blocks.set(typed("all"), m.receivedBlocks);
      blocks.set(typed("new"), m.newBlocks);
      blocks.set(typed("known"), m.knownBlocks);
      blocks.set(typed("sent"), m.sentBlocks);
      requests.set(typed("received_blocks"), m.receivedBlockRequests);
      requests.set(typed("received_milestones"), m.receivedMilestoneRequests);
      requests.set(typed("sent_blocks"), m.sentBlockRequests);
      requests.set(typed("sent_milestones"), m.sentMilestoneRequests);
      heartbeats.set(typed("received"), m.receivedHeartbeats);
      heartbeats.set(typed("sent"), m.sentHeartbeats);
      dropped.set(typed("sent"), m.droppedPackets);
      invalid.set(labels, m.invalidMessages);
    }
  });
  return counters;
}
