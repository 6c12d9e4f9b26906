import { compareBytes, toHex } from "../codec/hex.js";

/**
 * Tip selection in the manner of Hornet's URTS (uniform random tip selection): solid blocks
 * without enough children are tips; each carries its youngest and oldest cone root index (the
 * newest/oldest milestone index its past cone reaches, YCRI/OCRI). A tip whose OCRI lies more
 * than `belowMaxDepth` milestones behind the latest one is lazy and never selected (TIP-22's
 * below-max-depth); one whose YCRI is too old is semi-lazy and not selected either. Selection
 * draws up to `maxParents` distinct non-lazy tips at random and returns them sorted (TIP-24).
 */

export interface TipPoolOptions {
  /** Milestones after which an unconfirmed cone is too old to build on (protocol parameter). */
  belowMaxDepth: number;
  /** A tip whose youngest cone root is this many milestones old is semi-lazy. */
  maxDeltaYoungestConeRoot: number;
  /** A tip whose oldest cone root is this many milestones old is semi-lazy. */
  maxDeltaOldestConeRoot: number;
  /** A tip leaves the pool once this many blocks approve it. */
  maxChildren: number;
  /** Number of parents to select (TIP-24 allows 1..8). */
  maxParents: number;
}

export const defaultTipPoolOptions: Omit<TipPoolOptions, "belowMaxDepth"> = {
  maxDeltaYoungestConeRoot: 8,
  maxDeltaOldestConeRoot: 13,
  maxChildren: 2,
  maxParents: 8,
};

interface Tip {
  key: string;
  blockId: Uint8Array;
  ycri: number;
  ocri: number;
  children: number;
  /** Position in `TipPool.list`. */
  slot: number;
}

/** Random draws `select` makes before it falls back to scanning every tip. */
const DRAWS_PER_PARENT = 4;

export class TipPool {
  private readonly tips = new Map<string, Tip>();
  /** The same tips in an array, for uniform random draws. */
  private readonly list: Tip[] = [];

  constructor(private readonly options: TipPoolOptions) {}

  private put(key: string, tip: Tip): void {
    const old = this.tips.get(key);
    if (old) this.delete(old);
    tip.slot = this.list.length;
    this.list.push(tip);
    this.tips.set(key, tip);
  }

  private delete(tip: Tip): void {
    if (this.tips.get(tip.key) !== tip) return;
    this.tips.delete(tip.key);
    const last = this.list.pop()!;
    if (last !== tip) {
      last.slot = tip.slot;
      this.list[tip.slot] = last;
    }
  }

  get size(): number {
    return this.tips.size;
  }

  /**
   * Adds a newly solid block and counts it as a child of each of its parents that is a tip.
   * `keys` are the hex IDs of the block and its parents when the caller holds them already.
   */
  add(
    blockId: Uint8Array,
    parents: readonly Uint8Array[],
    ycri: number,
    ocri: number,
    keys?: { key: string; parentKeys: readonly string[] },
  ): void {
    for (let i = 0; i < parents.length; i++) {
      const tip = this.tips.get(keys?.parentKeys[i] ?? toHex(parents[i]!));
      if (tip && ++tip.children >= this.options.maxChildren) this.delete(tip);
    }
    const key = keys?.key ?? toHex(blockId);
    this.put(key, { key, blockId, ycri, ocri, children: 0, slot: 0 });
  }

  /** Removes a block (e.g. once it is referenced by a milestone and too old to be useful). */
  remove(blockId: Uint8Array, key = toHex(blockId)): void {
    const tip = this.tips.get(key);
    if (tip) this.delete(tip);
  }

  /** New cone root indexes of a tip (after part of its cone was confirmed). */
  updateConeRoots(blockId: Uint8Array, ycri: number, ocri: number, key = toHex(blockId)): void {
    const tip = this.tips.get(key);
    if (tip) {
      tip.ycri = ycri;
      tip.ocri = ocri;
    }
  }

  has(blockId: Uint8Array, key = toHex(blockId)): boolean {
    return this.tips.has(key);
  }

  /**
   * The tips by kind against the latest milestone index `lmi`, as Hornet's tip selector counts
   * them (`TipCount`: non-lazy and semi-lazy); tips below max depth, about to be dropped, count
   * as neither. A pass over every tip, without dropping any: for metrics scrapes, not hot paths.
   */
  counts(lmi: number): { nonLazy: number; semiLazy: number } {
    let nonLazy = 0;
    let semiLazy = 0;
    for (const tip of this.list) {
      if (lmi - tip.ocri > this.options.belowMaxDepth) continue;
      if (this.isLazy(tip, lmi)) semiLazy++;
      else nonLazy++;
    }
    return { nonLazy, semiLazy };
  }

  /** All tips currently held (for persistence and the tips route). */
  all(): Uint8Array[] {
    return [...this.tips.values()].map((t) => t.blockId);
  }

  /** Whether a tip is too old to select against the latest milestone index `lmi`. */
  private isLazy(tip: Tip, lmi: number): boolean {
    if (lmi - tip.ocri > this.options.belowMaxDepth) return true;
    return (
      lmi - tip.ycri > this.options.maxDeltaYoungestConeRoot || lmi - tip.ocri > this.options.maxDeltaOldestConeRoot
    );
  }

  /**
   * Tips for a milestone: the coordinator must reference what block issuers leave behind, so it
   * takes every tip not yet below max depth, semi-lazy ones included, oldest cone first.
   */
  selectForMilestone(lmi: number, max: number): Uint8Array[] {
    const candidates: Tip[] = [];
    for (const tip of [...this.list]) {
      if (lmi - tip.ocri > this.options.belowMaxDepth) this.delete(tip);
      else candidates.push(tip);
    }
    candidates.sort((a, b) => a.ocri - b.ocri || a.ycri - b.ycri);
    return candidates.slice(0, max).map((t) => t.blockId);
  }

  /**
   * Up to `maxParents` distinct non-lazy tips, sorted; lazy tips found on the way are dropped.
   * Returns an empty array when there is no non-lazy tip.
   */
  select(lmi: number, random: () => number = Math.random): Uint8Array[] {
    const want = Math.min(this.options.maxParents, this.list.length);
    // Usually most tips are non-lazy: draw at random, which is uniform over the non-lazy ones
    // and costs O(parents) instead of a pass over every tip per selection.
    const drawn = new Set<Tip>();
    for (let draws = 0; drawn.size < want && draws < DRAWS_PER_PARENT * want && this.list.length > 0; draws++) {
      const tip = this.list[Math.floor(random() * this.list.length)]!;
      if (lmi - tip.ocri > this.options.belowMaxDepth) this.delete(tip);
      else if (!this.isLazy(tip, lmi)) drawn.add(tip);
    }
    if (drawn.size === Math.min(this.options.maxParents, this.list.length)) {
      return [...drawn].map((t) => t.blockId).sort(compareBytes);
    }
    // Many lazy tips: choose among every non-lazy one.
    const candidates: Tip[] = [];
    for (const tip of [...this.list]) {
      if (lmi - tip.ocri > this.options.belowMaxDepth) this.delete(tip);
      else if (!this.isLazy(tip, lmi)) candidates.push(tip);
    }
    // Partial Fisher-Yates: the first k entries become a uniform random sample.
    const k = Math.min(this.options.maxParents, candidates.length);
    for (let i = 0; i < k; i++) {
      const j = i + Math.floor(random() * (candidates.length - i));
      [candidates[i], candidates[j]] = [candidates[j]!, candidates[i]!];
    }
    return candidates
      .slice(0, k)
      .map((t) => t.blockId)
      .sort(compareBytes);
  }
}
