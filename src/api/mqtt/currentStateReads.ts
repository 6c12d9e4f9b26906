import type { CurrentState } from "./topics.js";

/**
 * The reads of the current state subscriptions are owed (inx-mqtt's `onSubscribeTopic`: a
 * block's metadata, an output, a transaction's block, the latest milestones), a few at a time:
 * a thousand clients subscribing to a thousand `block-metadata/{id}` topics each must not start
 * a million database reads at once. Each client's pending reads wait in its own list and the
 * clients take turns (round robin), so one client's thousand subscriptions do not hold back the
 * next client's one; a client that leaves has its pending reads dropped with its list.
 */

/** One pending read: the filter subscribed to and what it is owed. */
interface Pending {
  filter: string;
  state: CurrentState;
}

interface Queue {
  items: Pending[];
  /** Index of the next item (items before it are done). */
  head: number;
}

export class CurrentStateReads<Owner, M> {
  /** Pending reads by owner, in turn order (a Map keeps insertion order). */
  private readonly pending = new Map<Owner, Queue>();
  private inFlight = 0;
  /** Reads waiting, all owners together. */
  size = 0;

  constructor(
    private readonly concurrency: number,
    private readonly read: (state: CurrentState) => Promise<M | undefined>,
    /** Hands a result to its owner (which checks it still holds `filter`). */
    private readonly deliver: (owner: Owner, filter: string, message: M) => void,
    private readonly onError: (e: unknown, filter: string) => void,
  ) {}

  /** Queues the read `filter`'s subscription is owed. */
  add(owner: Owner, filter: string, state: CurrentState): void {
    let queue = this.pending.get(owner);
    if (!queue) {
      queue = { items: [], head: 0 };
      this.pending.set(owner, queue);
    }
    queue.items.push({ filter, state });
    this.size++;
    this.pump();
  }

  /** Drops `owner`'s pending reads (it left); a read in flight is discarded when it ends. */
  drop(owner: Owner): void {
    const queue = this.pending.get(owner);
    if (!queue) return;
    this.size -= queue.items.length - queue.head;
    this.pending.delete(owner);
  }

  /** Pending reads of `owner` (tests). */
  pendingOf(owner: Owner): number {
    const queue = this.pending.get(owner);
    return queue ? queue.items.length - queue.head : 0;
  }

  private pump(): void {
    while (this.inFlight < this.concurrency && this.size > 0) {
      const next = this.take();
      if (!next) return;
      const [owner, item] = next;
      this.inFlight++;
      this.read(item.state).then(
        (message) => {
          this.inFlight--;
          if (message !== undefined) this.deliver(owner, item.filter, message);
          this.pump();
        },
        (e: unknown) => {
          this.inFlight--;
          this.onError(e, item.filter);
          this.pump();
        },
      );
    }
  }

  /** The next read: the first owner's first item; that owner then goes to the end of the turn order. */
  private take(): [Owner, Pending] | undefined {
    const first = this.pending.entries().next();
    if (first.done) return undefined;
    const [owner, queue] = first.value;
    const item = queue.items[queue.head]!;
    queue.head++;
    this.size--;
    this.pending.delete(owner);
    if (queue.head < queue.items.length) {
      // compact now and then, so a long list does not keep its done items
      if (queue.head >= 64 && queue.head * 2 >= queue.items.length) {
        queue.items = queue.items.slice(queue.head);
        queue.head = 0;
      }
      this.pending.set(owner, queue);
    }
    return [owner, item];
  }
}
