/** What the choice of unconfirmable blocks reads of a block not yet referenced by a milestone. */
export interface UnconfirmableEntry {
  key: string;
  parentKeys: readonly string[];
  milestone: boolean;
  /** The newest milestone index known when the block was taken in. */
  arrivalIndex: number;
}

/**
 * The blocks to drop as unconfirmable (tangle.ts, UNCONFIRMABLE_MARGIN): those that arrived at
 * or before `horizon`, and every block held that approves one of them, so that no block left
 * in memory names a parent that is neither held nor referenced (the white-flag walk would take
 * such a parent for a referenced one and compute another cone than the coordinator did).
 *
 * Kept whatever its arrival: a milestone block, and every block in the past cone of one. A
 * milestone is applied whenever its cone is complete, and its cone may have come long before
 * it, while this node was catching up (its blocks then count as arriving at an old ledger
 * index), or in whatever order a restart re-admits them. Dropping such a block would stall
 * that milestone or, once the milestone is solid, change its white-flag cone.
 *
 * Descendants are found through a child index built here, not by the order blocks were
 * admitted: a child is often admitted before its parent (it waits for it), and a restart
 * re-admits blocks in key order. Costs one pass over the held blocks when nothing is old
 * enough, and a few more only when something is dropped.
 */
export function unconfirmableBlocks<E extends UnconfirmableEntry>(
  held: ReadonlyMap<string, E>,
  horizon: number,
): Set<string> {
  const dropped = new Set<string>();
  const old: E[] = [];
  for (const e of held.values()) if (!e.milestone && e.arrivalIndex <= horizon) old.push(e);
  if (old.length === 0) return dropped;

  // the held past cones of the held milestones (ancestor-closed, so never a dropped block's child)
  const kept = new Set<string>();
  const stack: string[] = [];
  for (const e of held.values()) if (e.milestone) stack.push(e.key);
  while (stack.length > 0) {
    const key = stack.pop()!;
    if (kept.has(key)) continue;
    kept.add(key);
    for (const pk of held.get(key)!.parentKeys) if (held.has(pk) && !kept.has(pk)) stack.push(pk);
  }

  const children = new Map<string, string[]>();
  for (const e of held.values()) {
    for (const pk of e.parentKeys) {
      if (!held.has(pk)) continue;
      const list = children.get(pk);
      if (list) list.push(e.key);
      else children.set(pk, [e.key]);
    }
  }
  for (const e of old) if (!kept.has(e.key)) stack.push(e.key);
  while (stack.length > 0) {
    const key = stack.pop()!;
    if (dropped.has(key)) continue;
    dropped.add(key);
    for (const child of children.get(key) ?? []) if (!dropped.has(child)) stack.push(child);
  }
  return dropped;
}
