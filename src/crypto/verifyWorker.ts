import { parentPort } from "node:worker_threads";
import { ed25519VerifyUncached } from "./ed25519.js";
import { merkleRoot } from "./merkle.js";

/**
 * Worker side of the pool. A signature job is `count` packed items of publicKey[32] ‖
 * signature[64] ‖ messageLength u16 ‖ message; the answer is one byte per item (1 = valid).
 * A Merkle job is `count` lists, each `entries u32 ‖ (length u32 ‖ entry)…` (little-endian);
 * the answer is the TIP-4 root of each list, 32 bytes each, in order.
 */
export interface VerifyJob {
  id: number;
  kind?: "verify" | "merkle";
  count: number;
  packed: Uint8Array;
}

export interface VerifyReply {
  id: number;
  results: Uint8Array;
}

function merkleRoots(job: VerifyJob): Uint8Array<ArrayBuffer> {
  const p = job.packed;
  const view = new DataView(p.buffer, p.byteOffset, p.byteLength);
  const roots = new Uint8Array(32 * job.count);
  let o = 0;
  for (let l = 0; l < job.count; l++) {
    const n = view.getUint32(o, true);
    o += 4;
    const entries = new Array<Uint8Array>(n);
    for (let i = 0; i < n; i++) {
      const len = view.getUint32(o, true);
      entries[i] = p.subarray(o + 4, o + 4 + len);
      o += 4 + len;
    }
    roots.set(merkleRoot(entries), 32 * l);
  }
  return roots;
}

parentPort?.on("message", (job: VerifyJob) => {
  if (job.kind === "merkle") {
    const results = merkleRoots(job);
    parentPort!.postMessage({ id: job.id, results } satisfies VerifyReply, [results.buffer]);
    return;
  }
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
