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
      let o = Number.MAX_SAFE_INTEGER;
      for (const pk of e.parentKeys) {
        const parent = unreferenced.get(pk);
        let py: number;
        let po: number;
        if (parent) {
          if (!parent.solid) continue;
          py = parent.ycri;
          po = parent.ocri;
        } else {
          const idx = referencedAt(pk);
          if (idx === undefined) continue; // older than what is held in memory: keep the stored value
          py = po = idx;
        }
        y = Math.max(y, py);
        o = Math.min(o, po);
      }
      if (o === Number.MAX_SAFE_INTEGER) continue;
      e.ycri = Math.max(e.ycri, y);
      e.ocri = Math.max(e.ocri, o);
      updated(e);
    }
  }
}
