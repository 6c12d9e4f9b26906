import { PayloadType } from "../../../src/codec/types";
import type { BlockSummary } from "../explorer/codec";

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
  /** The edges to its parents in the window, made once each (see TangleWindow.graphData). */
  edges?: TangleLink[];
  payloadType: number | null;
  milestoneIndex?: number;
  state: BlockState;
  /**
   * Its depth in the DAG: one more than its deepest parent in the window when it arrived
   * (force-graph's dagMode defines depth so, and recomputes it for the whole window at every
   * redraw; here it is computed once per block, see tangle/graph.tsx). A block none of whose
   * parents is in the window (the first ones, or the first of a burst when the page samples)
   * starts at the newest depth so far, so it is drawn at the front rather than over the oldest.
   */
  depth: number;
  /** Index of the milestone that referenced it, when referenced. */
  referencedBy?: number;
  /**
   * Whether `referencedBy` is an upper bound: the block was seen referenced only through a
   * descendant (TangleWindow.referencedCone), so a milestone at or before that one referenced it,
   * and its ledger inclusion state is unknown (a transaction's may be conflicting).
   */
  referencedAtLatest?: boolean;
  /** Whether its past cone in the window is marked referenced already (walked once at most). */
  coneMarked?: boolean;
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

/**
 * force-graph gives every node and edge it is handed a colour of its hit-test canvas and keeps
 * it in a registry that only empties when it is handed nothing but new objects; the registry
 * holds 2^18 entries at most, and whatever it holds is never freed. So once this many objects
 * were handed over, the whole window is handed over as fresh copies, which empties it.
 */
const RENEW_AFTER = 50_000;

export class TangleWindow {
  private blocks = new Map<string, TangleNode>();
  /** The deepest depth given so far. */
  private front = 0;
  /** Nodes and edges handed to the graph since the last fresh copies. */
  private handedOver = 0;
  /** Bumped when a block enters or leaves the window: the drawn data's shape changed. */
  private shape = 0;
  /** The last data handed out, and the shape it had (the same object while the shape holds). */
  private lastData: { shape: number; data: { nodes: TangleNode[]; links: TangleLink[] } } | undefined;
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

  /**
   * Empties the window (a sampled burst starts: the previous one, seconds older and unconnected
   * to it, would only add to the layout); the figures since the page opened stay.
   */
  clear(): void {
    this.blocks.clear();
    for (const state of Object.keys(this.counts) as BlockState[]) this.counts[state] = 0;
    this.shape++;
  }

  /** Adds an announced block (the oldest leaves when full); false for one already in the window. */
  add(block: BlockSummary, nowMs: number): boolean {
    if (this.blocks.has(block.id)) return false;
    while (this.blocks.size >= this.capacity) {
      const oldest = this.blocks.values().next().value!;
      this.blocks.delete(oldest.id);
      this.counts[oldest.state]--;
    }
    this.shape++;
    const node: TangleNode = {
      id: block.id,
      parents: block.parents,
      payloadType: block.payloadType,
      state: block.payloadType === PayloadType.Milestone ? "milestone" : "pending",
      depth: 0,
    };
    if (block.milestoneIndex !== undefined) {
      node.milestoneIndex = block.milestoneIndex;
      this.newestMilestone = Math.max(this.newestMilestone ?? 0, block.milestoneIndex);
    }
    // a new block starts beside its parents (force-graph lays it out from there)
    let ySum = 0;
    let yCount = 0;
    let known = false;
    for (const p of block.parents) {
      const parent = this.blocks.get(p);
      if (!parent) continue;
      known = true;
      node.depth = Math.max(node.depth, parent.depth + 1);
      if (parent.y !== undefined) {
        ySum += parent.y;
        yCount++;
      }
    }
    if (yCount > 0) node.y = ySum / yCount + (Math.random() - 0.5) * 4;
    if (!known) node.depth = this.front;
    this.front = Math.max(this.front, node.depth);
    this.blocks.set(node.id, node);
    this.handedOver++;
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
    // (a block's metadata before it is referenced, as a subscription to it answers at once, says nothing here)
    if (!node || typeof meta.referencedByMilestoneIndex !== "number") return false;
    // the block's own metadata: exact, also over an earlier inference from a descendant
    if (node.referencedBy !== undefined && !node.referencedAtLatest) return false;
    node.referencedBy = meta.referencedByMilestoneIndex;
    delete node.referencedAtLatest;
    // a milestone's block stays marked as one once referenced (by the next milestone)
    if (node.state !== "milestone") {
      this.counts[node.state]--;
      node.state = meta.ledgerInclusionState === "conflicting" ? "conflicting" : "referenced";
      this.counts[node.state]++;
    }
    return true;
  }

  /**
   * Marks the past cone in the window of a block referenced by `milestoneIndex` as referenced:
   * a milestone references the whole past cone of its parents that no earlier milestone did
   * (TIP-2, white-flag), so every ancestor of a referenced block is referenced, by that milestone
   * or an earlier one (`referencedAtLatest`). Their ledger inclusion state is not known from
   * this, so none is marked conflicting. Each block's cone is walked once at most, so the work
   * is bounded by the window whatever the events. Returns how many blocks changed.
   */
  referencedCone(blockId: string, milestoneIndex: number): number {
    const start = this.blocks.get(blockId);
    if (!start || start.referencedBy === undefined || start.coneMarked) return 0;
    let changed = 0;
    const stack: TangleNode[] = [start];
    start.coneMarked = true;
    while (stack.length > 0) {
      const n = stack.pop()!;
      for (const p of n.parents) {
        const parent = this.blocks.get(p);
        if (!parent || parent.coneMarked) continue;
        parent.coneMarked = true;
        if (parent.referencedBy === undefined) {
          parent.referencedBy = milestoneIndex;
          parent.referencedAtLatest = true;
          if (parent.state === "pending") {
            this.counts.pending--;
            parent.state = "referenced";
            this.counts.referenced++;
          }
          changed++;
        }
        stack.push(parent);
      }
    }
    return changed;
  }

  /**
   * Blocks whose own metadata would tell the page most, newest first, at most `n`: transactions
   * whose inclusion state is not known (only their metadata can say conflicting), then pending
   * blocks (a referenced one marks its cone, `referencedCone`). `skip` says which to leave out.
   */
  worthAsking(n: number, skip: (id: string) => boolean): string[] {
    const all = [...this.blocks.values()];
    const out: string[] = [];
    for (const wantTransactions of [true, false]) {
      for (let i = all.length - 1; i >= 0 && out.length < n; i--) {
        const b = all[i]!;
        const unknown = b.referencedBy === undefined || b.referencedAtLatest === true;
        if (!unknown || b.state === "milestone" || skip(b.id) || out.includes(b.id)) continue;
        if (wantTransactions ? b.payloadType === PayloadType.Transaction : b.referencedBy === undefined) out.push(b.id);
      }
    }
    return out;
  }

  /**
   * The window as force-graph's data: every block, and an edge to each parent still in the
   * window. Edges are made once and kept on their block (new objects at every redraw would each
   * take a colour of force-graph's hit-test registry, see RENEW_AFTER).
   */
  graphData(): { nodes: TangleNode[]; links: TangleLink[] } {
    // the same blocks and edges: the same object (the graph then repaints, without a new layout)
    if (this.lastData?.shape === this.shape) return this.lastData.data;
    if (this.handedOver >= RENEW_AFTER) this.renew();
    const nodes = [...this.blocks.values()];
    const links: TangleLink[] = [];
    for (const node of nodes) {
      if (node.edges === undefined) {
        node.edges = [];
        this.handedOver++;
      }
      // a parent evicted since takes its edge along; one that arrived after its child gets one now
      if (node.edges.length < node.parents.length) {
        const have = new Set(node.edges.map((e) => (typeof e.source === "string" ? e.source : e.source.id)));
        for (const p of node.parents) {
          if (!have.has(p) && this.blocks.has(p)) {
            node.edges.push({ source: p, target: node.id });
            this.handedOver++;
          }
        }
      }
      let kept = 0;
      for (const e of node.edges) {
        const parent = typeof e.source === "string" ? e.source : e.source.id;
        if (this.blocks.has(parent)) {
          node.edges[kept++] = e;
          links.push(e);
        }
      }
      node.edges.length = kept;
    }
    const data = { nodes, links };
    this.lastData = { shape: this.shape, data };
    return data;
  }

  /** Every block of the window as a fresh object (position and state kept, no edges yet). */
  private renew(): void {
    const fresh = new Map<string, TangleNode>();
    for (const [id, n] of this.blocks) {
      const copy: TangleNode = {
        id: n.id,
        parents: n.parents,
        payloadType: n.payloadType,
        state: n.state,
        depth: n.depth,
      };
      if (n.milestoneIndex !== undefined) copy.milestoneIndex = n.milestoneIndex;
      if (n.referencedBy !== undefined) copy.referencedBy = n.referencedBy;
      if (n.referencedAtLatest) copy.referencedAtLatest = true;
      if (n.coneMarked) copy.coneMarked = true;
      if (n.x !== undefined) copy.x = n.x;
      if (n.y !== undefined) copy.y = n.y;
      fresh.set(id, copy);
    }
    this.blocks = fresh;
    this.handedOver = 0;
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
