import { toHex } from "../codec/hex.js";
import type { Block } from "../codec/types.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { type LedgerError, LedgerErrorCode } from "./errors.js";

/** A block of a milestone's past cone, with its ID. */
export interface ConeBlock {
  blockId: Uint8Array;
  block: Block;
  /** ID of the block's transaction when known already (hashed from the payload bytes at intake). */
  transactionId?: Uint8Array;
  /** Essence signing hash of that transaction, likewise. */
  signingHash?: Uint8Array;
  /** The block ID in hex, when the holder keeps it (readers of white-flag's result use it). */
  key?: string;
  /** The parents' IDs in hex, when the holder keeps them (the walk keys what it has seen by them). */
  parentKeys?: readonly string[];
}

/**
 * What the traversal asks of the tangle about one block: `{block}` when it is stored and not yet
 * referenced by a milestone, `"stop"` when it is already referenced or a solid entry point (the
 * walk does not go past it), `undefined` when the block is unknown (the cone is not solid).
 */
export type ConeLookup = (blockId: Uint8Array, key: string) => ConeBlock | "stop" | undefined;

/** The error when the cone misses a block; `data.missingBlockId` names it. */
function coneNotSolid(missingBlockId: Uint8Array): LedgerError {
  return new LedgerNodeError(LedgerErrorCode.ConeNotSolid, `past cone is missing block ${toHex(missingBlockId)}`, {
    missingBlockId,
  });
}

/**
 * The blocks a milestone newly references, in the deterministic order of TIP-2: a depth-first
 * post-order walk from the milestone's parents, visiting each block's parents in the order they
 * are listed (sorted, TIP-24), emitting a block after all of its parents. Iterative, so a deep
 * cone cannot overflow the call stack.
 */
export function pastConeInWhiteFlagOrder(parents: readonly Uint8Array[], lookup: ConeLookup): ConeBlock[] {
  const ordered: ConeBlock[] = [];
  const seen = new Set<string>();
  // Each frame: a block and the index of its next parent to visit.
  const stack: { cone: ConeBlock; next: number }[] = [];

  const enter = (id: Uint8Array, key: string): void => {
    if (seen.has(key)) return;
    seen.add(key);
    const found = lookup(id, key);
    if (found === undefined) throw coneNotSolid(id);
    if (found === "stop") return;
    stack.push({ cone: found, next: 0 });
  };

  for (const parent of parents) {
    enter(parent, toHex(parent));
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const ps = top.cone.block.parents;
      if (top.next < ps.length) {
        const i = top.next++;
        enter(ps[i]!, top.cone.parentKeys?.[i] ?? toHex(ps[i]!));
      } else {
        stack.pop();
        ordered.push(top.cone);
      }
    }
  }
  return ordered;
}
