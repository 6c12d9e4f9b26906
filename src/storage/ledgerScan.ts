import { Bucket, indexOfKey, NodeStateKey, nodeStateKey } from "./buckets.js";
import type { KvStore } from "./kvStore.js";
import { decodeLedgerDiff, decodeTreasury, decodeU32, type LedgerDiffRecord, type TreasuryRecord } from "./records.js";
import { decodeStored } from "./repository.js";

/**
 * One entry of a ledger scan, in key order: every unspent output, then the ledger diffs, then the
 * two indexes and the treasury (absent when the node never had one stored: the empty treasury).
 */
export type LedgerScanEntry =
  | { kind: "unspent"; outputId: Uint8Array }
  | { kind: "ledgerDiff"; index: number; diff: () => LedgerDiffRecord }
  | { kind: "ledgerIndex"; index: number }
  | { kind: "pruningIndex"; index: number }
  | { kind: "treasury"; treasury: TreasuryRecord };

/**
 * The ledger state read through one LevelDB iterator (its implicit snapshot), from the Unspent
 * bucket up to the NodeState entries: the unspent outputs, the ledger diffs, then the ledger and
 * pruning indexes and the treasury, all as of the same instant (a milestone writes them in one batch). Entries of
 * the buckets in between that are not ledger state are skipped. `diff()` decodes a diff when the
 * caller wants it. The iterator is taken when the first entry is read; `return()` releases it.
 */
export async function* scanLedgerState(store: KvStore): AsyncGenerator<LedgerScanEntry> {
  const scan = store.scan({
    prefix: new Uint8Array(0),
    gte: Uint8Array.of(Bucket.Unspent),
    lte: nodeStateKey(NodeStateKey.Treasury),
  });
  for await (const [key, value] of scan) {
    if (key[0] === Bucket.Unspent) yield { kind: "unspent", outputId: key.subarray(1) };
    else if (key[0] === Bucket.LedgerDiff) {
      const index = indexOfKey(key);
      yield {
        kind: "ledgerDiff",
        index,
        diff: () => decodeStored(value, decodeLedgerDiff, `LedgerDiff record of ${index}`),
      };
    } else if (key[0] === Bucket.NodeState) {
      const name = new TextDecoder().decode(key.subarray(1));
      const u32 = () => decodeStored(value, (v) => decodeU32(v, `nodeState.${name}`), `NodeState ${name}`);
      if (name === NodeStateKey.LedgerIndex) yield { kind: "ledgerIndex", index: u32() };
      else if (name === NodeStateKey.PruningIndex) yield { kind: "pruningIndex", index: u32() };
      else if (name === NodeStateKey.Treasury) {
        yield { kind: "treasury", treasury: decodeStored(value, decodeTreasury, "NodeState treasury") };
      }
    }
    // spent records, transaction records, parameters, entry points: not the ledger state
  }
}
