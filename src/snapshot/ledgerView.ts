import { toHex } from "../codec/hex.js";
import {
  EMPTY_TREASURY,
  type KvStore,
  type LedgerDiffRecord,
  type LedgerScanEntry,
  Repositories,
  scanLedgerState,
  type TreasuryRecord,
} from "../storage/index.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { SnapshotErrorCode } from "./errors.js";

/**
 * The unspent outputs and the ledger index they belong to, read from one consistent view while
 * the node keeps confirming: one LevelDB iterator (its implicit snapshot, `scanLedgerState`)
 * meets, all as of the same instant, the unspent outputs first, then the ledger diffs, then the
 * ledger and pruning indexes and the treasury (TIP-34). A milestone writes all of
 * these in one batch, so the outputs are exactly the ledger at that ledger index, and the diffs
 * after the snapshot's target are the ones that roll it back to the target.
 *
 * The `Output` records of the unspent outputs are read beside the view: a record never changes
 * once written, and pruning (held off by a pin) never deletes one that is unspent.
 */

export interface UnspentChunk {
  ids: Uint8Array[];
  records: Uint8Array[];
}

export class LedgerView {
  /** The ledger index of the view; known once `unspent()` has run to its end. */
  ledgerIndex = 0;
  /** The pruning index of the view (0 when the node never pruned); known at the end too. */
  pruningIndex = 0;
  /** The treasury output at the view's ledger index; known at the end too. */
  treasury: TreasuryRecord = EMPTY_TREASURY;
  /** Ledger diffs of the milestones after the target, by index; known at the end too. */
  readonly diffs = new Map<number, LedgerDiffRecord>();

  private constructor(
    private readonly store: KvStore,
    readonly target: number,
    private readonly iterator: AsyncIterator<LedgerScanEntry>,
  ) {}

  /** Prepares the view; its snapshot is taken when `unspent()` reads the first entry. */
  static open(store: KvStore, target: number): LedgerView {
    return new LedgerView(store, target, scanLedgerState(store)[Symbol.asyncIterator]());
  }

  /**
   * The unspent outputs of the view with their `Output` records, in output ID order, `chunk` at
   * a time (the next chunk's records are read while the caller writes this one); then the rest
   * of the view is read. Call once.
   */
  async *unspent(chunk = 500): AsyncGenerator<UnspentChunk> {
    const records = async (ids: Uint8Array[]): Promise<UnspentChunk> => {
      const values = await Repositories.of(this.store).outputs.getManyBytes(ids);
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
        const entry = r.value;
        if (entry.kind !== "unspent") {
          this.readState(entry);
          continue;
        }
        batch.push(entry.outputId);
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

  /** An entry after the unspent outputs: ledger diffs, the ledger and pruning indexes, the treasury. */
  private readState(entry: Exclude<LedgerScanEntry, { kind: "unspent" }>): void {
    if (entry.kind === "ledgerDiff") {
      if (entry.index > this.target) this.diffs.set(entry.index, entry.diff());
    } else if (entry.kind === "ledgerIndex") this.ledgerIndex = entry.index;
    else if (entry.kind === "treasury") this.treasury = entry.treasury;
    else this.pruningIndex = entry.index;
  }

  /** Releases the iterator (and its LevelDB snapshot). */
  async close(): Promise<void> {
    await this.iterator.return?.(undefined);
  }
}
