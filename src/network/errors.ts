import { errorGuard, type LedgerNodeError } from "../util/ledgerNodeError.js";

/** Why the network layer refused something; tests and logs assert the code, never the message. */
export const NetworkErrorCode = {
  /** A request/response message that does not decode (unknown type, wrong length). */
  MalformedMessage: "NETWORK_MALFORMED_MESSAGE",
  /** A peer answered with something other than what was asked (another block, a short cone). */
  UnexpectedResponse: "NETWORK_UNEXPECTED_RESPONSE",
  /** A peer's answer went beyond what the request asks for (messages or bytes); its stream is reset. */
  AnswerTooLarge: "NETWORK_ANSWER_TOO_LARGE",
  /** No connected peer can serve the request (none has the milestone, or there are no peers). */
  NoPeer: "NETWORK_NO_PEER",
  /** The peer did not answer in time. */
  Timeout: "NETWORK_TIMEOUT",
  /**
   * The peer's answer ended before it was whole (its stream or connection closed under it, as
   * when the peer shuts down): a request that failed, as a timed-out one did, not a wrong answer.
   */
  Interrupted: "NETWORK_INTERRUPTED",
  /** The peer has not got the block or milestone asked for. */
  NotFound: "NETWORK_NOT_FOUND",
  /** The identity key file exists but cannot be read as a libp2p private key. */
  InvalidIdentity: "NETWORK_INVALID_IDENTITY",
  /** The network configuration file is missing, unreadable or contradicts the database. */
  InvalidNetworkConfig: "NETWORK_INVALID_CONFIG",
  /** A `--peer` address is not a multiaddr libp2p can dial (or, from the API, names no peer ID). */
  InvalidPeerAddress: "NETWORK_INVALID_PEER_ADDRESS",
  /** `<data-dir>/p2p/peering.json` (the static peers added at runtime) does not read as a list of peers. */
  InvalidPeeringFile: "NETWORK_INVALID_PEERING_FILE",
  /** A peer to remove is neither connected, static nor banned here. */
  UnknownPeer: "NETWORK_UNKNOWN_PEER",
  /** Adding a static peer would go beyond the bound of static peers (`MAX_STATIC_PEERS`). */
  TooManyPeers: "NETWORK_TOO_MANY_PEERS",
  /** The node is behind the network and cannot take blocks yet. */
  NotSynced: "NETWORK_NOT_SYNCED",
} as const;
export type NetworkErrorCode = (typeof NetworkErrorCode)[keyof typeof NetworkErrorCode];

/** An error of this layer: the one error class with one of its codes. */
export type NetworkError = LedgerNodeError<NetworkErrorCode>;
export const isNetworkError = errorGuard<NetworkError>(NetworkErrorCode);
