import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { CURL_HASH_LENGTH } from "./curl.js";
import { type PowError, PowErrorCode } from "./errors.js";
import type { MinerJob, MinerReply } from "./minerWorker.js";
import { NONCE_LENGTH, POW_DIGEST_LENGTH } from "./powInput.js";
import { scoreForZeros, targetTrailingZeros, trailingZeros } from "./score.js";

/**
 * Multi-threaded TIP-12 nonce search. A pool of worker threads is kept between calls: starting
 * threads costs several times the mining of a block to the dev network's minimum score, while a
 * pooled call adds almost nothing (docs/decisions.md, Intake and confirmation). Idle threads are
 * unref'd so they never keep the process alive;
 * busy threads are ref'd. The main thread only posts jobs and waits for messages.
 */

/** The `pow` options of a node: how many threads mine when a submitted block needs PoW. */
export interface PowOptions {
  /** Mining threads; 0 disables PoW on this node (the API then answers 503). */
  workers: number;
}

/** One thread per core: mining is CPU-bound and the threads share nothing but a stop flag. */
export const defaultPowOptions: PowOptions = { workers: availableParallelism() };

/** Options of one `mine` call. */
export interface MineOptions {
  /** Threads to search with; 0 means PoW is disabled and the call rejects with `Disabled`. */
  workers: number;
  /** Aborting rejects with `Aborted` and stops the call's threads within one transform. */
  signal?: AbortSignal;
  /**
   * Calls running or waiting in this pool at most, this one included; beyond it the call
   * rejects with `Busy` at once (the API answers 503). Unbounded when absent.
   */
  maxJobs?: number;
}

/** Batches are aligned to this (a multiple of every hasher's lane count). */
const START_ALIGN = 256n;
const NONCE_SPACE = 1n << 64n;

interface PoolThread {
  worker: Worker;
  /** Jobs posted and not yet answered. */
  pending: Set<number>;
}

/** A validated `mine` call. */
interface MineRequest {
  digest: Uint8Array;
  zeros: number;
  targetScore: number;
  blockLength: number;
  workers: number;
  signal: AbortSignal | undefined;
}

interface RunningJob {
  onReply(reply: MinerReply): void;
  onFailure(error: PowError): void;
}

/**
 * Validates a mining request and returns the trailing zeros it needs; `workers: 0` is the
 * `Disabled` answer that the API turns into 503.
 */
function checkRequest(digest: Uint8Array, targetScore: number, blockLength: number, workers: number): number {
  if (!Number.isInteger(workers) || workers < 0) {
    throw new LedgerNodeError(PowErrorCode.InvalidWorkers, `workers must be a non-negative integer, got ${workers}`);
  }
  if (workers === 0) throw new LedgerNodeError(PowErrorCode.Disabled, "proof of work is disabled on this node");
  if (digest.length !== POW_DIGEST_LENGTH) {
    throw new LedgerNodeError(PowErrorCode.InvalidInput, `PoW digest must be 32 bytes, got ${digest.length}`);
  }
  if (!Number.isInteger(blockLength) || blockLength < NONCE_LENGTH) {
    throw new LedgerNodeError(PowErrorCode.InvalidInput, `block length ${blockLength} cannot hold a nonce`);
  }
  const zeros = targetTrailingZeros(targetScore, blockLength);
  if (zeros > CURL_HASH_LENGTH) {
    throw new LedgerNodeError(PowErrorCode.UnreachableTarget, `score ${targetScore} needs more than 243 zero trits`);
  }
  return zeros;
}

/**
 * A pool of mining threads. Each `mine` call spreads the nonce space over `workers` threads,
 * thread k starting at k·2^64/workers; a thread busy with an earlier call runs the new job
 * after it (jobs queue per thread).
 */
export class MinerPool {
  private readonly threads: PoolThread[] = [];
  private readonly jobs = new Map<number, RunningJob>();
  private nextJobId = 1;
  private closed = false;

  /** Threads started so far. */
  get size(): number {
    return this.threads.length;
  }

  /** Calls running or waiting. */
  get jobCount(): number {
    return this.jobs.size;
  }

  /** Threads that still have an unanswered job (0 once every call has stopped). */
  get busy(): number {
    return this.threads.filter((t) => t.pending.size > 0).length;
  }

  /**
   * Finds a nonce whose TIP-12 score for a block of `blockLength` bytes with PoW digest
   * `digest` is at least `targetScore`, and checks it with the scalar scorer before resolving.
   */
  async mine(digest: Uint8Array, targetScore: number, blockLength: number, options: MineOptions): Promise<bigint> {
    const { workers, signal } = options;
    const zeros = checkRequest(digest, targetScore, blockLength, workers);
    if (this.closed) throw new LedgerNodeError(PowErrorCode.PoolClosed, "the miner pool is closed");
    if (signal?.aborted) throw new LedgerNodeError(PowErrorCode.Aborted, "proof of work aborted");
    if (zeros === 0) return 0n;
    if (options.maxJobs !== undefined && this.jobs.size >= options.maxJobs) {
      throw new LedgerNodeError(PowErrorCode.Busy, `${this.jobs.size} blocks are waiting for proof of work already`);
    }
    return this.run({ digest: digest.slice(), zeros, targetScore, blockLength, workers, signal });
  }

  /** One job per thread, all sharing a stop flag; the first verified nonce settles the call. */
  private run(request: MineRequest): Promise<bigint> {
    const { digest, zeros, targetScore, blockLength, workers, signal } = request;
    const threads = this.acquire(workers);
    const id = this.nextJobId++;
    const stop = new SharedArrayBuffer(4);
    const stopFlag = new Int32Array(stop);
    return new Promise<bigint>((resolve, reject) => {
      let answered = 0;
      const settle = (error: PowError | null, nonce: bigint): void => {
        if (!this.jobs.delete(id)) return;
        Atomics.store(stopFlag, 0, 1);
        signal?.removeEventListener("abort", onAbort);
        if (error === null) resolve(nonce);
        else reject(error);
      };
      const onAbort = (): void => settle(new LedgerNodeError(PowErrorCode.Aborted, "proof of work aborted"), 0n);
      this.jobs.set(id, {
        onReply: (reply) => {
          answered++;
          if (reply.nonce !== null) {
            const z = trailingZeros(digest, reply.nonce);
            if (z >= zeros && scoreForZeros(z, blockLength) >= targetScore) settle(null, reply.nonce);
            else
              settle(new LedgerNodeError(PowErrorCode.NonceRejected, `worker nonce ${reply.nonce} has ${z} zeros`), 0n);
          } else if (answered === threads.length) {
            // every thread ran out of nonces (not reachable in practice) without a stop
            settle(new LedgerNodeError(PowErrorCode.WorkerFailed, "nonce space exhausted"), 0n);
          }
        },
        onFailure: (error) => settle(error, 0n),
      });
      signal?.addEventListener("abort", onAbort, { once: true });

      const width = NONCE_SPACE / BigInt(threads.length);
      threads.forEach((t, k) => {
        const job: MinerJob = {
          id,
          digest,
          targetZeros: zeros,
          start: ((width * BigInt(k)) / START_ALIGN) * START_ALIGN,
          stop,
        };
        if (t.pending.size === 0) t.worker.ref();
        t.pending.add(id);
        t.worker.postMessage(job);
      });
    });
  }

  /** Terminates every thread; running calls reject with `PoolClosed`. */
  async close(): Promise<void> {
    this.closed = true;
    const threads = this.threads.splice(0);
    for (const job of [...this.jobs.values()])
      job.onFailure(new LedgerNodeError(PowErrorCode.PoolClosed, "the miner pool was closed"));
    // an unref'd worker would not keep the event loop alive until its termination completes
    await Promise.all(
      threads.map((t) => {
        t.worker.ref();
        return t.worker.terminate();
      }),
    );
  }

  /** Starts `n` threads now, so the first block mined does not wait for their start. */
  warm(n: number): void {
    if (!this.closed) this.acquire(n);
  }

  /** The first `n` threads, starting new ones as needed. */
  private acquire(n: number): PoolThread[] {
    while (this.threads.length < n) this.threads.push(this.spawn());
    return this.threads.slice(0, n);
  }

  private spawn(): PoolThread {
    const worker = new Worker(new URL("./minerWorker.js", import.meta.url));
    const thread: PoolThread = { worker, pending: new Set() };
    worker.unref();
    worker.on("message", (reply: MinerReply) => {
      thread.pending.delete(reply.id);
      // once closing, the worker stays ref'd so that awaiting its termination holds the loop
      if (thread.pending.size === 0 && !this.closed) worker.unref();
      this.jobs.get(reply.id)?.onReply(reply);
    });
    const fail = (reason: string): void => {
      // a dead thread leaves the pool; its unanswered jobs fail, the next call starts a new one
      const i = this.threads.indexOf(thread);
      if (i >= 0) this.threads.splice(i, 1);
      const ids = [...thread.pending];
      thread.pending.clear();
      for (const id of ids) this.jobs.get(id)?.onFailure(new LedgerNodeError(PowErrorCode.WorkerFailed, reason));
    };
    worker.on("error", (e) => fail(`mining thread failed: ${e.message}`));
    worker.on("exit", (code) => fail(`mining thread exited with code ${code}`));
    return thread;
  }
}

/**
 * Whose work a pool does. The node's own blocks (the coordinator's checkpoints) have threads of
 * their own, so they never wait behind blocks clients asked the node to mine: a flood of those
 * cannot hold milestones back (docs/decisions.md, Threats). The spammer (src/spammer) mines on
 * a pool of its own too, so its load never fills the clients' queue.
 */
export type MinerPoolName = "clients" | "node" | "spammer";

const sharedPools = new Map<MinerPoolName, MinerPool>();

/** The process-wide pool of that name, created on first use. */
export function minerPool(name: MinerPoolName = "clients"): MinerPool {
  let pool = sharedPools.get(name);
  if (pool === undefined) {
    pool = new MinerPool();
    sharedPools.set(name, pool);
  }
  return pool;
}

/**
 * Mines a nonce for a block whose PoW digest (TIP-12: BLAKE2b-256 of the block without its
 * nonce) is `digest` and whose full length is `blockLength` bytes, reaching `targetScore`.
 */
export function mine(
  digest: Uint8Array,
  targetScore: number,
  blockLength: number,
  options: MineOptions,
): Promise<bigint> {
  return minerPool().mine(digest, targetScore, blockLength, options);
}

/** Terminates the shared pools' threads (node shutdown); a later `mine` starts new pools. */
export async function closeMinerPool(): Promise<void> {
  const pools = [...sharedPools.values()];
  sharedPools.clear();
  await Promise.all(pools.map((p) => p.close()));
}
