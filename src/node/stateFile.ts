import { type FileHandle, open } from "node:fs/promises";
import { bytesEqual, compareBytes } from "../codec/hex.js";
import { type KvStore, type RangeEntry, StorageErrorCode, type WriteBatch } from "../storage/index.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";

/**
 * A saved state on disk (node/devStates.ts): every key and value of the database in key order,
 * as records `key length u32 LE ‖ key ‖ value length u32 LE ‖ value`. Written from one LevelDB
 * iterator (a consistent view of the store) and read back in order, so putting the state back is
 * one merge of two sorted streams into the batch of what differs.
 */

/** Entries taken from the store per read. */
const PAGE = 4096;
/** Bytes written or read per file call. */
const CHUNK = 1 << 20;

/**
 * Writes the store's entries from `range` (opened by the caller, so its view is taken where the
 * caller chose) to `path`, closing the range. Answers the number of entries.
 */
export async function writeStateFile(
  range: { take(n: number): Promise<RangeEntry[]>; close(): Promise<void> },
  path: string,
): Promise<number> {
  const file = await open(path, "wx");
  let count = 0;
  try {
    let chunk = Buffer.allocUnsafe(CHUNK);
    let used = 0;
    const flush = async () => {
      if (used > 0) await file.write(chunk, 0, used);
      used = 0;
    };
    for (;;) {
      const page = await range.take(PAGE);
      if (page.length === 0) break;
      for (const [key, value] of page) {
        const v = value ?? new Uint8Array(0);
        const size = 8 + key.length + v.length;
        if (used + size > chunk.length) {
          await flush();
          if (size > chunk.length) chunk = Buffer.allocUnsafe(size);
        }
        chunk.writeUInt32LE(key.length, used);
        chunk.set(key, used + 4);
        used += 4 + key.length;
        chunk.writeUInt32LE(v.length, used);
        chunk.set(v, used + 4);
        used += 4 + v.length;
        count++;
      }
    }
    await flush();
    await file.sync();
  } finally {
    await range.close();
    await file.close();
  }
  return count;
}

const truncated = () =>
  new LedgerNodeError(StorageErrorCode.CorruptValue, "the saved state's file ends inside a record");

/**
 * The records of a state file in order, read a chunk at a time and parsed in place: keys and
 * values are views of the chunk (which is never written again), not copies.
 */
class StateFileReader {
  private buffer = Buffer.alloc(0);
  private offset = 0;
  private ended = false;

  private constructor(private readonly file: FileHandle) {}

  static async open(path: string): Promise<StateFileReader> {
    return new StateFileReader(await open(path, "r"));
  }

  /** The next record, or undefined at the end. */
  async next(): Promise<[Uint8Array, Uint8Array] | undefined> {
    for (;;) {
      const record = this.buffered();
      if (record) return record;
      if (this.ended) {
        if (this.offset < this.buffer.length) throw truncated();
        return undefined;
      }
      await this.read();
    }
  }

  /** The next record when the buffer holds all of it. */
  private buffered(): [Uint8Array, Uint8Array] | undefined {
    const b = this.buffer;
    const o = this.offset;
    if (b.length - o < 4) return undefined;
    const keyEnd = o + 4 + b.readUInt32LE(o);
    if (b.length < keyEnd + 4) return undefined;
    const end = keyEnd + 4 + b.readUInt32LE(keyEnd);
    if (b.length < end) return undefined;
    this.offset = end;
    return [b.subarray(o + 4, keyEnd), b.subarray(keyEnd + 4, end)];
  }

  /** Appends the next chunk of the file to what is left of the buffer. */
  private async read(): Promise<void> {
    const rest = this.buffer.subarray(this.offset);
    const chunk = Buffer.allocUnsafe(Math.max(CHUNK, 2 * rest.length));
    rest.copy(chunk);
    const { bytesRead } = await this.file.read(chunk, rest.length, chunk.length - rest.length, null);
    if (bytesRead === 0) this.ended = true;
    this.buffer = chunk.subarray(0, rest.length + bytesRead);
    this.offset = 0;
  }

  close(): Promise<void> {
    return this.file.close();
  }
}

/**
 * Adds to `batch` what turns the store into the state of `path`: a delete for each key the file
 * lacks, a put for each entry the store lacks or holds another value of. Answers the operations
 * added. The batch is the caller's to write: one batch, so a crash leaves the old state or the new.
 */
export async function addStateDiff(store: KvStore, path: string, batch: WriteBatch): Promise<number> {
  const reader = await StateFileReader.open(path);
  const range = store.openRange({ prefix: new Uint8Array(0), values: true });
  let ops = 0;
  try {
    let page = await range.take(PAGE);
    let at = 0;
    const nextStored = async (): Promise<RangeEntry | undefined> => {
      if (at === page.length) {
        page = await range.take(PAGE);
        at = 0;
      }
      return page[at++];
    };
    let stored = await nextStored();
    let saved = await reader.next();
    while (stored || saved) {
      const order = !stored ? 1 : !saved ? -1 : compareBytes(stored[0], saved[0]);
      if (order < 0) {
        batch.del(stored![0]);
        ops++;
        stored = await nextStored();
      } else if (order > 0) {
        batch.put(saved![0], saved![1]);
        ops++;
        saved = await reader.next();
      } else {
        if (!bytesEqual(stored![1] ?? new Uint8Array(0), saved![1])) {
          batch.put(saved![0], saved![1]);
          ops++;
        }
        stored = await nextStored();
        saved = await reader.next();
      }
    }
  } finally {
    await range.close();
    await reader.close();
  }
  return ops;
}
