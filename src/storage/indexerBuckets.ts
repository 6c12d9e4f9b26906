import { bucketPrefix, INDEXER_BUCKETS, INDEXER_STATE_KEY, indexerChainKey, indexerFieldDirKey } from "./buckets.js";
import type { KvStore, WriteBatch } from "./kvStore.js";

/**
 * The indexer's buckets (IndexerState, IndexerChain, IndexerOutput, IndexerField,
 * IndexerFieldDir, IndexerSort) as the indexer reads and writes them outside its listings: the state marker,
 * chain lookups, a rebuild's clearing. Their keys are built in `buckets.ts`; their values are
 * the indexer's own layouts (`indexer/facts.ts`, `indexer/fieldLists.ts`, the marker in
 * `indexer/indexer.ts`). Listings read ranges of these keys through `KvStore.openRange`.
 */
export class IndexerBuckets {
  constructor(private readonly store: KvStore) {}

  /** The IndexerState marker's bytes. */
  state(): Promise<Uint8Array | undefined> {
    return this.store.get(INDEXER_STATE_KEY);
  }

  /** The IndexerState marker's bytes, with a synchronous point read (one small hot key). */
  stateSync(): Uint8Array | undefined {
    return this.store.getSync(INDEXER_STATE_KEY);
  }

  putState(batch: WriteBatch, value: Uint8Array): void {
    batch.put(INDEXER_STATE_KEY, value);
  }

  /** The output ID of a chain's current unspent output (IndexerChain). */
  chain(outputType: number, chainId: Uint8Array): Promise<Uint8Array | undefined> {
    return this.store.get(indexerChainKey(outputType, chainId));
  }

  /** Adds the deletion of the marker to `batch` (the first write of a rebuild). */
  delState(batch: WriteBatch): void {
    batch.del(INDEXER_STATE_KEY);
  }

  /**
   * Deletes every index entry (not the marker), a rebuild's leftover sort entries included, in
   * LevelDB's own loop and not atomically: only with the marker already gone (a rebuild).
   */
  async clear(): Promise<void> {
    for (const bucket of INDEXER_BUCKETS) await this.store.clearRange({ prefix: bucketPrefix(bucket) });
  }

  /** The name of every field list (the IndexerFieldDir keys without their bucket byte), in key order. */
  async *fieldLists(): AsyncGenerator<Uint8Array> {
    for await (const key of this.store.scanKeys({ prefix: indexerFieldDirKey(new Uint8Array(0)) })) {
      yield key.slice(1);
    }
  }
}
