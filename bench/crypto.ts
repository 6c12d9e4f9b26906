/**
 * `npm run bench -- crypto`: the hashing, signature and Proof-of-Work figures of the foundation
 * (BLAKE2b-256 of 300-byte messages, Ed25519 verification ours vs raw node:crypto in the same
 * run, Curl-P-81 hashes per second per thread, time to mine a 300-byte block to score 1500).
 */
import { createPublicKey, verify } from "node:crypto";
import { blake2b256, ed25519KeyPairFromSeed, ed25519Sign, ed25519Verify } from "../src/crypto/index.js";
import { measurePow } from "./_powFigures.js";
import { opsPerSecond, printFigures, printTable } from "./_table.js";

const message = new Uint8Array(300).map((_, i) => (i * 7) & 0xff);
const blake2bPerSec = opsPerSecond(() => blake2b256(message), 1500);

// 64 distinct signers, as a milestone cone holds many addresses; node:crypto gets pre-built keys.
const keys = Array.from({ length: 64 }, (_, i) => ed25519KeyPairFromSeed(blake2b256(Uint8Array.of(i))));
const digest = blake2b256(message);
const sigs = keys.map((k) => ed25519Sign(k, digest));
const rawKeys = keys.map((k) =>
  createPublicKey({
    key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(k.publicKey).toString("base64url") },
    format: "jwk",
  }),
);
let i = 0;
const ed25519VerifyPerSec = opsPerSecond(
  () => {
    const j = i++ & 63;
    if (!ed25519Verify(keys[j]!.publicKey, digest, sigs[j]!)) throw new Error("verify failed");
  },
  1500,
  100,
);
const nodeCryptoVerifyPerSec = opsPerSecond(
  () => {
    const j = i++ & 63;
    if (!verify(null, digest, rawKeys[j]!, sigs[j]!)) throw new Error("verify failed");
  },
  1500,
  100,
);

const pow = await measurePow();

printTable("crypto: hashing, signatures, Proof-of-Work", [
  { name: "BLAKE2b-256, 300-byte message", value: blake2bPerSec, unit: "/s", target: ">= 1,000,000/s" },
  {
    name: "Ed25519 verify (ZIP-215, ours)",
    value: ed25519VerifyPerSec,
    unit: "/s",
    baseline: `node:crypto ${Math.round(nodeCryptoVerifyPerSec).toLocaleString("en-US")}/s (${((100 * ed25519VerifyPerSec) / nodeCryptoVerifyPerSec).toFixed(0)}%)`,
  },
  { name: "Ed25519 verify (raw node:crypto)", value: nodeCryptoVerifyPerSec, unit: "/s" },
  {
    name: "Curl-P-81 hashes per thread",
    value: pow.curlHashesPerSecPerThread,
    unit: "/s",
    target: ">= 1,000,000/s",
    baseline: "Go reference ~450,000/s",
  },
  { name: "mine 300-byte block to score 1500, all cores", value: pow.powScore1500Ms, unit: "ms" },
]);
printFigures("crypto", {
  blake2bPerSec: Math.round(blake2bPerSec),
  ed25519VerifyPerSec: Math.round(ed25519VerifyPerSec),
  nodeCryptoVerifyPerSec: Math.round(nodeCryptoVerifyPerSec),
  curlHashesPerSecPerThread: Math.round(pow.curlHashesPerSecPerThread),
  powScore1500Ms: Math.round(pow.powScore1500Ms),
});
