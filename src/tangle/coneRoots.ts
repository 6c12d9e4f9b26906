import { type Block, PayloadType } from "../codec/types.js";

/** What the cone-root update reads and writes of a block not yet referenced by a milestone. */
export interface ConeRootEntry {
  key: string;
  blockId: Uint8Array;
  block: Block;
  parentKeys: readonly string[];
  solid: boolean;
  /** Youngest / oldest milestone index the past cone reaches (URTS cone root indexes). */
  ycri: number;
  ocri: number;
  /** The last pass that updated this block's cone roots. */
  coneRootPass: number;
  /**
   * The parents (bit i for parent i) that were referenced or entry points when the block became
   * solid, and the oldest index among them (`Number.MAX_SAFE_INTEGER` for none). Those never
   * change, and memory forgets them (`recentlyReferenced` is bounded, and empty after a
   * restart), so a recomputation counts them from here rather than skip them: skipped, the
   * other parents alone lifted the oldest root above the true one.
   */
  settledParents: number;
  settledOcri: number;
}

/**
 * Cone root indexes of every unreferenced solid block, recomputed after a confirmation: a
 * parent that was just referenced now roots the cone at that milestone (Hornet updates them
 * the same way), so tips are judged lazy by what is really unconfirmed. Memoized walk over
 * the parents (a block records the `pass` that updated it), iterative so a long unconfirmed
 * chain cannot overflow the stack. `referencedAt` names the milestone that referenced a block
 * no longer held here (or the index of a solid entry point); `updated` hears of each block done.
 */
export function recomputeConeRoots<E extends ConeRootEntry>(
  unreferenced: ReadonlyMap<string, E>,
  pass: number,
  referencedAt: (key: string) => number | undefined,
  updated: (entry: E) => void,
): void {
  const stack: E[] = [];
  for (const entry of unreferenced.values()) {
    if (entry.coneRootPass === pass || !entry.solid) continue;
    stack.push(entry);
    while (stack.length > 0) {
      const e = stack[stack.length - 1]!;
      let pending = false;
      for (const pk of e.parentKeys) {
        const p = unreferenced.get(pk);
        if (p?.solid === true && p.coneRootPass !== pass) {
          stack.push(p);
          pending = true;
        }
      }
      if (pending) continue;
      stack.pop();
      if (e.coneRootPass === pass) continue;
      e.coneRootPass = pass;
      if (e.block.payload?.type === PayloadType.Milestone) continue; // a milestone block roots at its own index
      let y = 0;
      let o = e.settledOcri;
      let known = false;
      for (let i = 0; i < e.parentKeys.length; i++) {
        const pk = e.parentKeys[i]!;
        const parent = unreferenced.get(pk);
        let py: number;
        let po: number;
        if (parent) {
          if (!parent.solid) continue;
          py = parent.ycri;
          po = parent.ocri;
        } else {
          const idx = referencedAt(pk);
          if (idx === undefined) {
            // forgotten: a settled parent is in `settledOcri`; one referenced since the block became
            // solid has an index not below the block's oldest root, which stays its bound
            if ((e.settledParents & (1 << i)) === 0) o = Math.min(o, e.ocri);
            continue;
          }
          py = po = idx;
        }
        known = true;
        y = Math.max(y, py);
        o = Math.min(o, po);
      }
      if (!known) continue; // every parent forgotten: keep the stored values
      e.ycri = Math.max(e.ycri, y);
      e.ocri = Math.max(e.ocri, o);
      updated(e);
    }
  }
}
