import { toHex } from "../codec/hex.js";
import {
  Bucket,
  decodeLedgerDiff,
  decodeU32,
  idKey,
  indexOfKey,
  type KvStore,
  type LedgerDiffRecord,
  NodeStateKey,
  nodeStateKey,
} from "../storage/index.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { SnapshotErrorCode } from "./errors.js";

/**
 * The unspent outputs and the ledger index they belong to, read from one consistent view while
 * the node keeps confirming: one LevelDB iterator (its implicit snapshot) runs from the Unspent
 * bucket up to the NodeState entries and meets, all as of the same instant, the unspent outputs
 * first, then the ledger diffs, then the ledger and pruning indexes. A milestone writes all of
 * these in one batch, so the outputs are exactly the ledger at that ledger index, and the diffs
 * after the snapshot's target are the ones that roll it back to the target.
 *
 * The `Output` records of the unspent outputs are read beside the view: a record never changes
 * once written, and pruning (held off by a pin) never deletes one that is unspent.
 */

const EMPTY = new Uint8Array(0);

export interface UnspentChunk {
  ids: Uint8Array[];
  records: Uint8Array[];
}

export class LedgerView {
  /** The ledger index of the view; known once `unspent()` has run to its end. */
  ledgerIndex = 0;
  /** The pruning index of the view (0 when the node never pruned); known at the end too. */
  pruningIndex = 0;
  /** Ledger diffs of the milestones after the target, by index; known at the end too. */
  readonly diffs = new Map<number, LedgerDiffRecord>();

  private constructor(
    private readonly store: KvStore,
    readonly target: number,
    private readonly iterator: AsyncIterator<[Uint8Array, Uint8Array]>,
  ) {}

  /** Prepares the view; its snapshot is taken when `unspent()` reads the first entry. */
  static open(store: KvStore, target: number): LedgerView {
    const scan = store.scan({
      prefix: EMPTY,
      gte: Uint8Array.of(Bucket.Unspent),
      lte: nodeStateKey(NodeStateKey.PruningIndex),
    });
    return new LedgerView(store, target, scan[Symbol.asyncIterator]());
  }

  /**
   * The unspent outputs of the view with their `Output` records, in output ID order, `chunk` at
   * a time (the next chunk's records are read while the caller writes this one); then the rest
   * of the view is read. Call once.
   */
  async *unspent(chunk = 500): AsyncGenerator<UnspentChunk> {
    const records = async (ids: Uint8Array[]): Promise<UnspentChunk> => {
      const values = await this.store.getMany(ids.map((id) => idKey(Bucket.Output, id)));
      values.forEach((rec, i) => {
        if (!rec) {
          throw new LedgerNodeError(SnapshotErrorCode.LedgerInconsistent, `output ${toHex(ids[i]!)} has no record`);
        }
      });
      return { ids, records: values as Uint8Array[] };
    };
    let ahead: Promise<UnspentChunk> | undefined;
    let batch: Uint8Array[] = [];
    try {
      for (;;) {
        const r = await this.iterator.next();
        if (r.done) break;
        const [key, value] = r.value;
        if (key[0] !== Bucket.Unspent) {
          this.readState(key, value);
          continue;
        }
        batch.push(key.subarray(1));
        if (batch.length >= chunk) {
          const read = records(batch);
          read.catch(() => {}); // handled where it is awaited
          batch = [];
          if (ahead) yield await ahead;
          ahead = read;
        }
      }
      if (ahead) yield await ahead;
      ahead = undefined;
      if (batch.length > 0) yield await records(batch);
    } finally {
      await ahead?.catch(() => {});
    }
  }

  /** An entry after the unspent outputs: ledger diffs, the ledger and pruning indexes. */
  private readState(key: Uint8Array, value: Uint8Array): void {
    if (key[0] === Bucket.LedgerDiff) {
      const index = indexOfKey(key);
      if (index > this.target) this.diffs.set(index, decodeLedgerDiff(value));
    } else if (key[0] === Bucket.NodeState) {
      const name = new TextDecoder().decode(key.subarray(1));
      if (name === NodeStateKey.LedgerIndex) this.ledgerIndex = decodeU32(value, "nodeState.ledgerIndex");
      else if (name === NodeStateKey.PruningIndex) this.pruningIndex = decodeU32(value, "nodeState.pruningIndex");
    }
    // spent records, transaction records, parameters, entry points: not the ledger state
  }

  /** Releases the iterator (and its LevelDB snapshot). */
  async close(): Promise<void> {
    await this.iterator.return?.(undefined);
  }
}
