import { encodeBlock } from "../codec/block.js";
import { toHex } from "../codec/hex.js";
import { validateBlockSyntax } from "../codec/syntactic.js";
import { type Block, PayloadType, type ProtocolParameters } from "../codec/types.js";
import { minerPool, powDigest } from "../pow/index.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { BlockErrorCode } from "./errors.js";
import type { BlockSource } from "./events.js";

/**
 * The block-completion step beside the intake (step 2 of `BlockIntake.complete`, ARCHITECTURE.md,
 * The life of a block): what the node does to a block it makes or a client hands it before the
 * intake judges it. Every block the node makes or mines goes through here: the API's, the
 * faucet's, the coordinator's checkpoints and milestones.
 *
 * - Parents: a draft that names none is given the tips (`Tangle.selectParents`). A client that
 *   names no parents cannot have done PoW over them, so a non-zero nonce without parents is
 *   refused (as Hornet does).
 * - Syntax (TIP-24 and the payload's TIP), on the encoded bytes.
 * - A client's block (source `api`) names known parents, none below max depth: a block on a cone
 *   below max depth could never be confirmed (docs/decisions.md, Threats). Parents the node chose
 *   itself (a draft without them, the coordinator's blocks) are its non-lazy tips or its latest
 *   milestone, known and above max depth by construction (`TipPool.select`), so they are not
 *   asked again.
 *
 * Mining (when the PoW score falls short and a miner is given) is the intake's step 3, so the
 * score is computed once (BlockIntake.judge).
 */

/** A block to complete: whole (it names its parents), or built once the tips are chosen. */
export type BlockDraft = Block | ((parents: Uint8Array[]) => Block);

/** Mines a nonce for block bytes (nonce 0) to the target score. */
export type Miner = (bytes: Uint8Array, targetScore: number) => Promise<bigint>;

/** What completion reads of the tangle. */
export interface CompletionTangle {
  readonly protocolParameters: ProtocolParameters;
  selectParents(): Uint8Array[];
  hasBlock(blockId: Uint8Array): Promise<boolean>;
  isSolidEntryPoint(blockId: Uint8Array): boolean;
  isBelowMaxDepth(blockId: Uint8Array): Promise<boolean>;
}

/**
 * The draft with its parents, encoded and syntactically valid. Throws a codec error (syntax) or a
 * BlockError (parents); the intake turns either into a rejected verdict.
 */
export async function completeBlock(
  tangle: CompletionTangle,
  draft: BlockDraft,
  source: BlockSource,
): Promise<{ block: Block; bytes: Uint8Array }> {
  const params = tangle.protocolParameters;
  const chosenHere = typeof draft === "function";
  const block = chosenHere ? draft(tangle.selectParents()) : draft;
  if (chosenHere && block.nonce !== 0n && block.payload?.type !== PayloadType.Milestone) {
    throw new LedgerNodeError(
      BlockErrorCode.NonceWithoutParents,
      "block.nonce: a non-zero nonce needs the parents it was mined over",
    );
  }
  const bytes = encodeBlock(block);
  validateBlockSyntax(block, params, { byteLength: bytes.length });
  if (source === "api" && !chosenHere) await checkParents(tangle, block.parents, params.belowMaxDepth);
  return { block, bytes };
}

/** A client's parents: each known here (or a solid entry point) and none below max depth. */
async function checkParents(tangle: CompletionTangle, parents: Uint8Array[], belowMaxDepth: number): Promise<void> {
  for (const [i, parent] of parents.entries()) {
    if (!tangle.isSolidEntryPoint(parent) && !(await tangle.hasBlock(parent))) {
      throw new LedgerNodeError(
        BlockErrorCode.UnknownParent,
        `block.parents[${i}]: block ${toHex(parent)} is not known to this node`,
      );
    }
    if (await tangle.isBelowMaxDepth(parent)) {
      throw new LedgerNodeError(
        BlockErrorCode.ParentBelowMaxDepth,
        `block.parents[${i}]: block ${toHex(parent)} is below max depth (more than ${belowMaxDepth} milestones old); take parents from the tips route`,
      );
    }
  }
}

/**
 * The node's own miner (its faucet's transactions, its coordinator's checkpoints): the `node`
 * pool, so a flood of clients' blocks to mine never holds the node's own back.
 */
export function ownMiner(workers: number): Miner {
  return (bytes, targetScore) => minerPool("node").mine(powDigest(bytes), targetScore, bytes.length, { workers });
}
