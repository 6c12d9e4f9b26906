import type { Block } from "../codec/types.js";
import type { WhiteFlagResult } from "../ledger/whiteFlag.js";
import type { WriteBatch } from "../storage/index.js";

/**
 * The node's one event stream (Lodestar's `ChainEvent` emitter): the tangle, the intake and
 * confirmation emit; metrics, the network's broadcasting, the milestone confirmer, pruning,
 * automatic snapshots and the indexes subscribe, wired in `src/node`.
 *
 * Two kinds of subscriber:
 * - listeners (`on`) only read. They are called synchronously, in subscription order, and never
 *   awaited, so they cannot hold up intake or confirmation; one that throws is reported to
 *   `onListenerError` and the others still run. A listener that has slow work to do schedules it.
 * - ledger indexes (`attachIndex`) write: each adds its writes to a milestone's atomic batch
 *   before it is written, so an index is never ahead of or behind the ledger it describes.
 */

/** Where a block came from: a client (HTTP), a peer (gossip or an answer) or this node's coordinator. */
export type BlockSource = "api" | "peer" | "coordinator";

export interface MilestoneInfo {
  index: number;
  milestoneId: Uint8Array;
  blockId: Uint8Array;
  timestamp: number;
}

export interface NodeEventMap {
  /**
   * A block new to this node, in memory and answered from there (its write is behind, see
   * `Tangle.storeBlock`). A coordinator's block is announced once it is on disk.
   */
  blockTaken: { blockId: Uint8Array; block: Block; bytes: Uint8Array; source: BlockSource };
  /** A block became solid: its whole past cone is here. */
  /** `key`: the block ID in hex, as the tangle keys it (subscribers need not hash it again). */
  blockSolid: { blockId: Uint8Array; key: string; block: Block };
  /**
   * A block's metadata after a milestone referenced it (emitted once its batch is on disk, in
   * white-flag order), with its `InclusionState` (storage/records.ts) and conflict reason (TIP-2).
   */
  blockReferenced: {
    blockId: Uint8Array;
    milestoneIndex: number;
    whiteFlagIndex: number;
    inclusionState: number;
    conflictReason: number;
  };
  /** A milestone with valid coordinator signatures and an index above any seen so far; `source` as for its block. */
  latestMilestone: {
    index: number;
    milestoneId: Uint8Array;
    blockId: Uint8Array;
    timestamp: number;
    source: BlockSource;
  };
  /**
   * A milestone's batch is on disk and the tangle moved to it. `result` holds the ledger diff:
   * outputs created (`created`, `createdAndConsumed`) and spent (`consumed`, `createdAndConsumed`).
   */
  milestoneConfirmed: { milestone: MilestoneInfo; result: WhiteFlagResult };
  /** Pruning removed every milestone below `index`. */
  pruned: { index: number };
  /**
   * The node's state was put back (a dev revert or reset, node/devStates.ts): the ledger is at
   * `milestone` again, and what listeners remember of later milestones is void.
   */
  reverted: { milestone: MilestoneInfo };
}

export type NodeEventName = keyof NodeEventMap;

/** Every event of the stream, in the order of a block's and a milestone's life. */
export const NODE_EVENT_NAMES: readonly NodeEventName[] = [
  "blockTaken",
  "blockSolid",
  "blockReferenced",
  "latestMilestone",
  "milestoneConfirmed",
  "pruned",
  "reverted",
];
export type NodeEventListener<K extends NodeEventName> = (event: NodeEventMap[K]) => void;

/**
 * A secondary index kept in step with the ledger (indexer, explorer, address ledger): attached
 * to the event stream, it adds its writes to every milestone's atomic batch; `catchUp` brings
 * it to the ledger when it lags (first start, an index of a new version, a snapshot import).
 */
export interface LedgerIndex {
  /** Names the index in logs. */
  readonly name: string;
  /** Adds the index's writes for `milestone` to its batch (awaited, before the batch is written). */
  writeMilestone(batch: WriteBatch, result: WhiteFlagResult, milestone: MilestoneInfo): void | Promise<void>;
  /** Brings the index to the current ledger (a rebuild where it cannot follow the diffs). */
  catchUp(): Promise<void>;
}

export class NodeEvents {
  private readonly listeners: { [K in NodeEventName]?: NodeEventListener<K>[] } = {};
  private readonly indexes: LedgerIndex[] = [];

  /** Where a failing listener is reported (the node logs it). */
  onListenerError: (e: unknown, event: NodeEventName) => void = () => {};

  /** Subscribes a listener; returns its unsubscription. */
  on<K extends NodeEventName>(name: K, listener: NodeEventListener<K>): () => void {
    let list = this.listeners[name] as NodeEventListener<K>[] | undefined;
    if (!list) {
      list = [];
      (this.listeners as Record<string, unknown>)[name] = list;
    }
    list.push(listener);
    const subscribed = list;
    return () => {
      const i = subscribed.indexOf(listener);
      if (i >= 0) subscribed.splice(i, 1);
    };
  }

  /** How many listeners `name` has (the architecture test counts them against ARCHITECTURE.md). */
  listenerCount(name: NodeEventName): number {
    return this.listeners[name]?.length ?? 0;
  }

  /** Whether anyone listens to `name` (emitters skip building events nobody reads). */
  wants(name: NodeEventName): boolean {
    return (this.listeners[name]?.length ?? 0) > 0;
  }

  /** Calls every listener of `name` now, none awaited; a throwing one does not stop the others. */
  emit<K extends NodeEventName>(name: K, event: NodeEventMap[K]): void {
    const list = this.listeners[name] as NodeEventListener<K>[] | undefined;
    if (!list) return;
    for (const listener of list) {
      try {
        listener(event);
      } catch (e) {
        this.onListenerError(e, name);
      }
    }
  }

  /** Attaches an index: from now on every milestone's batch carries its writes. */
  attachIndex(index: LedgerIndex): void {
    if (!this.indexes.includes(index)) this.indexes.push(index);
  }

  /** Detaches an index: milestones from now on carry none of its writes (it lags until it catches up). */
  detachIndex(index: LedgerIndex): void {
    const i = this.indexes.indexOf(index);
    if (i >= 0) this.indexes.splice(i, 1);
  }

  /** The attached indexes, in attachment order. */
  get ledgerIndexes(): readonly LedgerIndex[] {
    return this.indexes;
  }

  /** Adds every attached index's writes for `milestone` to its batch (confirmation calls this). */
  async writeIndexes(batch: WriteBatch, result: WhiteFlagResult, milestone: MilestoneInfo): Promise<void> {
    for (const index of this.indexes) await index.writeMilestone(batch, result, milestone);
  }
}
