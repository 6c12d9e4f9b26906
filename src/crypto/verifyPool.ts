import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { merkleRoot } from "./merkle.js";
import { rememberVerified } from "./signatureCache.js";
import type { VerifyJob, VerifyReply } from "./verifyWorker.js";

/**
 * Ed25519 verification spread over worker threads. Requests made in the same turn of the event
 * loop are packed into one job per thread, so the per-message cost is paid per batch. Valid
 * signatures are remembered (signatureCache), so the confirmation path finds them verified.
 * The same threads hash a milestone's Merkle roots (`merkleRoots`), so the main thread takes
 * blocks in meanwhile. Threads are unref'd: an idle pool never keeps the process alive.
 */

const FLUSH_DELAY_MS = 2;
const FLUSH_SIZE = 256;

export interface SignatureCheck {
  publicKey: Uint8Array;
  message: Uint8Array;
  signature: Uint8Array;
}

interface Pending {
  check: SignatureCheck;
  resolve: (ok: boolean) => void;
}

/** A job on a thread: signature checks, or Merkle roots (`settle` hands their answer over). */
interface Job {
  worker: Worker;
  items: Pending[];
  roots?: { lists: readonly (readonly Uint8Array[])[]; resolve: (roots: Uint8Array[]) => void };
}

/** Packs lists of entries for a Merkle job (see `VerifyJob`). */
function packMerkleLists(lists: readonly (readonly Uint8Array[])[]): Uint8Array<ArrayBuffer> {
  let length = 0;
  for (const list of lists) {
    length += 4;
    for (const e of list) length += 4 + e.length;
  }
  const packed = new Uint8Array(length);
  const view = new DataView(packed.buffer);
  let o = 0;
  for (const list of lists) {
    view.setUint32(o, list.length, true);
    o += 4;
    for (const e of list) {
      view.setUint32(o, e.length, true);
      packed.set(e, o + 4);
      o += 4 + e.length;
    }
  }
  return packed;
}

export class VerifyPool {
  private readonly workers: Worker[] = [];
  private readonly inflight = new Map<number, Job>();
  private queue: Pending[] = [];
  private scheduled = false;
  private nextId = 1;
  private nextWorker = 0;
  private readonly drainWaiters: { upTo: number; resolve: () => void }[] = [];
  /** Checks requested and not yet answered. */
  private waiting = 0;
  /** Set by `close`: no thread is started any more; checks and roots are answered here. */
  private closed = false;

  /**
   * One thread per core but one by default: the main thread, which takes blocks in and confirms
   * milestones, is the node's busiest and keeps a core of its own. One thread checks about 14,000
   * signatures a second; on 2 cores a second one only took turns with the main thread, and
   * intake ran about 4 % slower.
   */
  constructor(readonly size: number = Math.max(1, availableParallelism() - 1)) {}

  /** Starts every thread now, so the first check does not wait for one to start (a few hundred ms). */
  warm(): void {
    for (let i = 0; i < this.size; i++) this.worker(i);
  }

  private worker(i: number): Worker {
    let w = this.workers[i];
    if (!w) {
      w = new Worker(new URL("./verifyWorker.js", import.meta.url));
      w.unref();
      w.on("message", (reply: VerifyReply) => this.settle(reply));
      w.on("error", (e) => this.fail(w!, e));
      this.workers[i] = w;
    }
    return w;
  }

  /**
   * Resolves to whether the signature is valid under ZIP-215. Requests are gathered for up to
   * `FLUSH_DELAY_MS` (or until `FLUSH_SIZE` are waiting) so one message carries many of them:
   * posting to a thread costs tens of microseconds, a verification about sixty (libsodium).
   */
  verify(check: SignatureCheck): Promise<boolean> {
    this.waiting++;
    return new Promise((resolve) => {
      this.queue.push({ check, resolve });
      if (this.queue.length >= FLUSH_SIZE) this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        setTimeout(() => this.flush(), FLUSH_DELAY_MS);
      }
    });
  }

  /** How many checks are requested and not yet answered (for backpressure at intake). */
  get backlog(): number {
    return this.waiting;
  }

  private flush(): void {
    this.scheduled = false; // a pending timer finds an empty (or a new) queue: harmless
    const all = this.queue;
    this.queue = [];
    if (all.length === 0) return;
    if (this.closed) {
      this.waiting -= all.length;
      for (const p of all) p.resolve(false);
      return;
    }
    const per = Math.ceil(all.length / this.size);
    for (let start = 0; start < all.length; start += per) {
      const items = all.slice(start, start + per);
      let length = 0;
      for (const it of items) length += 98 + it.check.message.length;
      const packed = new Uint8Array(length);
      let o = 0;
      for (const { check } of items) {
        packed.set(check.publicKey, o);
        packed.set(check.signature, o + 32);
        packed[o + 96] = check.message.length & 0xff;
        packed[o + 97] = check.message.length >> 8;
        packed.set(check.message, o + 98);
        o += 98 + check.message.length;
      }
      this.send({ count: items.length, packed }, { items });
    }
  }

  /** Posts a job to the next thread and keeps it in flight until `settle` hears back. */
  private send(job: Omit<VerifyJob, "id"> & { packed: Uint8Array<ArrayBuffer> }, pending: Omit<Job, "worker">): void {
    const id = this.nextId++;
    const worker = this.worker(this.nextWorker++ % this.size);
    this.inflight.set(id, { ...pending, worker });
    if (this.inflight.size === 1) for (const w of this.workers) w?.ref();
    worker.postMessage({ ...job, id } satisfies VerifyJob, [job.packed.buffer]);
  }

  /**
   * The TIP-4 Merkle root of each list of entries, hashed on a pool thread (the same roots as
   * `merkleRoot` of each list; if the thread fails they are hashed here).
   */
  merkleRoots(lists: readonly (readonly Uint8Array[])[]): Promise<Uint8Array[]> {
    if (this.closed) return Promise.resolve(lists.map((l) => merkleRoot(l)));
    return new Promise((resolve) => {
      this.send(
        { kind: "merkle", count: lists.length, packed: packMerkleLists(lists) },
        { items: [], roots: { lists, resolve } },
      );
    });
  }

  /**
   * Resolves once every verification requested so far has settled (the confirmation path waits
   * for this, so it finds the signatures of its cone in the cache instead of checking them twice).
   * Requests made afterwards are not waited for: under steady intake the pool is never empty.
   */
  drained(upTo = this.mark()): Promise<void> {
    if (this.settledUpTo(upTo)) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push({ upTo, resolve }));
  }

  /**
   * The verifications requested so far, sent to the threads: `drained(mark)` waits for these and
   * none requested later (the coordinator marks when it reads the tips of a milestone).
   */
  mark(): number {
    this.flush();
    return this.nextId - 1;
  }

  /** Whether every job up to `id` has settled (jobs sit in the in-flight map in ID order). */
  private settledUpTo(id: number): boolean {
    const oldest = this.inflight.keys().next();
    return oldest.done === true || oldest.value > id;
  }

  private wakeDrainWaiters(): void {
    for (let i = 0; i < this.drainWaiters.length; ) {
      const w = this.drainWaiters[i]!;
      if (this.settledUpTo(w.upTo)) {
        this.drainWaiters.splice(i, 1);
        queueMicrotask(w.resolve);
      } else i++;
    }
  }

  private settle(reply: VerifyReply): void {
    const job = this.inflight.get(reply.id);
    if (!job) return;
    this.inflight.delete(reply.id);
    if (this.inflight.size === 0) for (const w of this.workers) w?.unref();
    this.waiting -= job.items.length;
    if (job.roots) {
      const r = reply.results;
      job.roots.resolve(job.roots.lists.map((_, i) => r.slice(32 * i, 32 * i + 32)));
    }
    job.items.forEach((p, i) => {
      const ok = reply.results[i] === 1;
      if (ok) rememberVerified(p.check.publicKey, p.check.message, p.check.signature);
      p.resolve(ok);
    });
    this.wakeDrainWaiters();
  }

  /** A crashed thread: its jobs resolve as unverified (confirmation re-checks them itself). */
  private fail(worker: Worker, _e: unknown): void {
    this.abandon((job) => job.worker === worker);
    const i = this.workers.indexOf(worker);
    if (i >= 0) this.workers[i] = undefined as unknown as Worker;
  }

  /** Jobs no thread will answer: checks resolve as unverified, Merkle roots are hashed here. */
  private abandon(which: (job: Job) => boolean): void {
    for (const [id, job] of this.inflight) {
      if (!which(job)) continue;
      this.inflight.delete(id);
      this.waiting -= job.items.length;
      for (const p of job.items) p.resolve(false);
      job.roots?.resolve(job.roots.lists.map((l) => merkleRoot(l)));
    }
    this.wakeDrainWaiters();
  }

  /**
   * Stops the threads. Jobs they did not answer, and any requested later, resolve as a crashed
   * thread's do, so no caller waits on a closed pool.
   */
  async close(): Promise<void> {
    this.closed = true;
    // out of the pool before the terminate: terminate() refs a thread until its exit arrives,
    // and an answer landing meanwhile must find no thread to unref (the loop would end with
    // close() still pending)
    const workers = this.workers.filter(Boolean);
    this.workers.length = 0;
    await Promise.all(workers.map((w) => w.terminate()));
    this.abandon(() => true);
  }
}
