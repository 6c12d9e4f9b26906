import { parentPort } from "node:worker_threads";
import { searchNonce } from "./search.js";
import { createSlicedCurl } from "./simdCurl.js";

/**
 * A mining thread of the pool in `miner.ts`. It runs one job at a time, synchronously; the
 * main thread stops a job by writing 1 into the job's shared stop flag, which the search polls
 * after every transform (tens of microseconds), so stopping never needs `terminate()`.
 */

/** A request from the pool: search upward from `start` until found or stopped. */
export interface MinerJob {
  id: number;
  digest: Uint8Array;
  targetZeros: number;
  start: bigint;
  /** Int32 flag, non-zero once the job's answer is no longer wanted. */
  stop: SharedArrayBuffer;
}

/** The answer to a job: the nonce found, or null when stopped first. */
export interface MinerReply {
  id: number;
  nonce: bigint | null;
  hashes: number;
}

if (parentPort !== null) {
  const port = parentPort;
  const curl = createSlicedCurl();
  port.on("message", (job: MinerJob) => {
    const stop = new Int32Array(job.stop);
    const result = searchNonce(curl, job.digest, job.targetZeros, {
      start: job.start,
      shouldStop: () => Atomics.load(stop, 0) !== 0,
    });
    const reply: MinerReply = { id: job.id, nonce: result.nonce, hashes: result.hashes };
    port.postMessage(reply);
  });
}
