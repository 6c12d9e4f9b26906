import { compareBytes } from "../codec/hex.js";
import {
  indexerFieldChunkKey as chunkKey,
  indexerFieldDirKey as dirKey,
  type KvStore,
  Repositories,
  type WriteBatch,
} from "../storage/index.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { IndexerErrorCode } from "./errors.js";
import { POSITION_LENGTH } from "./keys.js";

/**
 * The field lists of the indexer (an owner's outputs, a sender's, a tag's…), kept as chunks of
 * up to `CHUNK_ENTRIES` entries in position order plus one directory per list. A listing page
 * is then a few synchronous point reads (the directory and one to three chunks) instead of a
 * range read of one LevelDB entry per output, which costs about a microsecond each on the main
 * thread before any work is done. Writes stay proportional to what a milestone changes: only
 * the chunks it touches and the directory of each list it touches are rewritten.
 *
 * Layouts (documented with the `Bucket` enum):
 * - directory `IndexerFieldDir ‖ list`: per chunk in position order, `seq u32 BE ‖
 *   last position[38]`; `last` is at least every position of the chunk and below
 *   every position of the next chunk, so the chunk of a position is the first whose `last` is
 *   not below it (or the final chunk, for a position beyond them all).
 * - chunk `IndexerField ‖ list ‖ seq u32 BE`: entries `position[38] ‖ facts length u16 LE ‖
 *   facts` in position order.
 * where `list` is `outputType u8 ‖ field u8 ‖ len u8 ‖ value`.
 */

/** Most entries a chunk holds; a fuller chunk is split. About 5 KB with typical facts. */
export const CHUNK_ENTRIES = 64;

export interface ListEntry {
  /** createdAt u32 BE ‖ outputId[34]. */
  position: Uint8Array;
  /** Encoded OutputFacts (facts.ts). */
  facts: Uint8Array;
}

interface DirEntry {
  seq: number;
  last: Uint8Array;
}

const DIR_ENTRY = 4 + POSITION_LENGTH;

const corrupt = (what: string) => new LedgerNodeError(IndexerErrorCode.Corrupt, `a field list ${what} does not decode`);

function encodeDir(dir: readonly DirEntry[]): Uint8Array {
  const out = new Uint8Array(dir.length * DIR_ENTRY);
  const view = new DataView(out.buffer);
  dir.forEach((d, i) => {
    const at = i * DIR_ENTRY;
    view.setUint32(at, d.seq, false);
    out.set(d.last, at + 4);
  });
  return out;
}

function decodeDir(bytes: Uint8Array | undefined): DirEntry[] {
  if (!bytes) return [];
  if (bytes.length % DIR_ENTRY !== 0) throw corrupt("directory");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const dir: DirEntry[] = [];
  for (let at = 0; at < bytes.length; at += DIR_ENTRY) {
    dir.push({
      seq: view.getUint32(at, false),
      last: bytes.subarray(at + 4, at + 4 + POSITION_LENGTH),
    });
  }
  return dir;
}

function encodeChunk(entries: readonly ListEntry[]): Uint8Array {
  let length = 0;
  for (const e of entries) length += POSITION_LENGTH + 2 + e.facts.length;
  const out = new Uint8Array(length);
  const view = new DataView(out.buffer);
  let at = 0;
  for (const e of entries) {
    out.set(e.position, at);
    view.setUint16(at + POSITION_LENGTH, e.facts.length, true);
    out.set(e.facts, at + POSITION_LENGTH + 2);
    at += POSITION_LENGTH + 2 + e.facts.length;
  }
  return out;
}

/** The entries of a chunk, as views into `bytes`. */
export function decodeChunk(bytes: Uint8Array): ListEntry[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const entries: ListEntry[] = [];
  let at = 0;
  while (at < bytes.length) {
    if (at + POSITION_LENGTH + 2 > bytes.length) throw corrupt("chunk");
    const length = view.getUint16(at + POSITION_LENGTH, true);
    const end = at + POSITION_LENGTH + 2 + length;
    if (end > bytes.length) throw corrupt("chunk");
    entries.push({
      position: bytes.subarray(at, at + POSITION_LENGTH),
      facts: bytes.subarray(at + POSITION_LENGTH + 2, end),
    });
    at = end;
  }
  return entries;
}

/** Index of the first chunk whose last position is not below `position` (`dir.length` when none is). */
function firstChunkFrom(dir: readonly DirEntry[], position: Uint8Array): number {
  let lo = 0;
  let hi = dir.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (compareBytes(dir[mid]!.last, position) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Index of the chunk holding `position`: the first whose last position is not below it, else the final one. */
function chunkOf(dir: readonly DirEntry[], position: Uint8Array): number {
  return Math.min(firstChunkFrom(dir, position), dir.length - 1);
}

/** What one milestone changes in one list. */
export interface ListChanges {
  /** `outputType ‖ field ‖ len ‖ value`. */
  list: Uint8Array;
  puts: ListEntry[];
  /** Positions to remove. */
  dels: Uint8Array[];
}

/**
 * Adds to `batch` the chunk and directory writes that apply `changes` to the lists as stored
 * (the state before this batch: milestones are confirmed one at a time). Each touched chunk is
 * read once, changed in memory, and written back, split when it grew past `CHUNK_ENTRIES` and
 * deleted when it emptied.
 */
export function addListWrites(store: KvStore, batch: WriteBatch, changes: Iterable<ListChanges>): void {
  for (const { list, puts, dels } of changes) {
    const dirKeyBytes = dirKey(list);
    const dir = decodeDir(store.getSync(dirKeyBytes));
    const touched = new Map<number, ListEntry[]>();
    const entriesOf = (i: number): ListEntry[] => {
      let entries = touched.get(i);
      if (!entries) {
        const bytes = store.getSync(chunkKey(list, dir[i]!.seq));
        if (!bytes) throw new LedgerNodeError(IndexerErrorCode.Corrupt, "a field list chunk is missing");
        entries = decodeChunk(bytes);
        touched.set(i, entries);
      }
      return entries;
    };
    if (dir.length === 0 && puts.length > 0) {
      dir.push({ seq: 0, last: puts[0]!.position });
      touched.set(0, []);
    }
    if (dir.length > 0) {
      for (const position of dels) {
        const entries = entriesOf(chunkOf(dir, position));
        const at = entries.findIndex((e) => compareBytes(e.position, position) === 0);
        if (at >= 0) entries.splice(at, 1);
      }
      for (const put of puts) {
        const entries = entriesOf(chunkOf(dir, put.position));
        let at = entries.length;
        while (at > 0 && compareBytes(entries[at - 1]!.position, put.position) > 0) at--;
        if (at > 0 && compareBytes(entries[at - 1]!.position, put.position) === 0) entries[at - 1] = put;
        else entries.splice(at, 0, put);
      }
    }
    if (touched.size === 0) continue;

    // write the touched chunks back, in directory order, and rebuild the directory
    let nextSeq = dir.reduce((m, d) => Math.max(m, d.seq + 1), 0);
    const next: DirEntry[] = [];
    dir.forEach((d, i) => {
      const entries = touched.get(i);
      if (!entries) {
        next.push(d);
        return;
      }
      if (entries.length === 0) {
        batch.del(chunkKey(list, d.seq));
        return;
      }
      const pieces = Math.ceil(entries.length / CHUNK_ENTRIES);
      const per = Math.ceil(entries.length / pieces);
      for (let p = 0; p < pieces; p++) {
        const part = entries.slice(p * per, (p + 1) * per);
        const seq = p === 0 ? d.seq : nextSeq++;
        batch.put(chunkKey(list, seq), encodeChunk(part));
        next.push({ seq, last: part[part.length - 1]!.position });
      }
    });
    if (next.length === 0) batch.del(dirKeyBytes);
    else batch.put(dirKeyBytes, encodeDir(next));
  }
}

/**
 * Writes lists whole from their entries handed over list after list, each in position order
 * (a rebuild reads them so from its sort entries): a chunk is written as soon as it holds
 * `CHUNK_ENTRIES` entries and a list's directory once the list ends, so memory holds one chunk
 * and one list's directory whatever the number of lists. `batch` answers the batch to write
 * into now (the caller writes them out in bounded batches between calls).
 */
export class ListWriter {
  private list: Uint8Array | undefined;
  private chunk: ListEntry[] = [];
  private dir: DirEntry[] = [];

  constructor(
    private readonly batch: () => WriteBatch,
    /** Where the directories go (a bulk load writes them in batches of their own: rebuild.ts). */
    private readonly dirBatch: () => WriteBatch = batch,
  ) {}

  /** Adds `entry` to `list`: the same list as the call before with a later position, or a list after it. */
  add(list: Uint8Array, entry: ListEntry): void {
    if (!this.list || compareBytes(list, this.list) !== 0) {
      if (this.list && compareBytes(list, this.list) < 0) throw corrupt("entry out of order");
      this.end();
      this.list = list.slice();
    } else if (this.chunk.length > 0 && compareBytes(entry.position, this.chunk.at(-1)!.position) <= 0) {
      throw corrupt("entry out of order");
    }
    this.chunk.push(entry);
    if (this.chunk.length === CHUNK_ENTRIES) this.writeChunk();
  }

  /** Writes what is left of the current list and its directory. */
  end(): void {
    if (!this.list) return;
    if (this.chunk.length > 0) this.writeChunk();
    if (this.dir.length > 0) this.dirBatch().put(dirKey(this.list), encodeDir(this.dir));
    this.list = undefined;
    this.dir = [];
  }

  private writeChunk(): void {
    const list = this.list!;
    const seq = this.dir.length;
    this.batch().put(chunkKey(list, seq), encodeChunk(this.chunk));
    this.dir.push({ seq, last: this.chunk.at(-1)!.position.slice() });
    this.chunk = [];
  }
}

/** Adds a list written whole: `entries` in position order, at most `CHUNK_ENTRIES` per chunk. */
export function addWholeList(batch: WriteBatch, list: Uint8Array, entries: readonly ListEntry[]): void {
  const writer = new ListWriter(() => batch);
  for (const e of entries) writer.add(list, e);
  writer.end();
}

/**
 * Reads a list in position order from the first entry at or after `from`, a chunk at a time,
 * with synchronous point reads. The directory read when it is created and the chunks read as
 * they are reached belong to one ledger state only if the caller checks that no milestone
 * landed meanwhile (the indexer's marker check does, and reads again when one did).
 */
export class ListReader {
  private readonly dir: DirEntry[];
  private chunk: number;
  private entries: ListEntry[] = [];
  private at = 0;

  constructor(
    private readonly store: KvStore,
    private readonly list: Uint8Array,
    private readonly from: Uint8Array,
  ) {
    this.dir = decodeDir(store.getSync(dirKey(list)));
    // the first chunk that may hold a position at or after `from`
    this.chunk = firstChunkFrom(this.dir, from);
  }

  /** The next entry, or undefined at the end of the list. */
  next(): ListEntry | undefined {
    for (;;) {
      while (this.at < this.entries.length) {
        const e = this.entries[this.at++]!;
        if (compareBytes(e.position, this.from) >= 0) return e;
      }
      if (this.chunk >= this.dir.length) return undefined;
      const bytes = this.store.getSync(chunkKey(this.list, this.dir[this.chunk++]!.seq));
      if (!bytes)
        throw new LedgerNodeError(IndexerErrorCode.ListMoved, "a field list chunk named by its directory is missing");
      this.entries = decodeChunk(bytes);
      this.at = 0;
    }
  }
}

/** Every list of the indexes with its entries, in key order (for tests comparing index states). */
export async function* allLists(store: KvStore): AsyncGenerator<{ list: Uint8Array; entries: ListEntry[] }> {
  for await (const list of Repositories.of(store).indexer.fieldLists()) {
    const reader = new ListReader(store, list, new Uint8Array(POSITION_LENGTH));
    const entries: ListEntry[] = [];
    for (let e = reader.next(); e; e = reader.next()) entries.push(e);
    yield { list, entries };
  }
}
