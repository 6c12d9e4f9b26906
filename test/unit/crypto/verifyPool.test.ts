import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { blake2b256, ed25519KeyPairFromSeed, ed25519Sign } from "../../../src/crypto/index.js";
import { merkleRoot } from "../../../src/crypto/merkle.js";
import { isKnownVerified } from "../../../src/crypto/signatureCache.js";
import { VerifyPool } from "../../../src/crypto/verifyPool.js";

/**
 * The verification pool: answers over worker threads, valid signatures remembered for the
 * confirmation path, and `drained()` waiting for the checks requested before it only (the
 * coordinator waits on it before each milestone, while intake keeps requesting more).
 */
describe("VerifyPool", () => {
  const pool = new VerifyPool(2);
  after(() => pool.close());
  const key = ed25519KeyPairFromSeed(new Uint8Array(32).fill(9));
  const check = (i: number) => {
    const message = Uint8Array.of(i & 255, i >> 8, 1, 2, 3);
    return { publicKey: key.publicKey, message, signature: ed25519Sign(key, message) };
  };

  it("answers valid and forged signatures and remembers the valid ones", async () => {
    const good = check(1);
    const forged = { ...check(2), signature: check(3).signature };
    assert.deepEqual(await Promise.all([pool.verify(good), pool.verify(forged)]), [true, false]);
    assert.equal(isKnownVerified(good.publicKey, good.message, good.signature), true);
    assert.equal(isKnownVerified(forged.publicKey, forged.message, forged.signature), false);
  });

  it("hashes Merkle roots on its threads, the same as merkleRoot, alongside signature checks", async () => {
    const entries = (n: number, len: number) =>
      Array.from({ length: n }, (_, i) => blake2b256(Uint8Array.of(i, len)).subarray(0, len));
    const lists = [entries(0, 32), entries(1, 32), entries(5, 32), entries(33, 32), entries(7, 3), entries(2, 100)];
    const checks = [pool.verify(check(7)), pool.verify(check(8))];
    const roots = await pool.merkleRoots(lists);
    assert.deepEqual(
      roots,
      lists.map((l) => merkleRoot(l)),
    );
    assert.deepEqual(await Promise.all(checks), [true, true]);
  });

  it("drained() resolves once the earlier checks settle, without waiting for later ones", async () => {
    const earlier = Array.from({ length: 300 }, (_, i) => check(100 + i));
    const settled = new Set<number>();
    const answers = earlier.map((c, i) => pool.verify(c).then(() => settled.add(i)));
    const drained = pool.drained();
    // requested after the drain began: under steady intake these never stop coming
    let later = 0;
    let keepGoing = true;
    const feed = (async () => {
      while (keepGoing) {
        await pool.verify(check(1000 + (later++ % 500)));
      }
    })();
    await drained;
    assert.equal(settled.size, earlier.length, "every earlier check settled before the drain resolved");
    for (const c of earlier) assert.equal(isKnownVerified(c.publicKey, c.message, c.signature), true);
    keepGoing = false;
    await feed;
    await Promise.all(answers);
    await pool.drained();
  });

  it("close() resolves when a thread's answer lands during it, and leaves no check waiting", () => {
    // terminate() keeps the loop alive until the thread's exit arrives; the pool used to unref
    // its threads again on that answer, and the loop ended with close() pending (exit code 13)
    const child = fileURLToPath(new URL("../../helpers/poolCloseChild.js", import.meta.url));
    const r = spawnSync(process.execPath, [child], { encoding: "utf8", timeout: 30_000 });
    assert.equal(r.status, 0, `the child ended with ${r.status}: ${r.stderr}`);
    const seen = JSON.parse(r.stdout.trim()) as Record<string, unknown>;
    assert.equal(seen.closed, true);
    assert.equal(typeof seen.answer, "boolean", "the check in flight settled");
    assert.deepEqual(
      { later: seen.later, rootsMatch: seen.rootsMatch, backlog: seen.backlog },
      { later: false, rootsMatch: true, backlog: 0 },
      "after close, checks resolve unverified and roots are hashed here, without a new thread",
    );
  });
});
