import { Bucket, bucketPrefix, receiptKey } from "./buckets.js";
import type { KvStore, WriteBatch } from "./kvStore.js";
import { corrupt } from "./repository.js";

/**
 * The Receipt bucket (TIP-34 receipts of migrated funds), keyed as Hornet keys them
 * (`pkg/model/utxo/receipt.go`): by the legacy milestone the funds were migrated at, then by
 * the milestone that carried the receipt, so the receipts of one `migratedAt` are one range.
 * The value is the receipt milestone option's bytes; what they mean is the codec's.
 */

/** One stored receipt. */
export interface StoredReceipt {
  migratedAt: number;
  milestoneIndex: number;
  /** The receipt milestone option, serialized (type byte included). */
  bytes: Uint8Array;
}

export class ReceiptRepository {
  constructor(private readonly store: KvStore) {}

  /** Adds the write of a receipt to `batch`. */
  put(batch: WriteBatch, migratedAt: number, milestoneIndex: number, bytes: Uint8Array): void {
    batch.put(receiptKey(migratedAt, milestoneIndex), bytes);
  }

  /** Adds the deletion of a receipt to `batch`. */
  del(batch: WriteBatch, migratedAt: number, milestoneIndex: number): void {
    batch.del(receiptKey(migratedAt, milestoneIndex));
  }

  /**
   * The stored receipts in key order (by `migratedAt`, then milestone index), all of them or
   * those of one `migratedAt`; at most `limit`.
   */
  async list(options: { migratedAt?: number; limit: number }): Promise<StoredReceipt[]> {
    const prefix = options.migratedAt === undefined ? bucketPrefix(Bucket.Receipt) : receiptKey(options.migratedAt);
    const out: StoredReceipt[] = [];
    for await (const [key, value] of this.store.scan({ prefix, limit: options.limit })) {
      if (key.length !== 9) throw corrupt(`a Receipt key of ${key.length} bytes, expected 9`);
      const view = new DataView(key.buffer, key.byteOffset, key.byteLength);
      out.push({ migratedAt: view.getUint32(1, false), milestoneIndex: view.getUint32(5, false), bytes: value });
    }
    return out;
  }
}
