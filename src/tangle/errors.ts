/** Why a block was refused at intake; the API maps every code to 400 unless noted. */
export enum BlockErrorCode {
  /** The block's PoW score is below the network's minimum (TIP-12). */
  InsufficientPow = "BLOCK_INSUFFICIENT_POW",
  /** A milestone payload not signed by the coordinator key(s) of the protocol configuration. */
  InvalidMilestoneSignature = "BLOCK_INVALID_MILESTONE_SIGNATURE",
  /** A milestone whose index is not above the latest one. */
  StaleMilestone = "BLOCK_STALE_MILESTONE",
}

export class BlockError extends Error {
  readonly code: BlockErrorCode;
  constructor(code: BlockErrorCode, message: string) {
    super(message);
    this.name = "BlockError";
    this.code = code;
  }
}
