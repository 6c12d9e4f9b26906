import type { KvStore, WriteBatch } from "../storage/index.js";

/**
 * Intake's group commit, written behind (see `Tangle.storeBlock`): the writes of the blocks
 * taken in during one turn of the event loop share one batch, handed to storage on the next turn
 * and not synced. Nobody waits for a batch but whoever must see it on disk (`written`).
 */
export class IntakeWrites {
  /** The batch collecting this turn's writes. */
  private pending: WriteBatch | undefined;
  /** Batches handed to storage (or about to be) and not yet written. */
  private readonly writing = new Set<Promise<void>>();
  /** The first batch that failed to write. */
  private failure: unknown;

  constructor(private readonly store: KvStore) {}

  /** The batch of this turn of the event loop. */
  batch(): WriteBatch {
    if (this.pending) return this.pending;
    const batch = this.store.batch();
    const written = new Promise<void>((resolve, reject) => {
      setImmediate(() => {
        this.pending = undefined;
        batch.write({ sync: false }).then(resolve, reject);
      });
    });
    this.writing.add(written);
    written.then(
      () => this.writing.delete(written),
      (e: unknown) => {
        this.writing.delete(written);
        this.failure ??= e;
      },
    );
    this.pending = batch;
    return batch;
  }

  /**
   * Resolves once every batch begun so far is on disk (not those begun later); rejects once any
   * batch failed to write: nothing may be confirmed past a lost block.
   */
  async written(): Promise<void> {
    await Promise.allSettled([...this.writing]);
    if (this.failure !== undefined) throw this.failure;
  }
}
