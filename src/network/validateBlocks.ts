import { decodeBlock } from "../codec/block.js";
import { isCodecError } from "../codec/errors.js";
import { bytesEqual } from "../codec/hex.js";
import { blockIdFromBytes, computeMilestoneId } from "../codec/ids.js";
import { validateBlockSyntax } from "../codec/syntactic.js";
import type { Block, MilestonePayload, ProtocolParameters } from "../codec/types.js";
import { ed25519Verify } from "../crypto/ed25519.js";
import { BatchScorer } from "../pow/index.js";
import { BlockErrorCode } from "../tangle/errors.js";

/**
 * The checks a block from a peer passes before this node stores or forwards it: the same as a
 * block submitted over HTTP (tangle/acceptBlock.ts) — decode, syntactic rules (TIP-24 and the
 * payload's TIP, which include the protocol version and the transaction's network ID), then
 * either the coordinator's signature for a milestone (TIP-29) or the PoW score (TIP-12).
 */

export interface ValidatedBlock {
  kind: "valid";
  blockId: Uint8Array;
  block: Block;
  bytes: Uint8Array;
  /** The milestone payload when the block carries one (its signature is verified). */
  milestone?: MilestonePayload;
}

export interface InvalidBlock {
  kind: "invalid";
  /** A CodecErrorCode or BlockErrorCode: what made the block invalid. */
  code: string;
  reason: string;
}

export type BlockVerdict = ValidatedBlock | InvalidBlock;

export interface BlockValidatorContext {
  readonly protocolParameters: ProtocolParameters;
  /** Public keys whose signature makes a milestone valid (the network configuration's). */
  readonly coordinatorPublicKeys: readonly Uint8Array[];
}

/** Steps 1-2: decode, syntax, milestone signature. */
function checkWithoutPow(bytes: Uint8Array, ctx: BlockValidatorContext): BlockVerdict {
  let block: Block;
  try {
    // 1. decode and syntactic rules
    block = decodeBlock(bytes);
    validateBlockSyntax(block, ctx.protocolParameters, { byteLength: bytes.length });
  } catch (e) {
    if (isCodecError(e)) return { kind: "invalid", code: e.code, reason: e.message };
    throw e;
  }
  const blockId = blockIdFromBytes(bytes);
  // 2. a milestone carries the coordinator's signature instead of PoW (TIP-29: nonce 0)
  if (block.payload?.type === 7) {
    const milestone = block.payload;
    const id = computeMilestoneId(milestone);
    const signed = milestone.signatures.some(
      (s) =>
        ctx.coordinatorPublicKeys.some((k) => bytesEqual(k, s.publicKey)) &&
        ed25519Verify(s.publicKey, id, s.signature),
    );
    if (!signed) {
      return {
        kind: "invalid",
        code: BlockErrorCode.InvalidMilestoneSignature,
        reason: "milestone is not signed by the coordinator",
      };
    }
    return { kind: "valid", blockId, block, bytes, milestone };
  }
  return { kind: "valid", blockId, block, bytes };
}

let sharedScorer: BatchScorer | undefined;
function defaultScorer(): BatchScorer {
  sharedScorer ??= new BatchScorer();
  return sharedScorer;
}

/**
 * Checks one block. The PoW scores of blocks checked in the same turn of the event loop (gossip
 * delivers many at once) are computed together on the bit-sliced hasher (`BatchScorer`).
 */
export async function validateBlock(
  bytes: Uint8Array,
  ctx: BlockValidatorContext,
  scorer: BatchScorer = defaultScorer(),
): Promise<BlockVerdict> {
  const verdict = checkWithoutPow(bytes, ctx);
  const minScore = ctx.protocolParameters.minPowScore;
  if (verdict.kind === "invalid" || verdict.milestone || minScore <= 0) return verdict;
  // 3. the PoW score (TIP-12)
  const score = await scorer.score(bytes);
  if (score < minScore) {
    return {
      kind: "invalid",
      code: BlockErrorCode.InsufficientPow,
      reason: `PoW score ${score.toFixed(2)} is below the minimum ${minScore}`,
    };
  }
  return verdict;
}
