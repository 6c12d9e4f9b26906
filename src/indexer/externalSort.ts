import { closeSync, mkdirSync, openSync, rmSync, writeSync } from "node:fs";
import { open, rm } from "node:fs/promises";
import { join } from "node:path";

/**
 * Sorts more (key, value) entries by key than fit in memory, outside the database: runs of at
 * most `runEntries` are sorted in memory and written to files in `dir` one after the other, then
 * read back merged. An index rebuild's field list entries (one or more per unspent output, in
 * the order of their lists, which is no order of the outputs) went through LevelDB before:
 * written, compacted with the ledger, read back and deleted; at 10,000,000 outputs a random key
 * among sequential ones made every compaction rewrite most of its level (docs/performance.md,
 * "Loading a large ledger").
 *
 * An entry is kept as one latin1 string of its key, its value and its key's length (one
 * character per byte: strings compare as the bytes do, and V8 sorts them natively); a run file
 * is records of `length u16 ‖ that string's bytes`. The directory is the sort's own: emptied
 * when the sort starts, removed by `close`.
 */
export class ExternalSort {
  /** Each entry as one string: key ‖ value ‖ key length (u16 LE), see `add`. */
  private entries: string[] = [];
  /** Where `add` joins an entry before it becomes a string (one buffer for all). */
  private scratch = Buffer.allocUnsafe(256);
  private runs: string[] = [];
  private started = false;
  /** Run files made so far (their names). */
  private written = 0;

  constructor(
    private readonly dir: string,
    private readonly runEntries = 200_000,
  ) {}

  /**
   * Adds an entry. Keys must be unique and none the beginning of another (a field list entry's
   * list names its value's length; an owner address has one length): then one string of the
   * key, the value and the key's length sorts as the key does, with V8's own comparison (a
   * comparator function took 7 % of a load).
   */
  add(key: Uint8Array | readonly [head: Uint8Array, tail: Uint8Array], value: Uint8Array): void {
    // a key in two parts (a list and a position, an owner and an output ID) is joined here only
    const [head, tail] = key instanceof Uint8Array ? [key, EMPTY] : key;
    const keyLength = head.length + tail.length;
    const n = keyLength + value.length + 2;
    if (n > MAX_ENTRY_BYTES) throw new RangeError("a sort entry longer than 65,535 bytes");
    if (n > this.scratch.length) this.scratch = Buffer.allocUnsafe(n);
    const joined = this.scratch;
    joined.set(head);
    joined.set(tail, head.length);
    joined.set(value, keyLength);
    joined.writeUInt16LE(keyLength, keyLength + value.length);
    this.entries.push(joined.toString("latin1", 0, n));
    if (this.entries.length >= this.runEntries) this.spill();
  }

  /** Every entry added, in key order, in chunks of at most CHUNK_ENTRIES (one promise per chunk, not per entry). */
  async *sorted(): AsyncGenerator<[key: Buffer, value: Buffer][]> {
    if (this.runs.length === 0) {
      const all = this.take();
      for (let i = 0; i < all.length; i += CHUNK_ENTRIES) yield all.slice(i, i + CHUNK_ENTRIES).map(split);
      return;
    }
    if (this.entries.length > 0) this.spill();
    // at most MAX_OPEN_RUNS files open at once: past it, runs are merged into longer runs first
    while (this.runs.length > MAX_OPEN_RUNS) {
      const group = this.runs.splice(0, MAX_OPEN_RUNS);
      const path = this.runPath();
      const out = new RunWriter(path);
      try {
        for await (const chunk of merged(group)) for (const entry of chunk) out.add(entry);
      } finally {
        out.close();
      }
      await Promise.all(group.map((p) => rm(p, { force: true })));
      this.runs.push(path);
    }
    for await (const chunk of merged(this.runs)) yield chunk.map(split);
  }

  /** Removes the run files and the directory. */
  async close(): Promise<void> {
    this.entries = [];
    this.runs = [];
    await rm(this.dir, { recursive: true, force: true });
  }

  /** The entries held in memory, sorted, and let go. */
  private take(): string[] {
    const entries = this.entries;
    this.entries = [];
    entries.sort();
    return entries;
  }

  /** Writes the entries held in memory as a sorted run (synchronously: a run is some 20 MB). */
  private spill(): void {
    if (!this.started) {
      // the directory is this sort's alone: what an interrupted one left goes
      rmSync(this.dir, { recursive: true, force: true });
      mkdirSync(this.dir, { recursive: true });
      this.started = true;
    }
    const path = this.runPath();
    const out = new RunWriter(path);
    for (const entry of this.take()) out.add(entry);
    out.close();
    this.runs.push(path);
  }

  private runPath(): string {
    return join(this.dir, `run-${this.written++}`);
  }
}

/**
 * Run files open at once while merging (within the descriptors the node keeps for itself:
 * node/descriptors.ts): 64 runs of 200,000 entries merge 12,800,000 entries in one round, so the
 * 10,000,000 outputs of `bench scale` are read and written once more, not twice.
 */
export const MAX_OPEN_RUNS = 64;

const EMPTY = new Uint8Array(0);

/** Entries `sorted` hands on at a time. */
const CHUNK_ENTRIES = 4096;

/** Bytes of one entry at most (its length is a u16 in a run file). */
const MAX_ENTRY_BYTES = 0xffff;

/** Bytes a run writer gathers before it writes them. */
const WRITE_BYTES = 1024 * 1024;

/** A run file written entry by entry, a megabyte at a time (synchronously). */
class RunWriter {
  private readonly fd: number;
  private readonly buf = Buffer.allocUnsafe(WRITE_BYTES);
  private at = 0;

  constructor(path: string) {
    this.fd = openSync(path, "w");
  }

  /** An entry as `ExternalSort.add` joined it. */
  add(entry: string): void {
    if (this.at + 2 + entry.length > this.buf.length) this.write();
    this.buf.writeUInt16LE(entry.length, this.at);
    this.at += 2 + this.buf.write(entry, this.at + 2, "latin1");
  }

  close(): void {
    try {
      this.write();
    } finally {
      closeSync(this.fd);
    }
  }

  private write(): void {
    let done = 0;
    while (done < this.at) done += writeSync(this.fd, this.buf, done, this.at - done);
    this.at = 0;
  }
}

/** The key and the value of an entry as `ExternalSort.add` joined them. */
function split(entry: string): [key: Buffer, value: Buffer] {
  const bytes = Buffer.from(entry, "latin1");
  const keyLength = bytes.readUInt16LE(bytes.length - 2);
  return [bytes.subarray(0, keyLength), bytes.subarray(keyLength, bytes.length - 2)];
}

/**
 * The entries of `runs` merged in key order (a binary heap of the runs by their next entry), in
 * chunks of at most CHUNK_ENTRIES.
 */
async function* merged(runs: string[]): AsyncGenerator<string[]> {
  const readers = await Promise.all(runs.map((path) => RunReader.open(path)));
  try {
    const heap: RunReader[] = [];
    for (const r of readers) if (await r.advance()) heap.push(r);
    for (let i = (heap.length >> 1) - 1; i >= 0; i--) siftDown(heap, i);
    let chunk: string[] = [];
    while (heap.length > 0) {
      const top = heap[0]!;
      chunk.push(top.entry);
      if (chunk.length === CHUNK_ENTRIES) {
        yield chunk;
        chunk = [];
      }
      // an entry already read in is taken without a promise
      const more = top.advance();
      if (!(more === true || (more !== false && (await more)))) {
        const last = heap.pop()!;
        if (heap.length === 0) break;
        heap[0] = last;
      }
      siftDown(heap, 0);
    }
    if (chunk.length > 0) yield chunk;
  } finally {
    await Promise.all(readers.map((r) => r.close()));
  }
}

/** Bytes a run reader reads from its file at a time. */
const READ_BYTES = 256 * 1024;

/** One run file read entry by entry, a chunk at a time. */
class RunReader {
  entry = "";
  private buf = Buffer.alloc(0);
  private at = 0;
  private eof = false;

  private constructor(private readonly file: Awaited<ReturnType<typeof open>>) {}

  static async open(path: string): Promise<RunReader> {
    return new RunReader(await open(path, "r"));
  }

  /** Reads the next entry into `entry`; false at the end of the run (a promise only when the file must be read). */
  advance(): boolean | Promise<boolean> {
    const at = this.at;
    const left = this.buf.length - at;
    if (left >= 2) {
      const length = this.buf.readUInt16LE(at);
      if (left >= 2 + length) {
        this.entry = this.buf.toString("latin1", at + 2, at + 2 + length);
        this.at = at + 2 + length;
        return true;
      }
    }
    return this.read();
  }

  /** `advance` when the entry is not all in the buffer yet. */
  private async read(): Promise<boolean> {
    if (!(await this.need(2))) {
      if (this.at < this.buf.length) throw new RangeError("a sort run ends inside an entry");
      return false;
    }
    const length = this.buf.readUInt16LE(this.at);
    if (!(await this.need(2 + length))) throw new RangeError("a sort run ends inside an entry");
    // `need` may have moved the bytes to a new buffer: offsets from `at` again
    this.entry = this.buf.toString("latin1", this.at + 2, this.at + 2 + length);
    this.at += 2 + length;
    return true;
  }

  async close(): Promise<void> {
    await this.file.close();
  }

  /** Whether `n` bytes are at hand from `at`, reading more when not; false only at the end of the file. */
  private async need(n: number): Promise<boolean> {
    while (this.buf.length - this.at < n) {
      if (this.eof) return false;
      // the rest, then more, in a new buffer
      const rest = this.buf.subarray(this.at);
      const next = Buffer.allocUnsafe(rest.length + Math.max(READ_BYTES, n));
      rest.copy(next, 0);
      const { bytesRead } = await this.file.read(next, rest.length, next.length - rest.length, null);
      if (bytesRead === 0) this.eof = true;
      this.buf = next.subarray(0, rest.length + bytesRead);
      this.at = 0;
    }
    return true;
  }
}

function siftDown(heap: RunReader[], i: number): void {
  const n = heap.length;
  for (;;) {
    const l = 2 * i + 1;
    const r = l + 1;
    let least = i;
    if (l < n && heap[l]!.entry < heap[least]!.entry) least = l;
    if (r < n && heap[r]!.entry < heap[least]!.entry) least = r;
    if (least === i) return;
    [heap[i], heap[least]] = [heap[least]!, heap[i]!];
    i = least;
  }
}
