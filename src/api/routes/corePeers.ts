import type { FastifyInstance } from "fastify";
import type { GossipMetrics, NetworkView, PeerView } from "../../network/interface.js";
import type { Heartbeat } from "../../network/messages.js";
import {
  canonicalPeerId,
  MAX_PEER_ADDRESS_LENGTH,
  MAX_PEER_ALIAS_LENGTH,
  MAX_STATIC_PEERS,
} from "../../network/peeringFile.js";
import type { ApiNode } from "../apiNode.js";
import { notFound, unavailable } from "../errors.js";
import { BEARER_JWT } from "../openapi.js";
import { getRoute, type RouteDefinition, registerRoute } from "../routeDefinition.js";
import {
  arrayOf,
  closedObject,
  integer,
  pathParams,
  patterned,
  responses,
  type Schema,
  string,
  Tag,
} from "../schemas/common.js";
import { CORE_V2 } from "./coreParams.js";

/**
 * `GET /api/core/v2/peers` and `GET /api/core/v2/peers/{peerId}`: the node's peers as Hornet
 * lists them (`@iota/iota.js`'s `IPeer`: id, multiAddresses, alias, relation, connected, gossip
 * heartbeat and metrics), plus this node's score of each peer and whether it is banned. Static
 * peers (`--peer`, or added at runtime) and banned peers are listed while disconnected too.
 *
 * `POST /api/core/v2/peers` (TIP-25 `AddPeerRequest` `{multiAddress, alias?}`) adds a static peer
 * at runtime and answers 200 with the peer, as Hornet's `addPeer` does; it is kept in
 * `<data-dir>/p2p/peering.json` across restarts. `DELETE /api/core/v2/peers/{peerId}` removes a
 * peer: 204, as Hornet's `removePeer`; 404 for a peer the node does not know. Protected by
 * default (`/api/core/v2/peers*`, Hornet's default protected routes).
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
      relation: {
        type: "string",
        enum: ["known", "unknown"],
        description: "known: a static peer (--peer or added at runtime); unknown: a peer that dialled in",
      },
      connected: { type: "boolean", description: "whether a connection is open now" },
      score: { type: "number", description: "this node's score of the peer (negative after invalid messages)" },
      banned: { type: "boolean", description: "banned peers are disconnected and refused for a while" },
      alias: string("the alias the static peer was added with (left out when none)"),
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

const peerIdSchema = () =>
  patterned(
    "^[1-9A-HJ-NP-Za-km-z]{1,128}$|^b[a-z2-7]{1,200}$",
    "a libp2p peer ID (base58btc, or a base32 CID)",
    "a libp2p peer ID",
  );

interface AddPeerBody {
  multiAddress: string;
  alias?: string;
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
      params: pathParams({ peerId: peerIdSchema() }),
    },
    peerSchema(),
    [400, 403, 404, 500],
  ),
  addPeer: {
    method: "POST",
    url: `${CORE_V2}/peers`,
    schema: {
      summary: "Add a static peer",
      description: `Dials the peer now and redials it with backoff when the connection is lost, like --peer; kept across restarts (<data-dir>/p2p/peering.json). The multiaddr must be a TCP address ending in /p2p/<peer id>; at most ${MAX_STATIC_PEERS} static peers. Answers once the first dial has ended (or after 5 s), with the peer as GET /peers/{peerId} shows it. Adding a static peer again gives it the new address and alias.`,
      tags: [Tag.Core],
      security: [{ [BEARER_JWT]: [] }],
      body: closedObject<AddPeerBody>(
        {
          multiAddress: {
            type: "string",
            minLength: 1,
            maxLength: MAX_PEER_ADDRESS_LENGTH,
            description: "the peer's multiaddr, e.g. /ip4/10.0.0.2/tcp/15600/p2p/12D3KooW…",
          },
          alias: { type: "string", maxLength: MAX_PEER_ALIAS_LENGTH, description: "a name for the peer" },
        },
        ["multiAddress"],
        "the peer to add (TIP-25 AddPeerRequest)",
      ),
      response: responses({ 200: peerSchema() }, [400, 403, 500, 503]),
    },
  },
  removePeer: {
    method: "DELETE",
    url: `${CORE_V2}/peers/:peerId`,
    schema: {
      summary: "Remove a peer",
      description:
        "Disconnects the peer and forgets it as a static peer (also in <data-dir>/p2p/peering.json; a --peer one comes back with the flag at the next start). 404 for a peer that is neither connected, static nor banned.",
      tags: [Tag.Core],
      security: [{ [BEARER_JWT]: [] }],
      params: pathParams({ peerId: peerIdSchema() }),
      response: responses({ 204: { type: "null", description: "the peer is removed" } }, [400, 403, 404, 500, 503]),
    },
  },
} satisfies Record<string, RouteDefinition>;

/** The P2P layer, or 503 on a node that runs without it. */
function networkOf(node: ApiNode): NetworkView {
  if (!node.network) throw unavailable("this node runs without its P2P layer");
  return node.network;
}

export function registerPeerRoutes(app: FastifyInstance, node: ApiNode): void {
  registerRoute(app, PEER_ROUTES.peers, async (): Promise<PeerView[]> => node.network?.peers() ?? []);
  registerRoute(app, PEER_ROUTES.peer, async (request): Promise<PeerView> => {
    const { peerId } = request.params as { peerId: string };
    // either spelling of an ID (base58btc or a CIDv1) names the same peer, as for DELETE
    const id = canonicalPeerId(peerId, "peerId");
    const peer = node.network?.peers().find((p) => p.id === id);
    if (!peer) throw notFound(`no peer ${peerId}`);
    return peer;
  });
  registerRoute(app, PEER_ROUTES.addPeer, async (request): Promise<PeerView> => {
    const { multiAddress, alias } = request.body as AddPeerBody;
    return networkOf(node).addPeer(multiAddress, alias);
  });
  registerRoute(app, PEER_ROUTES.removePeer, async (request, reply) => {
    const { peerId } = request.params as { peerId: string };
    await networkOf(node).removePeer(peerId);
    return reply.code(204).send();
  });
}
