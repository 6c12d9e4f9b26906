import { decodeBlock } from "../../../src/codec/block";
import { bytesEqual, fromHex, toHex } from "../../../src/codec/hex";
import {
  aliasIdFromOutputId,
  blockIdFromBytes,
  computeBlockId,
  computeMilestoneId,
  computeTransactionId,
} from "../../../src/codec/ids";
import {
  type InclusionProof,
  inclusionProofContains,
  inclusionProofFromJson,
  inclusionProofRoot,
} from "../../../src/codec/inclusionProof";
import { milestoneFromJson } from "../../../src/codec/milestone";
import {
  GENESIS_TRANSACTION_COMMITMENT,
  merkleProofNodeFromJson,
  type OutputIdProof,
  transactionCommitment,
  verifyOutputIdProof,
} from "../../../src/codec/outputIdProof";
import { decodeOutput, encodeOutput, outputToJson } from "../../../src/codec/outputs/output";
import { PayloadType, type TransactionPayload } from "../../../src/codec/types";
import {
  type MerkleProofNode,
  merkleLeafHash,
  merkleProof,
  merkleRootFromLeafHashes,
} from "../../../src/crypto/merkle";
import type { MilestonePayload, OutputFull } from "../api";

/**
 * The app's one codec: the node's own (src/codec), in the page, loaded on demand (`loadCodec`,
 * codecLoader.ts) by the pages that must hash or decode bytes (the explorer's, the live
 * tangle), so the rest of the dashboard never downloads it. BLAKE2b-256 is hash-wasm's
 * WebAssembly (src/crypto/blake2b.ts), synchronous once loaded, which the dashboard's CSP
 * allows with 'wasm-unsafe-eval' (docs/decisions.md, Dashboard).
 */

/** What the live tangle draws of a block (tangle/model.ts). */
export interface BlockSummary {
  /** The block ID, 0x-prefixed lower-case hex. */
  id: string;
  /** The parents' block IDs, as the block lists them. */
  parents: string[];
  /** The payload's type; null for a block without payload. */
  payloadType: number | null;
  /** A milestone's index (payload type 7). */
  milestoneIndex?: number;
}

/**
 * A block's ID (BLAKE2b-256 of its bytes, TIP-24) and what the live tangle draws of it, from the
 * bytes the `blocks` topic sends; throws a CodecError naming the field when they are not a block.
 */
export function summarizeBlock(bytes: Uint8Array): BlockSummary {
  const block = decodeBlock(bytes);
  const id = toHex(blockIdFromBytes(bytes));
  const parents = block.parents.map(toHex);
  const payload = block.payload;
  const payloadType = payload?.type ?? null;
  return payload?.type === PayloadType.Milestone
    ? { id, parents, payloadType, milestoneIndex: payload.index }
    : { id, parents, payloadType };
}

/** The ID of the transaction a block carries (TIP-20: BLAKE2b-256 of the payload), or undefined without one. */
export function transactionIdOfBlock(blockBytes: Uint8Array): string | undefined {
  const block = decodeBlock(blockBytes);
  return block.payload?.type === PayloadType.Transaction ? toHex(computeTransactionId(block.payload)) : undefined;
}

/**
 * The ID of an alias or NFT whose output carries the zero ID: BLAKE2b-256 of the output ID that
 * created it (TIP-18; the same rule for both chains).
 */
export function chainIdOfOutput(outputId: string): string {
  return toHex(aliasIdFromOutputId(fromHex(outputId, "outputId", 34)));
}

/** One step of a proof check, in words. */
export interface ProofCheck {
  /** What was checked, as a sentence that holds when `ok`. */
  claim: string;
  ok: boolean;
  /** Why it failed, in words. */
  failure?: string;
}

/** The outcome of checking an output ID proof: every step, and the verdict. */
export interface ProofVerdict {
  verified: boolean;
  checks: ProofCheck[];
}

/**
 * The steps of a proof check as they are taken: `check` runs a test (a failure's reason, or
 * undefined when the claim holds; a throw is a failure too) and records it under its claim.
 */
function checklist(): { checks: ProofCheck[]; check: (claim: string, test: () => string | undefined) => boolean } {
  const checks: ProofCheck[] = [];
  const check = (claim: string, test: () => string | undefined): boolean => {
    let failure: string | undefined;
    try {
      failure = test();
    } catch (e) {
      failure = (e as Error).message;
    }
    checks.push({ claim, ok: failure === undefined, ...(failure === undefined ? {} : { failure }) });
    return failure === undefined;
  };
  return { checks, check };
}

/** JSON text with object keys sorted, so two equal values compare equal whatever their key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const o = value as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value);
}

/** Two proof trees node for node. */
function sameProof(a: MerkleProofNode, b: MerkleProofNode): boolean {
  if (a.type !== b.type) return false;
  if (a.type === 0 && b.type === 0) return sameProof(a.l, b.l) && sameProof(a.r, b.r);
  return a.type !== 0 && b.type !== 0 && bytesEqual(a.hash, b.hash);
}

/** What a proof check is given: all of it read from the node's public routes. */
export interface ProofInputs {
  outputId: string;
  /** `GET /api/core/v2/outputs/{id}` with the serializer media type: the output's bytes. */
  outputBytes: Uint8Array;
  /** The output as the page shows it (TIP-25 JSON of `GET /api/core/v2/outputs/{id}`). */
  outputJson: unknown;
  /** The v3 read with the proof. */
  full: OutputFull;
  /** The bytes of the block that included the creating transaction; none for an output without one (genesis). */
  includedBlockBytes?: Uint8Array;
}

/**
 * Checks the v3 read's output ID proof against the output's bytes (docs/decisions.md, The v3
 * full-output read; TIP-45's proof over the transaction's outputs):
 * 1. the bytes decode to the output the page shows;
 * 2. the proof is of this output ID's index;
 * 3. its value hash is the leaf hash of these bytes, H(0x00 ‖ bytes) (TIP-4);
 * then, with the creating transaction (from its including block):
 * 4. the transaction hashes to the output ID's transaction ID (TIP-20), so the output ID names it;
 * 5. the transaction commitment is that of its essence without the outputs;
 * 6. the proof is the audit path of output `index` in the Merkle tree of its outputs, so its
 *    root is the root over the transaction's outputs.
 * An output with no creating transaction on record (genesis) has the genesis form instead:
 * H("genesis") and the output's leaf alone.
 */
export function checkOutputIdProof(input: ProofInputs): ProofVerdict {
  const { checks, check } = checklist();
  const idBytes = fromHex(input.outputId, "outputId", 34);
  const index = idBytes[32]! | (idBytes[33]! << 8);
  const transactionId = idBytes.subarray(0, 32);
  const genesis = transactionId.every((b) => b === 0);

  check("The output's bytes decode to the output shown.", () =>
    canonical(outputToJson(decodeOutput(input.outputBytes))) === canonical(input.outputJson)
      ? undefined
      : "the bytes the node sent decode to another output than its JSON",
  );
  let proof: OutputIdProof | undefined;
  const proofOk = check(`The proof is of output ${index} of its transaction.`, () => {
    const p = input.full.outputIdProof;
    proof = {
      slot: p.slot,
      outputIndex: p.outputIndex,
      transactionCommitment: fromHex(p.transactionCommitment, "transactionCommitment", 32),
      outputCommitmentProof: merkleProofNodeFromJson(p.outputCommitmentProof, "outputCommitmentProof"),
    };
    if (input.full.metadata.outputId.toLowerCase() !== input.outputId.toLowerCase()) {
      return `the proof was read for ${input.full.metadata.outputId}`;
    }
    return p.outputIndex === index ? undefined : `the proof names output ${p.outputIndex}`;
  });
  if (!proofOk || !proof) return { verified: false, checks };
  const p = proof;
  check("The proof's value hash is the hash of these bytes.", () =>
    verifyOutputIdProof(p, input.outputBytes) ? undefined : "the proof carries another leaf than these bytes' hash",
  );

  if (genesis) {
    check(
      'No transaction created this output (genesis): the commitment is H("genesis") and the proof is its leaf alone.',
      () =>
        bytesEqual(p.transactionCommitment, GENESIS_TRANSACTION_COMMITMENT) && p.outputCommitmentProof.type === 2
          ? undefined
          : "the proof of a genesis output does not have the genesis form",
    );
  } else {
    let tx: TransactionPayload | undefined;
    check("The transaction that created it hashes to the output ID's transaction ID.", () => {
      if (!input.includedBlockBytes) return "the block that included the transaction was not read";
      const payload = decodeBlock(input.includedBlockBytes).payload;
      if (payload?.type !== PayloadType.Transaction) return "the including block carries no transaction";
      tx = payload;
      return bytesEqual(computeTransactionId(payload), transactionId)
        ? undefined
        : "the including block's transaction has another ID";
    });
    if (tx) {
      const essence = tx.essence;
      check("The transaction commitment is that of this transaction.", () =>
        bytesEqual(transactionCommitment(essence), p.transactionCommitment)
          ? undefined
          : "the commitment differs from the hash of the transaction's essence",
      );
      const n = essence.outputs.length;
      check(`The proof is the path to output ${index} among the transaction's ${n} outputs.`, () => {
        if (index >= n) return `the transaction has ${n} outputs`;
        const leaves = essence.outputs.map((o) => merkleLeafHash(encodeOutput(o)));
        const root = merkleRootFromLeafHashes(leaves);
        if (!verifyOutputIdProof(p, input.outputBytes, root)) {
          return "the proof's root is not the Merkle root of the transaction's outputs";
        }
        return sameProof(p.outputCommitmentProof, merkleProof(leaves, index))
          ? undefined
          : `the proof leads to another position than output ${index}`;
      });
    }
  }
  return { verified: checks.every((c) => c.ok), checks };
}

/** What a check of a proof of inclusion is given: all of it read from the node's public routes. */
export interface InclusionProofInputs {
  /** The block the page shows. */
  blockId: string;
  /** `GET /api/poi/v1/create/{blockId}` (inx-poi's format). */
  proof: unknown;
  /** The milestone this node confirmed at the index the proof names (`GET /api/core/v2/milestones/by-index/{index}`). */
  milestone?: MilestonePayload;
  /** The node's verdict (`POST /api/poi/v1/validate`): the coordinator's signatures are checked there. */
  nodeSaysValid?: boolean;
}

/**
 * Checks a proof of inclusion (inx-poi's; docs/decisions.md, Proofs of inclusion) in the page:
 * 1. it reads as one (`{milestone, block, proof}`, the audit path at most 32 levels deep);
 * 2. its block hashes to this block's ID (TIP-24);
 * 3. the path holds that ID as its value;
 * 4. the path hashes to the milestone's inclusion Merkle root (TIP-4, with the page's BLAKE2b);
 * 5. its milestone is the one this node confirmed at that index (same milestone ID);
 * 6. the node found the threshold of valid coordinator signatures on it (Ed25519 is the node's
 *    to check: the page has no verifier of its own).
 */
export function checkInclusionProof(input: InclusionProofInputs): ProofVerdict {
  const { checks, check } = checklist();
  let proof: InclusionProof | undefined;
  const read = check("The answer reads as a proof of inclusion.", () => {
    proof = inclusionProofFromJson(input.proof, "proof");
    return undefined;
  });
  if (!read || !proof) return { verified: false, checks };
  const p = proof;
  const blockId = fromHex(input.blockId, "blockId", 32);
  check("Its block hashes to this block's ID.", () =>
    bytesEqual(computeBlockId(p.block), blockId) ? undefined : "the proof carries another block",
  );
  check("The Merkle path starts at this block's ID.", () =>
    inclusionProofContains(p.proof, blockId) ? undefined : "the path does not hold this block's ID",
  );
  check(`The path hashes to the inclusion Merkle root of milestone ${p.milestone.index}.`, () =>
    bytesEqual(inclusionProofRoot(p.proof), p.milestone.inclusionMerkleRoot)
      ? undefined
      : "the path's root is not the milestone's inclusion Merkle root",
  );
  check(`The milestone is milestone ${p.milestone.index} as this node confirmed it.`, () => {
    if (!input.milestone) return "the node's milestone was not read";
    const stored = milestoneFromJson(input.milestone, "milestone");
    return bytesEqual(computeMilestoneId(stored), computeMilestoneId(p.milestone))
      ? undefined
      : "the node confirmed another milestone at this index";
  });
  check("The node found it signed by the coordinator (POST /api/poi/v1/validate).", () =>
    input.nodeSaysValid === true ? undefined : "the node answered that the proof is not valid",
  );
  return { verified: checks.every((c) => c.ok), checks };
}
