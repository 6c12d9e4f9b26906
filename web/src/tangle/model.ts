import { type BlockSummary, PayloadType } from "./blockBytes";

/**
 * The live tangle's window: the most recent blocks as the event API announced them, each with
 * its state, and the figures the page writes in text. Bounded: at most `capacity` blocks are
 * kept, the oldest leaving first (a `Map` keeps arrival order), so neither the page's memory
 * nor a redraw grows with the node's traffic. Events change it as they arrive; the graph and
 * the text read it at most once per animation frame (pages/Tangle.tsx).
 */

/**
 * A block's state as the page colours it: `pending` (announced on `blocks`, which the node
 * publishes once it took the block in, not yet referenced), `referenced` and `conflicting`
 * (from `block-metadata/referenced`: referenced by a milestone, its transaction applied or
 * not, TIP-2's white-flag), `milestone` (a milestone's own block, payload type 7).
 */
export type BlockState = "pending" | "referenced" | "conflicting" | "milestone";

/** The states in the order of the legend, with their words. */
export const STATES: { state: BlockState; label: string; description: string }[] = [
  { state: "pending", label: "pending", description: "taken in by the node, not yet referenced by a milestone" },
  { state: "referenced", label: "referenced", description: "referenced by a milestone" },
  {
    state: "conflicting",
    label: "conflicting",
    description: "referenced, but its transaction conflicts with the ledger and was not applied",
  },
  { state: "milestone", label: "milestone", description: "a milestone's own block" },
];

/** A block of the window; force-graph adds its layout fields (x, y, vx, vy, fx, fy, index) to it. */
export interface TangleNode {
  id: string;
  parents: string[];
  payloadType: number | null;
  milestoneIndex?: number;
  state: BlockState;
  /** Index of the milestone that referenced it, when referenced. */
  referencedBy?: number;
  x?: number;
  y?: number;
  vx?: number;
  vy?: number;
  fx?: number;
  fy?: number;
}

/** An edge from a parent (`source`) to the block that approves it (`target`): depth grows towards the newest. */
export interface TangleLink {
  source: string | TangleNode;
  target: string | TangleNode;
}

/** The fields of `block-metadata/referenced` the page reads (TIP-25 block metadata). */
export interface ReferencedMetadata {
  blockId?: unknown;
  referencedByMilestoneIndex?: unknown;
  ledgerInclusionState?: unknown;
  milestoneIndex?: unknown;
}

/** Events per second over the last few seconds, in whole-second buckets (bounded: one per second). */
export class RateMeter {
  private readonly buckets: number[];
  private second = 0;

  constructor(private readonly seconds = 5) {
    this.buckets = new Array<number>(seconds + 1).fill(0);
  }

  mark(nowMs: number, n = 1): void {
    this.advance(nowMs);
    this.buckets[this.second % this.buckets.length]! += n;
  }

  /** The mean rate over the last `seconds` full seconds (the running one left out). */
  perSecond(nowMs: number): number {
    this.advance(nowMs);
    let sum = 0;
    for (let i = 1; i <= this.seconds; i++)
      sum += this.buckets[(this.second - i + this.buckets.length) % this.buckets.length]!;
    return sum / this.seconds;
  }

  private advance(nowMs: number): void {
    const s = Math.floor(nowMs / 1000);
    const n = this.buckets.length;
    if (this.second === 0 || s - this.second >= n) {
      // the first event, or a pause longer than the ring: nothing of before counts
      this.buckets.fill(0);
      this.second = s;
      return;
    }
    // each second that passed without events starts empty
    while (this.second < s) this.buckets[++this.second % n] = 0;
  }
}

/** What the text of the page shows, read from the window at each redraw. */
export interface TangleFigures {
  /** Blocks in the window. */
  blocks: number;
  pending: number;
  referenced: number;
  conflicting: number;
  milestones: number;
  /** Blocks announced since the page opened (duplicates left out). */
  seen: number;
  blocksPerSecond: number;
  referencedPerSecond: number;
  /** The newest milestone block in the window, if any. */
  newestMilestone?: number;
}

export class TangleWindow {
  private readonly blocks = new Map<string, TangleNode>();
  private readonly counts: Record<BlockState, number> = { pending: 0, referenced: 0, conflicting: 0, milestone: 0 };
  private seen = 0;
  private newestMilestone: number | undefined;
  private readonly arrivals = new RateMeter();
  private readonly references = new RateMeter();

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.blocks.size;
  }

  get(id: string): TangleNode | undefined {
    return this.blocks.get(id);
  }

  /** Adds an announced block (the oldest leaves when full); false for one already in the window. */
  add(block: BlockSummary, nowMs: number): boolean {
    if (this.blocks.has(block.id)) return false;
    while (this.blocks.size >= this.capacity) {
      const oldest = this.blocks.values().next().value!;
      this.blocks.delete(oldest.id);
      this.counts[oldest.state]--;
    }
    const node: TangleNode = {
      id: block.id,
      parents: block.parents,
      payloadType: block.payloadType,
      state: block.payloadType === PayloadType.Milestone ? "milestone" : "pending",
    };
    if (block.milestoneIndex !== undefined) {
      node.milestoneIndex = block.milestoneIndex;
      this.newestMilestone = Math.max(this.newestMilestone ?? 0, block.milestoneIndex);
    }
    // a new block starts beside its parents (force-graph lays it out from there)
    let ySum = 0;
    let yCount = 0;
    for (const p of block.parents) {
      const y = this.blocks.get(p)?.y;
      if (y !== undefined) {
        ySum += y;
        yCount++;
      }
    }
    if (yCount > 0) node.y = ySum / yCount + (Math.random() - 0.5) * 4;
    this.blocks.set(node.id, node);
    this.counts[node.state]++;
    this.seen++;
    this.arrivals.mark(nowMs);
    return true;
  }

  /** Applies a `block-metadata/referenced` event; false when the block is not in the window or the event is not one. */
  referenced(meta: ReferencedMetadata, nowMs: number): boolean {
    if (typeof meta.blockId !== "string") return false;
    this.references.mark(nowMs);
    const node = this.blocks.get(meta.blockId);
    if (!node || node.referencedBy !== undefined) return false;
    if (typeof meta.referencedByMilestoneIndex === "number") node.referencedBy = meta.referencedByMilestoneIndex;
    // a milestone's block stays marked as one once referenced (by the next milestone)
    if (node.state !== "milestone") {
      this.counts[node.state]--;
      node.state = meta.ledgerInclusionState === "conflicting" ? "conflicting" : "referenced";
      this.counts[node.state]++;
    }
    return true;
  }

  /** The window as force-graph's data: every block, and an edge to each parent still in the window. */
  graphData(): { nodes: TangleNode[]; links: TangleLink[] } {
    const nodes = [...this.blocks.values()];
    const links: TangleLink[] = [];
    for (const node of nodes) {
      for (const p of node.parents) if (this.blocks.has(p)) links.push({ source: p, target: node.id });
    }
    return { nodes, links };
  }

  /** The `n` newest blocks, newest first. */
  newest(n: number): TangleNode[] {
    const all = [...this.blocks.values()];
    return all.slice(-n).reverse();
  }

  figures(nowMs: number): TangleFigures {
    const f: TangleFigures = {
      blocks: this.blocks.size,
      pending: this.counts.pending,
      referenced: this.counts.referenced,
      conflicting: this.counts.conflicting,
      milestones: this.counts.milestone,
      seen: this.seen,
      blocksPerSecond: this.arrivals.perSecond(nowMs),
      referencedPerSecond: this.references.perSecond(nowMs),
    };
    if (this.newestMilestone !== undefined) f.newestMilestone = this.newestMilestone;
    return f;
  }
}
