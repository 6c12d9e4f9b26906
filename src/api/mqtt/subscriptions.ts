/**
 * Who subscribed to what: the event API's one record of subscriptions (the broker delivers from
 * it; nothing else keeps any per-subscription state). A subscription costs an entry in its
 * holder's filter set and one in the topic map; a topic held by one client (the usual case for
 * `block-metadata/{id}`, `outputs/{id}`) maps to that client itself, a Set is made only for a
 * topic two clients share. Empty entries are deleted, so what a client held is freed when it
 * unsubscribes or leaves.
 */

/** A subscriber as the index sees it: the filters it holds. */
export interface Holder {
  readonly filters: Set<string>;
}

export class SubscriptionIndex<H extends Holder> {
  /** Holders by filter: one holder, or a Set once two share it. */
  private readonly byFilter = new Map<string, H | Set<H>>();
  /** How many filters in `byFilter` start with each first level. */
  private readonly byFirstLevel = new Map<string, number>();
  /** Subscriptions held by all holders together. */
  size = 0;

  /** Adds `filter` to `holder`'s subscriptions; false when it already held it. */
  add(holder: H, filter: string): boolean {
    if (holder.filters.has(filter)) return false;
    holder.filters.add(filter);
    this.size++;
    const held = this.byFilter.get(filter);
    if (held === undefined) {
      this.byFilter.set(filter, holder);
      this.countLevel(filter, 1);
    } else if (held instanceof Set) held.add(holder);
    else this.byFilter.set(filter, new Set([held, holder]));
    return true;
  }

  /** Removes `filter` from `holder`'s subscriptions (nothing when it did not hold it). */
  remove(holder: H, filter: string): void {
    if (!holder.filters.delete(filter)) return;
    this.size--;
    const held = this.byFilter.get(filter);
    if (held instanceof Set) {
      held.delete(holder);
      if (held.size === 1) this.byFilter.set(filter, held.values().next().value!);
      return;
    }
    if (held !== holder) return;
    this.byFilter.delete(filter);
    this.countLevel(filter, -1);
  }

  /** Removes every subscription of `holder`. */
  removeAll(holder: H): void {
    for (const filter of [...holder.filters]) this.remove(holder, filter);
  }

  /** Whether anyone holds exactly `filter`. */
  has(filter: string): boolean {
    return this.byFilter.has(filter);
  }

  /** Whether anyone holds a filter whose first level is `level`. */
  hasUnder(level: string): boolean {
    return this.byFirstLevel.has(level);
  }

  /** The holders of `filter` (none: undefined). */
  holders(filter: string): H | Set<H> | undefined {
    return this.byFilter.get(filter);
  }

  /** Distinct filters held (tests, stats). */
  get filterCount(): number {
    return this.byFilter.size;
  }

  /** First levels counted (tests). */
  get levelCount(): number {
    return this.byFirstLevel.size;
  }

  private countLevel(filter: string, by: 1 | -1): void {
    const slash = filter.indexOf("/");
    const level = slash < 0 ? filter : filter.slice(0, slash);
    const n = (this.byFirstLevel.get(level) ?? 0) + by;
    if (n > 0) this.byFirstLevel.set(level, n);
    else this.byFirstLevel.delete(level);
  }
}
