/**
 * `GET /api/core/v2/peers` and `POST /api/core/v2/peers` (routes/corePeers.ts): a peer as the
 * network layer shows it to the API (Hornet's peer object, `@iota/iota.js`'s `IPeer`, with this
 * node's score of the peer and whether it is banned). Types only, for the dashboard (web/).
 */
export type { GossipMetrics, PeerView as PeerJson } from "../../network/interface.js";
