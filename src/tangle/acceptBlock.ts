import { decodeOwnedBlock } from "../codec/block.js";
import { bytesEqual } from "../codec/hex.js";
import { blockIdFromBytes, computeMilestoneId } from "../codec/ids.js";
import { validateBlockSyntax } from "../codec/syntactic.js";
import type { Block } from "../codec/types.js";
import { ed25519Verify } from "../crypto/ed25519.js";
import type { VerifyPool } from "../crypto/verifyPool.js";
import { BatchScorer } from "../pow/index.js";
import { BlockError, BlockErrorCode } from "./errors.js";
import { type Tangle, transactionHashesOf } from "./tangle.js";

/**
 * The internal submit path, shared by the HTTP API and the benchmarks: decode (CodecError on bad
 * bytes), syntactic rules (TIP-24 and the payload's TIP), then either the PoW score (TIP-12) or,
 * for a milestone, the coordinator's signature (TIP-29: milestones carry nonce 0), then store
 * and solidify. Returns the block ID and whether the block was new.
 */
export interface AcceptBlockOptions {
  /** Public keys whose signature makes a milestone valid. */
  coordinatorPublicKeys: readonly Uint8Array[];
  /**
   * Threads that pre-verify a transaction's signatures at intake, so confirmation finds them in
   * the signature cache. A bad signature is not a reason to refuse a block: it makes the
   * transaction conflicting at confirmation (TIP-20 semantic validation).
   */
  verifyPool?: VerifyPool;
  /** Scores PoW of concurrent submissions together on the bit-sliced hasher. */
  powScorer?: BatchScorer;
}

/** Signature checks waiting on the verify threads beyond which intake waits for its own. */
const VERIFY_BACKLOG = 4096;

let shared: BatchScorer | undefined;
function sharedScorer(): BatchScorer {
  shared ??= new BatchScorer();
  return shared;
}

/**
 * `checked`, when given, is `given` already decoded and syntactically validated by the caller
 * (the API builds the bytes from it), so neither step runs twice.
 */
export async function acceptBlock(
  tangle: Tangle,
  given: Uint8Array,
  options: AcceptBlockOptions,
  checked?: Block,
): Promise<{ blockId: Uint8Array; isNew: boolean }> {
  const params = tangle.protocolParameters;
  // 1. decode and syntactic validation; the tangle keeps the bytes and the decoded block until a
  // milestone references it, so both share one private copy (the caller's buffer may be reused)
  const bytes = checked ? given : new Uint8Array(given);
  const block = checked ?? decodeOwnedBlock(bytes);
  if (!checked) validateBlockSyntax(block, params, { byteLength: bytes.length });
  const blockId = blockIdFromBytes(bytes);

  // 2. milestone signature, or PoW
  const milestone = block.payload?.type === 7 ? block.payload : undefined;
  if (milestone) {
    const id = computeMilestoneId(milestone);
    const signed = milestone.signatures.some(
      (s) =>
        options.coordinatorPublicKeys.some((k) => bytesEqual(k, s.publicKey)) &&
        ed25519Verify(s.publicKey, id, s.signature),
    );
    if (!signed)
      throw new BlockError(BlockErrorCode.InvalidMilestoneSignature, "milestone is not signed by the coordinator");
    if (milestone.index <= tangle.latestMilestone.index) {
      throw new BlockError(
        BlockErrorCode.StaleMilestone,
        `milestone ${milestone.index} is not above ${tangle.latestMilestone.index}`,
      );
    }
  } else if (params.minPowScore > 0) {
    const score = await (options.powScorer ?? sharedScorer()).score(bytes);
    if (score < params.minPowScore) {
      throw new BlockError(
        BlockErrorCode.InsufficientPow,
        `PoW score ${score.toFixed(2)} is below the minimum ${params.minPowScore}`,
      );
    }
  }

  // 3. store and solidify, while the signatures are checked on other threads
  const checks: Promise<boolean>[] = [];
  const hashes = transactionHashesOf(block, bytes);
  if (options.verifyPool && hashes && block.payload?.type === 6) {
    const message = hashes.signingHash;
    for (const u of block.payload.unlocks) {
      if (u.type === 0)
        checks.push(
          options.verifyPool.verify({ publicKey: u.signature.publicKey, message, signature: u.signature.signature }),
        );
    }
  }
  const isNew = await tangle.storeBlock(blockId, block, bytes, milestone !== undefined, hashes);
  // The answer does not depend on the checks (a bad signature is decided at confirmation, and
  // the coordinator waits for the checks requested before it plans). Intake waits for them only
  // when the threads fall behind, so a flood cannot queue checks without bound.
  if (options.verifyPool && options.verifyPool.backlog > VERIFY_BACKLOG) await Promise.all(checks);
  return { blockId, isNew };
}
