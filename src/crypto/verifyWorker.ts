import { parentPort } from "node:worker_threads";
import { ed25519VerifyUncached } from "./ed25519.js";

/**
 * Worker side of the signature pool: a job is `count` packed items of publicKey[32] ‖
 * signature[64] ‖ messageLength u16 ‖ message; the answer is one byte per item (1 = valid).
 */
export interface VerifyJob {
  id: number;
  count: number;
  packed: Uint8Array;
}

export interface VerifyReply {
  id: number;
  results: Uint8Array;
}

parentPort?.on("message", (job: VerifyJob) => {
  const results = new Uint8Array(job.count);
  const p = job.packed;
  let o = 0;
  for (let i = 0; i < job.count; i++) {
    const publicKey = p.subarray(o, o + 32);
    const signature = p.subarray(o + 32, o + 96);
    const len = p[o + 96]! | (p[o + 97]! << 8);
    const message = p.subarray(o + 98, o + 98 + len);
    o += 98 + len;
    results[i] = ed25519VerifyUncached(publicKey, message, signature) ? 1 : 0;
  }
  parentPort!.postMessage({ id: job.id, results } satisfies VerifyReply, [results.buffer]);
});
