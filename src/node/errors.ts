import { errorGuard, type LedgerNodeError } from "../util/ledgerNodeError.js";

/** Why the node refused to create or start from what it was given; tests assert the code. */
export const NodeErrorCode = {
  /** A network file (`init --network`) breaks a rule; the message names the field. */
  InvalidNetworkFile: "NODE_INVALID_NETWORK_FILE",
  /** A key file cannot be read or does not hold a 32-byte hex secret. */
  InvalidKeyFile: "NODE_INVALID_KEY_FILE",
  /** `init` was pointed at a data directory that already holds a node. */
  DataDirInUse: "NODE_DATA_DIR_IN_USE",
  /** A dev mnemonic (`--dev-mnemonic`, a network file's `devAccounts.mnemonic`) is not BIP-39. */
  InvalidMnemonic: "NODE_INVALID_MNEMONIC",
} as const;
export type NodeErrorCode = (typeof NodeErrorCode)[keyof typeof NodeErrorCode];

/** An error of this layer: the one error class with one of its codes. */
export type NodeError = LedgerNodeError<NodeErrorCode>;
export const isNodeError = errorGuard<NodeError>(NodeErrorCode);
