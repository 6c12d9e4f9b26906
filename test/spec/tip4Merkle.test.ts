import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fromHex, toHex } from "../../src/codec/hex.js";
import {
  blake2b256,
  MerkleTree,
  merkleLeafHash,
  merkleProof,
  merkleProofs,
  merkleRoot,
  merkleRootFromProof,
} from "../../src/crypto/index.js";

// TIP-4 "Example": Merkle tree with 7 leaves.
const D = [
  "52fdfc072182654f163f5f0f9a621d729566c74d10037c4d7bbb0407d1e2c649",
  "81855ad8681d0d86d1e91e00167939cb6694d2c422acd208a0072939487f6999",
  "eb9d18a44784045d87f3c67cf22746e995af5a25367951baa2ff6cd471c483f1",
  "5fb90badb37c5821b6d95526a41a9504680b4e7c8b763a1b1d49d4955c848621",
  "6325253fec738dd7a9e28bf921119c160f0702448615bbda08313f6a8eb668d2",
  "0bf5059875921e668a5bdf2c7fc4844592d2572bcd0668d2d6c52f5054e2d083",
  "6bf84c7174cb7476364cc3dbd968b0f7172ed85794bb358b0c3b525da1786f9f",
].map((h) => fromHex(`0x${h}`, "D"));

describe("TIP-4 Merkle tree hash", () => {
  it("matches the TIP's 7-leaf example root and leaf hashes", () => {
    assert.equal(toHex(merkleRoot(D)), "0xbf67ce7ba23e8c0951b5abaec4f5524360d2c26d971ff226d3359fa70cdb0beb");
    assert.equal(toHex(merkleLeafHash(D[0]!)), "0x3d1399c64ff0ae6a074afa4cd2ce4eab8d5c499c1da6afdd1d84b7447cc00544");
    assert.equal(toHex(merkleLeafHash(D[6]!)), "0x7ec774ebc33ed4ca298e8a1cf1f569e36c6784467d63b055efd7612abe2858a4");
  });

  it("hashes an empty list to BLAKE2b-256 of the empty string", () => {
    assert.deepEqual(merkleRoot([]), blake2b256());
  });

  it("yields, for every leaf of trees of 1..33 leaves, a TIP-45 proof that rebuilds the root", () => {
    for (let n = 1; n <= 33; n++) {
      const leaves = Array.from({ length: n }, (_, i) => blake2b256(Uint8Array.of(i, n)));
      const root = merkleRoot(leaves);
      const hashes = leaves.map(merkleLeafHash);
      const all = merkleProofs(hashes);
      for (let i = 0; i < n; i++) {
        const proof = merkleProof(hashes, i);
        assert.deepEqual(merkleRootFromProof(proof), root, `n=${n} i=${i}`);
        assert.deepEqual(all[i], proof, `all proofs at once: n=${n} i=${i}`);
      }
    }
  });

  it("hashes the whole tree once (MerkleTree) and gives the same root and proofs as merkleProof", () => {
    assert.deepEqual(MerkleTree.of([]).root, blake2b256());
    for (let n = 1; n <= 70; n++) {
      const hashes = Array.from({ length: n }, (_, i) => merkleLeafHash(Uint8Array.of(i, n)));
      const tree = MerkleTree.of(hashes);
      assert.equal(tree.size, n);
      assert.deepEqual(tree.root, merkleRoot(Array.from({ length: n }, (_, i) => Uint8Array.of(i, n))), `n=${n}`);
      for (let i = 0; i < n; i++) assert.deepEqual(tree.proof(i), merkleProof(hashes, i), `n=${n} i=${i}`);
      assert.throws(() => tree.proof(n), RangeError);
      assert.throws(() => tree.proof(-1), RangeError);
    }
    assert.equal(toHex(MerkleTree.of(D.map(merkleLeafHash)).root), toHex(merkleRoot(D)));
  });

  it("builds the same tree in slices, pausing between them", async () => {
    const hashes = Array.from({ length: 1000 }, (_, i) => merkleLeafHash(Uint8Array.of(i & 255, i >> 8)));
    let pauses = 0;
    const tree = await MerkleTree.build(hashes, async () => void pauses++, 100);
    assert.equal(pauses, 9, "999 inner hashes, a pause after every 100");
    const whole = MerkleTree.of(hashes);
    assert.deepEqual(tree.root, whole.root);
    for (const i of [0, 1, 511, 512, 999]) assert.deepEqual(tree.proof(i), whole.proof(i));
  });

  it("builds the TIP-45 two-leaf shapes (value hash on the proven side)", () => {
    const hashes = D.slice(0, 2).map(merkleLeafHash);
    const p0 = merkleProof(hashes, 0);
    assert.equal(p0.type, 0);
    if (p0.type !== 0) return;
    assert.equal(p0.l.type, 2);
    assert.equal(p0.r.type, 1);
    const p1 = merkleProof(hashes, 1);
    assert.ok(p1.type === 0 && p1.l.type === 1 && p1.r.type === 2);
  });
});
