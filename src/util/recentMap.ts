/**
 * A map that keeps its last `capacity` insertions: the oldest key leaves when a new one comes.
 * The order of insertion is kept in a ring beside the map, because evicting with
 * `map.delete(map.keys().next().value)` is not O(1) in V8: the iterator walks over the holes
 * that earlier deletions left at the front of the table, so a full map evicting on every
 * insertion costs time in proportion to those holes (measured: 70x slower at 200,000 entries,
 * enough to halve the node's block throughput once 200,000 blocks had been referenced).
 * A key is expected to be inserted once (a block is referenced once); setting it again only
 * updates its value.
 */
export class RecentMap<K, V> {
  private readonly map = new Map<K, V>();
  private readonly ring: (K | undefined)[];
  private at = 0;

  constructor(readonly capacity: number) {
    this.ring = new Array<K | undefined>(capacity);
  }

  get size(): number {
    return this.map.size;
  }

  get(key: K): V | undefined {
    return this.map.get(key);
  }

  has(key: K): boolean {
    return this.map.has(key);
  }

  set(key: K, value: V): void {
    if (this.map.has(key)) {
      this.map.set(key, value);
      return;
    }
    const oldest = this.ring[this.at];
    if (oldest !== undefined) this.map.delete(oldest);
    this.ring[this.at] = key;
    this.at = (this.at + 1) % this.capacity;
    this.map.set(key, value);
  }
}
