import { toHex } from "../codec/hex.js";
import { ReadStream } from "../codec/readStream.js";
import { WriteStream } from "../codec/writeStream.js";
import type { WhiteFlagResult } from "../ledger/whiteFlag.js";
import { type KvStore, Repositories, type WriteBatch } from "../storage/index.js";
import { chainIdOf, encodeOutputFacts, type IndexableOutput, type IndexedOutputType, outputFacts } from "./facts.js";
import { addListWrites, type ListChanges, type ListEntry } from "./fieldLists.js";
import { chainKey, fieldList, listingKey, outputListPrefix, type Position, positionBytes } from "./keys.js";

// What the indexes hold for an unspent output, and the writes that keep them at a milestone's
// ledger: the index entries themselves, and the marker (IndexerState) naming the ledger index
// they reflect, which goes into the same atomic batch (the indexer's reads rely on it).

/** Layout version of the indexer buckets; bump when a key or value layout changes (forces a rebuild). */
export const INDEXER_VERSION = 2;

export interface IndexerState {
  version: number;
  ledgerIndex: number;
}

export function encodeState(ledgerIndex: number): Uint8Array {
  return new WriteStream(8).u32(INDEXER_VERSION).u32(ledgerIndex).finish();
}

export function decodeState(bytes: Uint8Array): IndexerState {
  const r = new ReadStream(bytes);
  const s = { version: r.u32("indexerState.version"), ledgerIndex: r.u32("indexerState.ledgerIndex") };
  r.expectEnd("indexerState");
  return s;
}

/**
 * What the indexes hold for one unspent output (nothing for a treasury output): its entry in
 * the listing of its kind and its chain entry, as keys and values, and its entry in each field
 * list it belongs to (kept in chunks, fieldLists.ts). The facts are computed once for all.
 */
export function indexForms(o: IndexableOutput): {
  entries: [Uint8Array, Uint8Array][];
  lists: { list: Uint8Array; entry: ListEntry }[];
} {
  const facts = outputFacts(o);
  if (!facts) return { entries: [], lists: [] };
  const type = o.output.type as IndexedOutputType;
  const value = encodeOutputFacts(facts);
  const at: Position = { createdAt: o.bookedTimestamp, outputId: o.outputId };
  const entries: [Uint8Array, Uint8Array][] = [[listingKey(outputListPrefix(type), at), value]];
  const chainId = chainIdOf(o);
  if (chainId) entries.push([chainKey(type, chainId), o.outputId]);
  const entry: ListEntry = { position: positionBytes(at), facts: value };
  return { entries, lists: facts.fields.map((f) => ({ list: fieldList(type, f), entry })) };
}

/** The per-entry keys and values the indexes hold for one unspent output (listing and chain). */
export function indexEntries(o: IndexableOutput): [Uint8Array, Uint8Array][] {
  return indexForms(o).entries;
}

/** The field lists one unspent output belongs to, with its entry in them. */
export function fieldEntries(o: IndexableOutput): { list: Uint8Array; entry: ListEntry }[] {
  return indexForms(o).lists;
}

/** Changes gathered per field list, by the list's bytes. */
class ListGroups {
  private readonly groups = new Map<string, ListChanges>();

  of(list: Uint8Array): ListChanges {
    const id = toHex(list);
    let c = this.groups.get(id);
    if (!c) {
      c = { list, puts: [], dels: [] };
      this.groups.set(id, c);
    }
    return c;
  }

  all(): IterableIterator<ListChanges> {
    return this.groups.values();
  }
}

/**
 * The index writes of a set of ledger changes (one milestone's, or a bulk load's): the entries
 * of every consumed output that existed before are removed, those of every created output that
 * is still unspent are added (outputs created and consumed within the milestone never appear).
 * A chain moved by a state transition is deleted with its old output and put again with the
 * new one; LevelDB applies a batch in order, so the put wins. Field lists are read as stored, so
 * the changes of one batch must not depend on another batch not yet written.
 */
export function addIndexWrites(
  store: KvStore,
  batch: WriteBatch,
  changes: { consumed: readonly { output: IndexableOutput }[]; created: readonly IndexableOutput[] },
): void {
  const lists = new ListGroups();
  for (const s of changes.consumed) {
    const forms = indexForms(s.output);
    for (const [key] of forms.entries) batch.del(key);
    for (const { list, entry } of forms.lists) lists.of(list).dels.push(entry.position);
  }
  for (const o of changes.created) {
    const forms = indexForms(o);
    for (const [key, value] of forms.entries) batch.put(key, value);
    for (const { list, entry } of forms.lists) lists.of(list).puts.push(entry);
  }
  addListWrites(store, batch, lists.all());
}

/** The index writes of one milestone and the marker naming its ledger index. */
export function addMilestoneWrites(
  store: KvStore,
  batch: WriteBatch,
  result: WhiteFlagResult,
  ledgerIndex: number,
): void {
  addIndexWrites(store, batch, result);
  Repositories.of(store).indexer.putState(batch, encodeState(ledgerIndex));
}
