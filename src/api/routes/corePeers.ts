import type { FastifyInstance } from "fastify";
import type { GossipMetrics, PeerView } from "../../network/interface.js";
import type { Heartbeat } from "../../network/messages.js";
import type { ApiNode } from "../apiNode.js";
import { notFound } from "../errors.js";
import { BEARER_JWT } from "../openapi.js";
import { getRoute, type RouteDefinition, registerRoute } from "../routeDefinition.js";
import { arrayOf, closedObject, integer, pathParams, type Schema, string, Tag } from "../schemas/common.js";
import { CORE_V2 } from "./coreParams.js";

/**
 * `GET /api/core/v2/peers` and `GET /api/core/v2/peers/{peerId}`: the node's peers as Hornet
 * lists them (`@iota/iota.js`'s `IPeer`: id, multiAddresses, relation, connected, gossip
 * heartbeat and metrics), plus this node's score of each peer and whether it is banned. Static
 * peers (`--peer`) and banned peers are listed while disconnected too. Protected by default.
 */

const count = (description: string) => integer(description);

function heartbeatSchema(): Schema {
  return closedObject<Heartbeat>(
    {
      solidMilestoneIndex: count("the peer's ledger index"),
      prunedMilestoneIndex: count("the oldest milestone the peer keeps"),
      latestMilestoneIndex: count("the newest milestone the peer knows of"),
      connectedPeers: count("the peer's connected peers"),
      syncedPeers: count("the peer's synced peers"),
    },
    ["solidMilestoneIndex", "prunedMilestoneIndex", "latestMilestoneIndex", "connectedPeers", "syncedPeers"],
    "the peer's last heartbeat",
  );
}

function metricsSchema(): Schema {
  const fields: { [K in keyof GossipMetrics]-?: Schema } = {
    newBlocks: count("blocks from the peer that were new here"),
    knownBlocks: count("blocks from the peer this node had already"),
    receivedBlocks: count("blocks received from the peer"),
    receivedBlockRequests: count("block requests the peer sent"),
    receivedMilestoneRequests: count("milestone requests the peer sent"),
    receivedHeartbeats: count("heartbeats the peer sent"),
    sentBlocks: count("blocks sent to the peer in answers"),
    sentBlockRequests: count("block requests sent to the peer"),
    sentMilestoneRequests: count("milestone requests sent to the peer"),
    sentHeartbeats: count("heartbeats sent to the peer"),
    droppedPackets: count("requests to the peer that failed"),
    invalidMessages: count("invalid blocks and malformed messages from the peer"),
  };
  return closedObject<GossipMetrics>(fields, Object.keys(fields) as (keyof GossipMetrics)[], "gossip counters");
}

function peerSchema(): Schema {
  return closedObject<PeerView>(
    {
      id: string("the peer's libp2p peer ID"),
      multiAddresses: arrayOf(string("a multiaddr"), "the peer's addresses"),
      relation: { type: "string", enum: ["known", "unknown"], description: "known: a static peer (--peer)" },
      connected: { type: "boolean", description: "whether a connection is open now" },
      score: { type: "number", description: "this node's score of the peer (negative after invalid messages)" },
      banned: { type: "boolean", description: "banned peers are disconnected and refused for a while" },
      gossip: closedObject<NonNullable<PeerView["gossip"]>>(
        { heartbeat: heartbeatSchema(), metrics: metricsSchema() },
        ["heartbeat", "metrics"],
        "heartbeat and counters (left out before the peer exchanged anything)",
      ),
    },
    ["id", "multiAddresses", "relation", "connected", "score", "banned"],
    "a peer",
  );
}

export const PEER_ROUTES = {
  peers: getRoute(
    `${CORE_V2}/peers`,
    { summary: "The node's peers", tags: [Tag.Core], security: [{ [BEARER_JWT]: [] }] },
    arrayOf(peerSchema(), "connected peers, static peers and banned peers"),
    [403, 500],
  ),
  peer: getRoute(
    `${CORE_V2}/peers/:peerId`,
    {
      summary: "One peer",
      tags: [Tag.Core],
      security: [{ [BEARER_JWT]: [] }],
      params: pathParams({ peerId: string("a libp2p peer ID") }),
    },
    peerSchema(),
    [400, 403, 404, 500],
  ),
} satisfies Record<string, RouteDefinition>;

export function registerPeerRoutes(app: FastifyInstance, node: ApiNode): void {
  registerRoute(app, PEER_ROUTES.peers, async (): Promise<PeerView[]> => node.network?.peers() ?? []);
  registerRoute(app, PEER_ROUTES.peer, async (request): Promise<PeerView> => {
    const { peerId } = request.params as { peerId: string };
    const peer = node.network?.peers().find((p) => p.id === peerId);
    if (!peer) throw notFound(`no peer ${peerId}`);
    return peer;
  });
}
