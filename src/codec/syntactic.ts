import { encodeBlock, MAX_BLOCK_LENGTH } from "./block.js";
import { bytesEqual, compareBytes } from "./hex.js";
import { MAX_PARENTS_COUNT, MIN_PARENTS_COUNT } from "./milestone.js";
import { type MilestoneSyntaxOptions, validateMilestoneSyntax } from "./syntacticMilestone.js";
import { rule, validateTaggedDataSyntax, validateTransactionSyntax } from "./syntacticTransaction.js";
import { type Block, PayloadType, type ProtocolParameters } from "./types.js";

/**
 * Syntactic validation of a block (TIP-24) and, through it, of its payload (TIP-20, 23, 29):
 * what a node checks on receipt given its protocol parameters, before PoW scoring, solidity or
 * any ledger state. Failures are CodecError with code SyntacticRule (StorageDeposit for an
 * output short of its deposit) and the dotted path of the field, rooted at "block".
 */

export {
  type MilestoneKeys,
  type MilestoneSyntaxOptions,
  milestoneSignatureFault,
  validateMilestoneSyntax,
} from "./syntacticMilestone.js";
export {
  checkNativeTokenCount,
  validateTaggedDataSyntax,
  validateTransactionSyntax,
  validateUnlocksSyntax,
} from "./syntacticTransaction.js";

export interface BlockSyntaxOptions extends MilestoneSyntaxOptions {
  /** Length of the block's bytes when the caller has them, to skip re-encoding. */
  byteLength?: number;
}

export function validateBlockSyntax(block: Block, params: ProtocolParameters, options: BlockSyntaxOptions = {}): void {
  // 1. Size and version.
  const length = options.byteLength ?? encodeBlock(block).length;
  if (length > MAX_BLOCK_LENGTH) rule("block", `block is ${length} bytes, the limit is ${MAX_BLOCK_LENGTH}`);
  if (block.protocolVersion !== params.protocolVersion) {
    rule(
      "block.protocolVersion",
      `protocol version ${block.protocolVersion}, the network runs ${params.protocolVersion}`,
    );
  }
  // 2. Parents: 1..8, sorted, unique.
  const parents = block.parents;
  if (parents.length < MIN_PARENTS_COUNT || parents.length > MAX_PARENTS_COUNT) {
    rule("block.parents", "parents count must be 1..8");
  }
  for (let i = 1; i < parents.length; i++) {
    if (compareBytes(parents[i - 1]!, parents[i]!) >= 0)
      rule(`block.parents[${i}]`, "parents must be sorted and unique");
  }
  // 3. Payload: tagged data, transaction or milestone, each valid on its own.
  const p = block.payload;
  if (p === undefined) return;
  switch (p.type) {
    case PayloadType.TaggedData:
      validateTaggedDataSyntax(p, "block.payload");
      return;
    case PayloadType.Transaction:
      validateTransactionSyntax(p, params, "block.payload");
      return;
    case PayloadType.Milestone:
      validateMilestoneSyntax(p, params, "block.payload", options);
      // TIP-29: the milestone's parents are its block's parents; TIP-24: a milestone block's nonce is 0.
      if (p.parents.length !== parents.length || p.parents.some((x, i) => !bytesEqual(x, parents[i]!))) {
        rule("block.payload.parents", "milestone parents must equal the block's parents");
      }
      if (block.nonce !== 0n) rule("block.nonce", "a milestone block has nonce 0");
      return;
    default:
      rule("block.payload.type", `payload type ${p.type} is not allowed in a block`);
  }
}
