/**
 * Proof-of-Work figures for `bench/crypto.ts`: Curl-P-81 hashes per second on one thread (the
 * bit-sliced search loop the miner runs, nonce setup and zero check included), and the time to
 * mine a 300-byte block to score 1500 on every core.
 */
import { randomBytes } from "node:crypto";
import { availableParallelism } from "node:os";
import {
  closeMinerPool,
  createSlicedCurl,
  mine,
  powDigest,
  powScore,
  searchNonce,
  withNonce,
} from "../src/pow/index.js";

/** Transforms timed for the per-thread rate: about 1.3 s at 128 lanes and 2.3 M hashes/s. */
const TRANSFORMS = 24_000;
/**
 * Blocks mined for the average: the work for one block is geometrically distributed (standard
 * deviation equal to the mean), so 24 blocks still leave about ±20% between runs.
 */
const BLOCKS = 24;
const BLOCK_LENGTH = 300;
const TARGET_SCORE = 1500;

/** Hashes per second and mean milliseconds to mine a 300-byte block to score 1500. */
export async function measurePow(): Promise<{ curlHashesPerSecPerThread: number; powScore1500Ms: number }> {
  // 1. one thread: an unreachable target (all 243 trits zero) so every batch is hashed
  const curl = createSlicedCurl();
  const digest = powDigest(randomBytes(BLOCK_LENGTH));
  searchNonce(curl, digest, 243, { start: 0n, maxBatches: 500 }); // warm-up: optimizing compilers
  const t0 = performance.now();
  const { hashes } = searchNonce(curl, digest, 243, { start: 0n, maxBatches: TRANSFORMS });
  const curlHashesPerSecPerThread = hashes / ((performance.now() - t0) / 1000);

  // 2. all cores, through the same pool a node uses; the first call starts the threads
  const workers = availableParallelism();
  await mine(powDigest(randomBytes(BLOCK_LENGTH)), TARGET_SCORE, BLOCK_LENGTH, { workers });
  let totalMs = 0;
  for (let i = 0; i < BLOCKS; i++) {
    const block = randomBytes(BLOCK_LENGTH);
    const start = performance.now();
    const nonce = await mine(powDigest(block), TARGET_SCORE, BLOCK_LENGTH, { workers });
    totalMs += performance.now() - start;
    if (powScore(withNonce(block, nonce)) < TARGET_SCORE) throw new Error("mined nonce misses the target score");
  }
  await closeMinerPool();
  return { curlHashesPerSecPerThread, powScore1500Ms: totalMs / BLOCKS };
}
