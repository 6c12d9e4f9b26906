import { errorGuard, type LedgerNodeError } from "../util/ledgerNodeError.js";

/** Why a block was refused at intake; the API maps every code to 400 unless noted. */
export const BlockErrorCode = {
  /** The block's PoW score is below the network's minimum (TIP-12). */
  InsufficientPow: "BLOCK_INSUFFICIENT_POW",
  /** A milestone payload not signed by the coordinator key(s) of the protocol configuration. */
  InvalidMilestoneSignature: "BLOCK_INVALID_MILESTONE_SIGNATURE",
  /** A milestone whose index is not above the latest one. */
  StaleMilestone: "BLOCK_STALE_MILESTONE",
  /** The node has the block already: no error to a client (201), an error where a block must be new (the coordinator's). */
  Duplicate: "BLOCK_DUPLICATE",
  /** A client's block while the node is behind the network (503: it cannot judge the parents yet). */
  NotSynced: "BLOCK_NOT_SYNCED",
  /** A block that names no parents (they are filled by tip selection) but carries a nonce. */
  NonceWithoutParents: "BLOCK_NONCE_WITHOUT_PARENTS",
  /** A client's block names a parent this node does not know. */
  UnknownParent: "BLOCK_UNKNOWN_PARENT",
  /** A client's block names a parent below max depth: it could never be confirmed. */
  ParentBelowMaxDepth: "BLOCK_PARENT_BELOW_MAX_DEPTH",
  /** The node is putting its state back (a dev revert or reset): 503, submit again once it answered. */
  StateReverting: "BLOCK_STATE_REVERTING",
} as const;
export type BlockErrorCode = (typeof BlockErrorCode)[keyof typeof BlockErrorCode];

/** An error of this layer: the one error class with one of its codes. */
export type BlockError = LedgerNodeError<BlockErrorCode>;
export const isBlockError = errorGuard<BlockError>(BlockErrorCode);

/** Why the tangle refused an operation. */
export const TangleErrorCode = {
  /** A received milestone does not follow the ledger, or white-flag gives other Merkle roots (TIP-4). */
  MilestoneMismatch: "TANGLE_MILESTONE_MISMATCH",
  /** The node follows a network: it holds no coordinator key and issues no milestones. */
  NotCoordinator: "TANGLE_NOT_COORDINATOR",
  /** A signed and stored milestone's batch could not be written: the coordinator stopped. */
  MilestoneNotApplied: "TANGLE_MILESTONE_NOT_APPLIED",
  /** A pruning run was asked for while a requested one is still running, or the node is stopping. */
  PruningBusy: "TANGLE_PRUNING_BUSY",
  /** A milestone's plan and its white-flag result disagree (an output without its proof or its stored record): a bug, never input. */
  ConfirmationInconsistent: "TANGLE_CONFIRMATION_INCONSISTENT",
  /** A proof of inclusion for a block the node does not have (never seen, or pruned): 404. */
  ProofBlockUnknown: "TANGLE_PROOF_BLOCK_UNKNOWN",
  /** A proof of inclusion for a block no milestone references yet: 400, as inx-poi answers. */
  ProofBlockNotReferenced: "TANGLE_PROOF_BLOCK_NOT_REFERENCED",
  /** The milestone or its white-flag order is not on record (pruned, or confirmed before it was kept): 404. */
  ProofConeUnavailable: "TANGLE_PROOF_CONE_UNAVAILABLE",
  /** The stored cone does not hash to the milestone's inclusion Merkle root: a damaged database, never input (500). */
  ProofInconsistent: "TANGLE_PROOF_INCONSISTENT",
  /** A proof of inclusion needs a milestone's tree while the most trees the node builds at a time are being built: 503. */
  ProofBusy: "TANGLE_PROOF_BUSY",
} as const;
export type TangleErrorCode = (typeof TangleErrorCode)[keyof typeof TangleErrorCode];

/** An error of this layer: the one error class with one of its codes. */
export type TangleError = LedgerNodeError<TangleErrorCode>;
export const isTangleError = errorGuard<TangleError>(TangleErrorCode);

/** Why a dev route (`/api/dev/v1`, a node for builders) refused; the API maps each to 400 unless noted. */
export const DevErrorCode = {
  /** A time that is not ahead of the node's clock (timestamps only move forward), or beyond a u32. */
  TimeNotAhead: "DEV_TIME_NOT_AHEAD",
  /** No saved state of that ID (never saved, reverted past, or dropped by a reset): 404. */
  UnknownState: "DEV_UNKNOWN_STATE",
  /** Blocks are being taken in, or another save, revert or reset runs: nothing was done. */
  Busy: "DEV_BUSY",
  /** As many states are saved as the node holds: revert or reset first. */
  TooManyStates: "DEV_TOO_MANY_STATES",
  /** More milestones are waiting to be issued than the coordinator queues. */
  MilestoneQueueFull: "DEV_MILESTONE_QUEUE_FULL",
} as const;
export type DevErrorCode = (typeof DevErrorCode)[keyof typeof DevErrorCode];

export type DevError = LedgerNodeError<DevErrorCode>;
export const isDevError = errorGuard<DevError>(DevErrorCode);
