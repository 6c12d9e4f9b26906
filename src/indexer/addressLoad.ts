import { serializeAddressBytes } from "../codec/address.js";
import { bytesEqual } from "../codec/hex.js";
import type { Output } from "../codec/types.js";
import { encodeAddressBalance, type KvStore, Repositories, type WriteBatch } from "../storage/index.js";
import { ADDRESS_LEDGER_VERSION, conditionalOf, ownerAddress } from "./addressLedger.js";
import { ExternalSort } from "./externalSort.js";
import { REBUILD_BATCH_WRITES } from "./rebuild.js";

/** Serialized address bytes: the type, then 32 bytes (Ed25519, alias and NFT addresses alike). */
const ADDRESS_LENGTH = 33;

/**
 * The address ledger (addressLedger.ts) of a ledger loaded in bulk into an empty database (a
 * snapshot import), written with it as `IndexerLoad` writes the indexes: each output's time-bound
 * entry goes into the batch its output goes in, and its owner and amount to a sort by owner
 * (outside the database, ExternalSort); `finish` sums each owner's outputs from the sorted
 * entries, writes the balances in bounded batches, and the marker naming the ledger index last.
 * Without it the first milestone after the start rebuilds the address ledger from the whole
 * ledger in one map and one batch (at 10,000,000 outputs, a million owners at once).
 */
export class AddressLedgerLoad {
  private readonly sort: ExternalSort;
  private readonly db: Repositories;

  constructor(
    private readonly store: KvStore,
    sortDir: string,
  ) {
    this.sort = new ExternalSort(sortDir);
    this.db = Repositories.of(store);
  }

  add(batch: WriteBatch, outputId: Uint8Array, output: Output): void {
    const owner = ownerAddress(output);
    if (!owner) return;
    const address = serializeAddressBytes(owner);
    const c = conditionalOf(outputId, output);
    if (c) this.db.addresses.putConditional(batch, address, outputId, c);
    // owner ‖ output ID → amount u64 LE: the owner's outputs come together, each once
    const key = new Uint8Array(ADDRESS_LENGTH + outputId.length);
    key.set(address);
    key.set(outputId, ADDRESS_LENGTH);
    const amount = new Uint8Array(8);
    Buffer.from(amount.buffer).writeBigUInt64LE(output.amount);
    this.sort.add(key, amount);
  }

  /** The balances and the marker, at the loaded ledger's index. */
  async finish(ledgerIndex: number): Promise<void> {
    const balances = this.db.addresses.balances;
    let batch = this.store.bulkBatch();
    let owner: Uint8Array | undefined;
    let total = 0n;
    let count = 0;
    const put = () => {
      if (owner) balances.put(batch, owner, encodeAddressBalance({ total, count }));
    };
    for await (const [key, amount] of this.sort.sorted()) {
      const address = key.subarray(0, ADDRESS_LENGTH);
      if (!owner || !bytesEqual(address, owner)) {
        put();
        if (batch.size >= REBUILD_BATCH_WRITES) {
          await batch.write({ sync: false });
          batch = this.store.bulkBatch();
        }
        owner = address.slice();
        total = 0n;
        count = 0;
      }
      total += Buffer.from(amount.buffer, amount.byteOffset, 8).readBigUInt64LE(0);
      count++;
    }
    put();
    this.db.addresses.putState(batch, { version: ADDRESS_LEDGER_VERSION, ledgerIndex });
    await batch.write({ sync: true });
  }

  /** Removes what the sort wrote (after `finish`, or instead of it). */
  close(): Promise<void> {
    return this.sort.close();
  }
}
