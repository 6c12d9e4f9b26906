import { toHex } from "../codec/hex.js";
import { type Output, PayloadType, type ProtocolParameters, type TransactionPayload } from "../codec/types.js";
import { merkleRoot } from "../crypto/merkle.js";
import { ConflictReason } from "./conflictReason.js";
import type { ConeBlock } from "./pastCone.js";

/**
 * White-flag confirmation (TIP-2) as a pure function: the milestone's past cone (in TIP-2 order)
 * and the ledger outputs its transactions reference go in; the ledger mutations, each block's
 * inclusion state and the two Merkle roots (TIP-4, TIP-29) come out. Nothing is read or written
 * here, so the caller can apply the result in one atomic batch.
 */

/** An output as the ledger holds it. */
export interface LedgerOutput {
  outputId: Uint8Array; // 34
  output: Output;
  outputBytes: Uint8Array;
  /** Block whose transaction created it (the milestone block for genesis/snapshot outputs: zero ID). */
  blockId: Uint8Array;
  bookedIndex: number;
  bookedTimestamp: number;
}

/** State of an input the cone references, as read from the ledger before the walk. */
export type InputState = { state: "unspent"; output: LedgerOutput } | { state: "spent" } | { state: "missing" };

/** Inclusion state codes (TIP-25 `ledgerInclusionState`). */
export const LedgerInclusion = { NoTransaction: 0, Included: 1, Conflicting: 2 } as const;

/** Per-transaction facts the walk needs but does not compute (IDs are hashed by the caller once). */
export interface ConeTransaction {
  transactionId: Uint8Array;
  /** Output IDs of the transaction's inputs, in input order. */
  inputIds: Uint8Array[];
  /** Output IDs of the transaction's outputs, in output order. */
  outputIds: Uint8Array[];
  /** Encoded outputs, in output order (for the ledger and the proofs). */
  outputBytes: Uint8Array[];
  /** Essence signing hash when known already (hashed from the block bytes at intake). */
  signingHash?: Uint8Array;
}

export type SemanticValidator = (
  tx: TransactionPayload,
  ctx: {
    transactionId: Uint8Array;
    inputs: LedgerOutput[];
    milestoneIndex: number;
    milestoneTimestamp: number;
    protocolParameters: ProtocolParameters;
    /** Serialized forms the walk already has (see SemanticValidationContext.precomputed). */
    signingHash?: Uint8Array;
    outputBytes: readonly Uint8Array[];
  },
) => { ok: true } | { ok: false; conflictReason: number; details: string };

export interface WhiteFlagInput {
  milestoneIndex: number;
  milestoneTimestamp: number;
  protocolParameters: ProtocolParameters;
  /** The newly referenced blocks in TIP-2 order (`pastConeInWhiteFlagOrder`). */
  cone: ConeBlock[];
  /** For each cone block carrying a transaction, keyed by block ID hex. */
  transactions: Map<string, ConeTransaction>;
  /** Ledger state of every input the cone's transactions name, keyed by output ID hex. */
  inputs: Map<string, InputState>;
  validate: SemanticValidator;
}

export interface ReferencedBlock {
  blockId: Uint8Array;
  /** The block ID in hex, when the cone block came with it (ConeBlock.key). */
  key?: string;
  /** The block's parents (from the walk's decoded block: readers of the result need not load it). */
  parents: readonly Uint8Array[];
  /** The index of the milestone the block carries, for a milestone block. */
  milestoneIndex?: number;
  whiteFlagIndex: number;
  /** The type of the block's payload; undefined for a block without one. */
  payloadType?: number;
  inclusionState: number;
  conflictReason: number;
  details?: string;
}

export interface SpentOutput {
  output: LedgerOutput;
  spendingTransactionId: Uint8Array;
}

export interface IncludedTransaction {
  blockId: Uint8Array;
  transactionId: Uint8Array;
  tx: TransactionPayload;
  outputBytes: Uint8Array[];
}

export interface WhiteFlagResult {
  referenced: ReferencedBlock[];
  /** Outputs created by this milestone and still unspent at its end. */
  created: LedgerOutput[];
  /** Outputs this milestone consumed that existed before it. */
  consumed: SpentOutput[];
  /** Outputs created and consumed within this milestone (booked and spent at the same index). */
  createdAndConsumed: SpentOutput[];
  included: IncludedTransaction[];
  inclusionMerkleRoot: Uint8Array;
  appliedMerkleRoot: Uint8Array;
}

/** White-flag's ledger part: everything but the two Merkle roots. */
export type WhiteFlagMutations = Omit<WhiteFlagResult, "inclusionMerkleRoot" | "appliedMerkleRoot">;

/** White-flag, Merkle roots included (TIP-2, TIP-4, TIP-29). */
export function whiteFlag(input: WhiteFlagInput): WhiteFlagResult {
  const mutations = whiteFlagMutations(input);
  const [inclusionMerkleRoot, appliedMerkleRoot] = whiteFlagRootEntries(input.cone, mutations).map(merkleRoot) as [
    Uint8Array,
    Uint8Array,
  ];
  return { ...mutations, inclusionMerkleRoot, appliedMerkleRoot };
}

/**
 * What the two roots are taken over (TIP-29): the inclusion root over every newly referenced
 * block, the applied root over the blocks whose transactions were applied, both in white-flag
 * order. Separate so a caller can hash them elsewhere (a worker thread) while it goes on.
 */
export function whiteFlagRootEntries(cone: readonly ConeBlock[], mutations: WhiteFlagMutations): Uint8Array[][] {
  return [cone.map((c) => c.blockId), mutations.included.map((t) => t.blockId)];
}

/** White-flag without the Merkle roots: the walk, the semantic checks and the ledger mutations. */
export function whiteFlagMutations(input: WhiteFlagInput): WhiteFlagMutations {
  const { milestoneIndex, milestoneTimestamp } = input;
  const referenced: ReferencedBlock[] = [];
  const included: IncludedTransaction[] = [];
  // Outputs created in this milestone, still unspent within it.
  const created = new Map<string, LedgerOutput>();
  // Inputs consumed in this milestone (pre-existing or created here).
  const consumedHere = new Set<string>();
  const consumed: SpentOutput[] = [];
  const createdAndConsumed: SpentOutput[] = [];

  cones: for (let whiteFlagIndex = 0; whiteFlagIndex < input.cone.length; whiteFlagIndex++) {
    const cone = input.cone[whiteFlagIndex]!;
    const payload = cone.block.payload;
    const blockKey = cone.key ?? toHex(cone.blockId);
    const meta = input.transactions.get(blockKey);
    if (payload?.type !== PayloadType.Transaction || meta === undefined) {
      referenced.push({
        blockId: cone.blockId,
        key: cone.key,
        parents: cone.block.parents,
        ...(payload?.type === PayloadType.Milestone ? { milestoneIndex: payload.index } : {}),
        whiteFlagIndex,
        payloadType: payload?.type,
        inclusionState: LedgerInclusion.NoTransaction,
        conflictReason: 0,
      });
      continue;
    }
    const conflict = (conflictReason: number, details: string) =>
      referenced.push({
        blockId: cone.blockId,
        key: cone.key,
        parents: cone.block.parents,
        whiteFlagIndex,
        payloadType: payload?.type,
        inclusionState: LedgerInclusion.Conflicting,
        conflictReason,
        details,
      });

    // 1. Resolve every input: created earlier in this cone, or from the ledger as it was before.
    const inputs: LedgerOutput[] = [];
    for (const id of meta.inputIds) {
      const key = toHex(id);
      if (consumedHere.has(key)) {
        conflict(ConflictReason.InputUtxoAlreadySpentInThisMilestone, `input ${key} already spent in this milestone`);
        continue cones;
      }
      const fresh = created.get(key);
      if (fresh) {
        inputs.push(fresh);
        continue;
      }
      const state = input.inputs.get(key);
      if (state === undefined || state.state === "missing") {
        conflict(ConflictReason.InputUtxoNotFound, `input ${key} not found`);
        continue cones;
      }
      if (state.state === "spent") {
        conflict(ConflictReason.InputUtxoAlreadySpent, `input ${key} already spent`);
        continue cones;
      }
      inputs.push(state.output);
    }

    // 2. Semantic validation at the milestone's timestamp (TIP-20, TIP-18).
    const verdict = input.validate(payload, {
      transactionId: meta.transactionId,
      inputs,
      milestoneIndex,
      milestoneTimestamp,
      protocolParameters: input.protocolParameters,
      signingHash: meta.signingHash,
      outputBytes: meta.outputBytes,
    });
    if (!verdict.ok) {
      conflict(verdict.conflictReason, verdict.details);
      continue;
    }

    // 3. Apply: consume inputs, book outputs.
    for (const spent of inputs) {
      const key = toHex(spent.outputId);
      consumedHere.add(key);
      const record = { output: spent, spendingTransactionId: meta.transactionId };
      if (created.delete(key)) createdAndConsumed.push(record);
      else consumed.push(record);
    }
    payload.essence.outputs.forEach((output, i) => {
      const outputId = meta.outputIds[i]!;
      created.set(toHex(outputId), {
        outputId,
        output,
        outputBytes: meta.outputBytes[i]!,
        blockId: cone.blockId,
        bookedIndex: milestoneIndex,
        bookedTimestamp: milestoneTimestamp,
      });
    });
    included.push({
      blockId: cone.blockId,
      transactionId: meta.transactionId,
      tx: payload,
      outputBytes: meta.outputBytes,
    });
    referenced.push({
      blockId: cone.blockId,
      key: cone.key,
      parents: cone.block.parents,
      whiteFlagIndex,
      payloadType: payload.type,
      inclusionState: LedgerInclusion.Included,
      conflictReason: 0,
    });
  }

  return {
    referenced,
    created: [...created.values()],
    consumed,
    createdAndConsumed,
    included,
  };
}
