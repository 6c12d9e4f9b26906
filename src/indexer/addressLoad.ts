import { serializeAddressBytes } from "../codec/address.js";
import { bytesEqual } from "../codec/hex.js";
import { decodeOutput } from "../codec/outputs/output.js";
import type { Output } from "../codec/types.js";
import { encodeAddressBalance, type KvStore, Repositories, type WriteBatch } from "../storage/index.js";
import type { LedgerIndex } from "../tangle/events.js";
import { Serial } from "../util/serial.js";
import { conditionalEntries } from "./addressConditionals.js";
import { ADDRESS_LEDGER_VERSION, addAddressLedgerWrites, addressLedgerAt, ownerAddress } from "./addressLedger.js";
import { ExternalSort } from "./externalSort.js";
import { passOverLedger, RebuildBatches } from "./rebuild.js";

/** Serialized address bytes: the type, then 32 bytes (Ed25519, alias and NFT addresses alike). */
const ADDRESS_LENGTH = 33;

/**
 * The address ledger (addressLedger.ts) of a ledger loaded in bulk into an empty database (a
 * snapshot import), written with it as `IndexerLoad` writes the indexes: each output's conditional
 * entries go into the batch its output goes in, and its owner and amount to a sort by owner
 * (outside the database, ExternalSort); `finish` sums each owner's outputs from the sorted
 * entries, writes the balances in bounded batches, and the marker naming the ledger index last.
 * `rebuildAddressLedger` does the same from the unspent outputs of a database already loaded.
 */
export class AddressLedgerLoad {
  private readonly sort: ExternalSort;
  private readonly db: Repositories;
  /** A sort entry's value (the amount), written here before the sort copies it. */
  private readonly amount = Buffer.alloc(8);

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
    for (const c of conditionalEntries(outputId, output, address))
      this.db.addresses.putConditional(batch, c.address, c.entry);
    // owner ‖ output ID → amount u64 LE: the owner's outputs come together, each once
    this.amount.writeBigUInt64LE(output.amount);
    this.sort.add([address, outputId], this.amount);
  }

  /** The balances and the marker, at the loaded ledger's index. */
  async finish(ledgerIndex: number): Promise<void> {
    const balances = this.db.addresses.balances;
    // the balances in key order, in tables apart from the writes before them (BULK_BATCH_BYTES)
    await this.store.flushMemtable();
    let batch = this.store.bulkBatch();
    let owner: Uint8Array | undefined;
    let total = 0n;
    let count = 0;
    const put = () => {
      if (owner) balances.put(batch, owner, encodeAddressBalance({ total, count }));
    };
    for await (const chunk of this.sort.sorted()) {
      for (const [key, amount] of chunk) {
        const address = key.subarray(0, ADDRESS_LENGTH);
        if (!owner || !bytesEqual(address, owner)) {
          put();
          if (batch.full) {
            await batch.write({ sync: false });
            batch = this.store.bulkBatch();
          }
          owner = address.slice();
          total = 0n;
          count = 0;
        }
        total += amount.readBigUInt64LE(0);
        count++;
      }
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

/**
 * Rebuilds the address ledger of the unspent outputs at `ledgerIndex` (the database's ledger,
 * which does not move meanwhile), in batches of bounded size and with the owners sorted outside
 * the database, so memory does not grow with the ledger or its number of owners:
 * 1. the marker is deleted, synced: from here until step 4 reads answer NotReady, and a crash or
 *    a failure leaves no marker, so the next start (or milestone) rebuilds again;
 * 2. every balance and conditional entry is deleted;
 * 3. one pass over the unspent outputs writes the conditional entries and sorts owner and amount;
 * 4. `AddressLedgerLoad.finish`: the balances, then the marker naming `ledgerIndex`, synced.
 */
export async function rebuildAddressLedger(store: KvStore, ledgerIndex: number, sortDir: string): Promise<void> {
  const db = Repositories.of(store);
  const first = store.batch();
  db.addresses.delState(first);
  await first.write({ sync: true });
  await db.addresses.clearBalances();
  const load = new AddressLedgerLoad(store, sortDir);
  try {
    const out = new RebuildBatches(store, {});
    await passOverLedger(db, out, (batch, outputId, record) =>
      load.add(batch, outputId, decodeOutput(record.outputBytes)),
    );
    await out.drain();
    await load.finish(ledgerIndex);
  } finally {
    await load.close();
  }
}

/**
 * The address ledger as a ledger index of the node (node/components.ts): each milestone's batch
 * carries its writes; when the marker does not name the ledger the milestone starts from (a
 * new layout version, a database from before the address ledger), it is rebuilt first, in
 * batches of its own that land before the milestone's. `catchUp` does the same at start, so a
 * node serves balances from the buckets from its first request.
 */
export function addressLedger(store: KvStore, sortDir: string): LedgerIndex {
  const db = Repositories.of(store);
  // the writer and a rebuild never overlap: a rebuild must see no milestone's writes added meanwhile
  const serial = new Serial();
  const rebuild = (ledgerIndex: number) => rebuildAddressLedger(store, ledgerIndex, sortDir);
  return {
    name: "explorer address ledger",
    writeMilestone: (batch, result, milestone) =>
      serial.run(() => addAddressLedgerWrites(db, batch, result, milestone, rebuild)),
    catchUp: () =>
      serial.run(async () => {
        const ledgerIndex = await db.nodeState.ledgerIndex();
        if (await addressLedgerAt(db, ledgerIndex)) return;
        await rebuild(ledgerIndex);
        // a confirmation begun before this index was attached landed meanwhile: the next
        // milestone finds no marker and rebuilds at its own start
        if ((await db.nodeState.ledgerIndex()) !== ledgerIndex) {
          const batch = store.batch();
          db.addresses.delState(batch);
          await batch.write({ sync: true });
        }
      }),
  };
}
