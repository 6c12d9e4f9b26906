/**
 * The peer-to-peer layer (see network.ts): identity, peering, block gossip with validation and
 * peer scoring, the request/response protocol, solidification and sync over the network.
 */
import "./polyfill.js";

export { isNetworkError, NetworkError, NetworkErrorCode } from "./errors.js";
export { blocksTopic } from "./gossip.js";
export { identityPath, loadOrCreateIdentity } from "./identity.js";
export type { GossipMetrics, NetworkView, PeerView, SyncStatus } from "./interface.js";
export { decodeMessage, encodeMessage, type Heartbeat, type Message, MessageType } from "./messages.js";
export { milestoneCone } from "./milestoneCone.js";
export { Network, type NetworkDeps, type NetworkLogger } from "./network.js";
export {
  type GenesisOutput,
  NETWORK_CONFIG_FILE,
  type NetworkConfig,
  networkConfigFromJson,
  networkConfigPath,
  networkConfigToJson,
  peersForFile,
  readNetworkConfig,
  writeNetworkConfig,
} from "./networkConfig.js";
export { defaultNetworkOptions, type NetworkOptions } from "./options.js";
export { backoffDelay, parsePeerAddress } from "./peering.js";
export { PeerScores } from "./peerScores.js";
export { requestProtocolId } from "./protocol.js";
