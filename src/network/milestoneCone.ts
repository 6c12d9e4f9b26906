import { parentsOfBlockBytes } from "../codec/block.js";
import { toHex } from "../codec/hex.js";
import type { Repositories } from "../storage/index.js";
import { MAX_CONE_BLOCKS, MAX_CONE_BYTES } from "./messages.js";

/**
 * What a node answers to a MilestoneRequest: the blocks milestone `index` newly referenced (the
 * ones whose metadata names `index` as referencing milestone), parents before children, then
 * the milestone block itself. A peer that stores them in this order finds every block solid on
 * arrival and can confirm the milestone at once. Undefined when the milestone is not confirmed
 * here or lies below the pruning index (its cone may be incomplete), and when the cone is beyond
 * the limits a peer takes as one answer (MAX_CONE_BLOCKS, MAX_CONE_BYTES in messages.ts).
 */
export async function milestoneCone(db: Repositories, index: number): Promise<Uint8Array[] | undefined> {
  if (index === 0) return undefined;
  if (index <= (await db.nodeState.pruningIndex())) return undefined;
  const record = await db.milestones.get(index);
  if (!record) return undefined;
  const milestoneBlock = await db.blocks.get(record.blockId);
  if (!milestoneBlock) return undefined;

  // Iterative post-order walk: a block is emitted once all its parents inside the cone are.
  const out: Uint8Array[] = [];
  let bytesOut = milestoneBlock.length;
  const visited = new Set<string>();
  const stack: { id: Uint8Array; bytes?: Uint8Array }[] = parentsOfBlockBytes(milestoneBlock)
    .reverse()
    .map((id) => ({ id }));
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (top.bytes) {
      stack.pop();
      out.push(top.bytes);
      bytesOut += top.bytes.length;
      if (out.length >= MAX_CONE_BLOCKS || bytesOut > MAX_CONE_BYTES) return undefined;
      continue;
    }
    const key = toHex(top.id);
    if (visited.has(key)) {
      stack.pop();
      continue;
    }
    visited.add(key);
    const meta = await db.blockMetadata.get(top.id);
    const bytes = meta?.referencedByMilestoneIndex === index ? await db.blocks.get(top.id) : undefined;
    if (!bytes) {
      // older than this milestone (or a solid entry point): the asker has it already
      stack.pop();
      continue;
    }
    top.bytes = bytes;
    for (const p of parentsOfBlockBytes(bytes).reverse()) if (!visited.has(toHex(p))) stack.push({ id: p });
  }
  out.push(milestoneBlock);
  return out;
}
