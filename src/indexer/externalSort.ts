import { closeSync, mkdirSync, openSync, rmSync, writeSync } from "node:fs";
import { open, rm } from "node:fs/promises";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { type StorageError, StorageErrorCode } from "../storage/index.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";

/**
 * Sorts more (key, value) entries by key than fit in memory, outside the database: runs of at
 * most `runEntries` are sorted and written to files in `dir` one after the other, then read back
 * merged. An index rebuild's field list entries (one or more per unspent output, in the order of
 * their lists, which is no order of the outputs) went through LevelDB before: written, compacted
 * with the ledger, read back and deleted; at 10,000,000 outputs a random key among sequential
 * ones made every compaction rewrite most of its level (docs/performance.md, "Loading a large
 * ledger").
 *
 * An entry is one latin1 string of its key, its value and its key's length (one character per
 * byte: strings compare as the bytes do, and V8 sorts them natively). `add` appends it to the
 * run being gathered as a run file holds it (`length u16 ‖ entry`), in a buffer outside V8's
 * heap; a full run goes to a thread of its own (sortWorker.ts), which makes the strings, sorts
 * them and writes the file while the caller goes on: at 10,000,000 outputs the two sorts of a
 * load took 20 s of the main thread, the thread a load is bound by. The directory is the sort's
 * own: emptied when the sort starts, removed by `close`.
 */
export class ExternalSort {
  /** The run being gathered, as a run file holds it. */
  private run = Buffer.allocUnsafe(INITIAL_RUN_BYTES);
  private runBytes = 0;
  private runCount = 0;
  private runs: string[] = [];
  private started = false;
  /** Run files made so far (their names). */
  private written = 0;
  private spiller: Spiller | undefined;

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
    if (this.runBytes + 2 + n > this.run.length) this.grow(2 + n);
    const run = this.run;
    let at = run.writeUInt16LE(n, this.runBytes);
    run.set(head, at);
    at += head.length;
    run.set(tail, at);
    at += tail.length;
    run.set(value, at);
    this.runBytes = run.writeUInt16LE(keyLength, at + value.length);
    this.runCount++;
    if (this.runCount >= this.runEntries) this.spill();
  }

  /** Every entry added, in key order, in chunks of at most CHUNK_ENTRIES (one promise per chunk, not per entry). */
  async *sorted(): AsyncGenerator<[key: Buffer, value: Buffer][]> {
    if (this.runs.length === 0) {
      const all = runEntriesOf(this.run.subarray(0, this.runBytes)).sort();
      this.dropRun();
      for (let i = 0; i < all.length; i += CHUNK_ENTRIES) yield all.slice(i, i + CHUNK_ENTRIES).map(split);
      return;
    }
    if (this.runCount > 0) this.spill();
    await this.spiller!.settled();
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

  /** Removes the run files and the directory (once the runs being written are). */
  async close(): Promise<void> {
    this.dropRun();
    this.runs = [];
    await this.spiller?.close();
    await rm(this.dir, { recursive: true, force: true });
  }

  /** Room for `n` more bytes in the run being gathered. */
  private grow(n: number): void {
    const bigger = Buffer.allocUnsafe(Math.max(this.run.length * 2, this.runBytes + n));
    this.run.copy(bigger, 0, 0, this.runBytes);
    this.run = bigger;
  }

  private dropRun(): void {
    this.run = Buffer.allocUnsafe(INITIAL_RUN_BYTES);
    this.runBytes = 0;
    this.runCount = 0;
  }

  /** Hands the run gathered to the sort's thread, which sorts it into a run file. */
  private spill(): void {
    if (!this.started) {
      // the directory is this sort's alone: what an interrupted one left goes
      rmSync(this.dir, { recursive: true, force: true });
      mkdirSync(this.dir, { recursive: true });
      this.started = true;
    }
    const path = this.runPath();
    this.spiller ??= new Spiller();
    this.spiller.write(path, this.run, this.runBytes);
    this.runs.push(path);
    this.dropRun();
  }

  private runPath(): string {
    return join(this.dir, `run-${this.written++}`);
  }
}

/** Bytes the run being gathered starts with (it doubles as it fills). */
const INITIAL_RUN_BYTES = 1024 * 1024;

/** Runs handed to the sort's thread and not yet written, at most: `add` waits past it. */
const MAX_RUNS_IN_FLIGHT = 2;

/** How long `add` waits for the sort's thread to write a run before it fails the sort (a run takes under a second). */
const RUN_WAIT_MS = 60_000;

/** What the sort's thread is sent: a run as `add` gathered it, its buffer transferred. */
export interface SpillJob {
  path: string;
  run: ArrayBuffer;
  offset: number;
  length: number;
}

/** What the sort's thread answers once a run is written, or could not be. */
export interface SpillReply {
  path: string;
  error?: string;
}

/**
 * The thread of a sort that sorts runs and writes their files, one at a time in the order sent.
 * At most MAX_RUNS_IN_FLIGHT runs wait for it: past that `write` blocks the caller until one is
 * written (the thread sorts a run in a fraction of the time a load takes to gather one, so it
 * rarely does), which bounds the memory the runs hold.
 */
class Spiller {
  private readonly worker: Worker;
  /** Runs sent and not yet written, counted down by the thread (shared memory, so `write` can wait on it). */
  private readonly inFlight = new Int32Array(new SharedArrayBuffer(4));
  private sent = 0;
  private done = 0;
  private failure: Error | undefined;
  /** Set by `close`: terminate() refs the thread until its exit arrives, and nothing unrefs it since. */
  private closing = false;
  private waiters: { resolve: () => void; reject: (e: Error) => void }[] = [];

  constructor() {
    this.worker = new Worker(new URL("./sortWorker.js", import.meta.url), { workerData: this.inFlight });
    this.worker.on("message", (reply: SpillReply) => {
      this.done++;
      if (reply.error !== undefined) this.fail(sortFailed(`run ${reply.path} could not be written: ${reply.error}`));
      else this.wake();
    });
    this.worker.on("error", (e) => this.fail(e));
    this.worker.on("exit", (code) => {
      if (this.done < this.sent) this.fail(sortFailed(`its thread exited (${code}) with runs unwritten`));
    });
    // idle, the thread does not keep the process alive (a sort left unclosed); runs on their
    // way do (`write`, `wake`). After the listeners: a 'message' listener refs it again
    this.worker.unref();
  }

  write(path: string, run: Buffer, length: number): void {
    if (this.failure) throw this.failure;
    // a thread that died cannot count down, and its exit event cannot reach a blocked caller
    const deadline = Date.now() + RUN_WAIT_MS;
    while (Atomics.load(this.inFlight, 0) >= MAX_RUNS_IN_FLIGHT) {
      if (Date.now() > deadline) throw sortFailed(`its thread wrote no run in ${RUN_WAIT_MS / 1000} s`);
      Atomics.wait(this.inFlight, 0, Atomics.load(this.inFlight, 0), 1000);
    }
    Atomics.add(this.inFlight, 0, 1);
    if (this.sent++ === this.done) this.worker.ref();
    const job: SpillJob = { path, run: run.buffer as ArrayBuffer, offset: run.byteOffset, length };
    this.worker.postMessage(job, [job.run]);
  }

  /** Resolves once every run sent is written; rejects with the first failure. */
  settled(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.done === this.sent) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  async close(): Promise<void> {
    await this.settled().catch(() => {});
    // after a failure, runs may still answer during the terminate (verifyPool.ts, `close`)
    this.closing = true;
    await this.worker.terminate();
  }

  private wake(): void {
    if (this.done < this.sent) return;
    if (!this.closing) this.worker.unref();
    for (const w of this.waiters.splice(0)) w.resolve();
  }

  private fail(e: Error): void {
    this.failure ??= e;
    if (!this.closing) this.worker.unref();
    for (const w of this.waiters.splice(0)) w.reject(this.failure);
  }
}

/** A sort whose runs could not be written: a write failure of the data directory (a full disk, an I/O error). */
function sortFailed(why: string): StorageError {
  return new LedgerNodeError(StorageErrorCode.WriteFailed, `the sort in the data directory failed: ${why}`);
}

/** The entries of a run as `add` gathered it (`length u16 ‖ entry`...), each one latin1 string. */
export function runEntriesOf(run: Buffer): string[] {
  const entries: string[] = [];
  for (let at = 0; at < run.length; ) {
    const length = run.readUInt16LE(at);
    entries.push(run.toString("latin1", at + 2, at + 2 + length));
    at += 2 + length;
  }
  return entries;
}

/** Sorts the entries of a run as `add` gathered it and writes them to a run file at `path`. */
export function writeSortedRun(path: string, run: Buffer): void {
  const out = new RunWriter(path);
  try {
    for (const entry of runEntriesOf(run).sort()) out.add(entry);
  } finally {
    out.close();
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
