import type { Output, ProtocolParameters } from "../../codec/types.js";
import type { ConflictReason } from "../conflictReason.js";

/**
 * An output a transaction consumes, as the ledger booked it. Stardust unlock conditions depend
 * on the confirming milestone only, so the booking fields are informative and may be absent.
 */
export interface ConsumedOutput {
  /** Transaction ID (32) ‖ output index (u16 LE): 34 bytes. */
  outputId: Uint8Array;
  output: Output;
  /** Index of the milestone that booked the output. */
  bookedMilestoneIndex?: number;
  /** Unix time (seconds) of that milestone. */
  bookedTimestamp?: number;
}

/** Everything semantic validation needs beside the transaction itself. */
export interface SemanticValidationContext {
  /** ID of the transaction under validation; new chain IDs derive from it. */
  transactionId: Uint8Array;
  /** The consumed outputs, one per essence input and in input order. */
  inputs: readonly ConsumedOutput[];
  /** Unix time (seconds) of the confirming milestone: the clock of timelocks and expirations. */
  milestoneTimestamp: number;
  /** Index of the confirming milestone. */
  milestoneIndex: number;
  /** The parameters in force at the confirming milestone (rent structure for storage deposits). */
  protocolParameters: ProtocolParameters;
  /**
   * What the caller already has in serialized form, so validation need not encode it again:
   * the essence signing hash, the consumed outputs' bytes (input order), the created outputs'
   * bytes (output order). Each must match the transaction; they only save work.
   */
  precomputed?: {
    signingHash?: Uint8Array;
    inputBytes?: readonly Uint8Array[];
    outputBytes?: readonly Uint8Array[];
  };
}

/** The verdict: applied, or conflicting with the reason Hornet would report. */
export type SemanticValidationResult = { ok: true } | { ok: false; conflictReason: ConflictReason; details: string };
