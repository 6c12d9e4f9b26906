/**
 * A process of its own in which a verify pool is closed while a thread's answer is on its way
 * and nothing else keeps the event loop alive, as at the end of a node's stop
 * (test/unit/crypto/verifyPool.test.ts). It prints what settled; a close that never resolves
 * makes Node end the process with code 13 (an unsettled top-level await).
 */
import { ed25519KeyPairFromSeed, ed25519Sign } from "../../src/crypto/index.js";
import { merkleRoot } from "../../src/crypto/merkle.js";
import { VerifyPool } from "../../src/crypto/verifyPool.js";

const key = ed25519KeyPairFromSeed(new Uint8Array(32).fill(3));
const check = (i: number) => {
  const message = Uint8Array.of(i, 7);
  return { publicKey: key.publicKey, message, signature: ed25519Sign(key, message) };
};

const pool = new VerifyPool(1);
await pool.verify(check(1)); // the thread is up
const inFlight = pool.verify(check(2));
pool.mark(); // posted now
// the thread answers while this thread is busy: the answer waits in the port when close begins
const until = Date.now() + 50;
while (Date.now() < until) {}
await pool.close();
const answer = await inFlight;
const later = await pool.verify(check(3));
const roots = await pool.merkleRoots([[Uint8Array.of(1)]]);
const rootsMatch = Buffer.from(roots[0]!).equals(Buffer.from(merkleRoot([Uint8Array.of(1)])));
console.log(JSON.stringify({ closed: true, answer, later, rootsMatch, backlog: pool.backlog }));
