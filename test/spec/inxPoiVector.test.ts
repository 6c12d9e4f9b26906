import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fromHex, toHex } from "../../src/codec/hex.js";
import { computeBlockId, computeMilestoneId } from "../../src/codec/ids.js";
import {
  inclusionProofFromJson,
  inclusionProofNodeToJson,
  inclusionProofRoot,
  inclusionProofToJson,
} from "../../src/codec/inclusionProof.js";
import { ed25519KeyPairFromSeed, ed25519Sign } from "../../src/crypto/ed25519.js";
import { InclusionProofValidator, validateInclusionProof } from "../../src/tangle/inclusionProof.js";
import { INX_POI_EXAMPLE_BLOCK_ID, INX_POI_EXAMPLE_KEYS, inxPoiExample } from "./inxPoiExample.js";

/**
 * inx-poi's published proof (rest-api.yaml's example answer) read and checked by this node's
 * code: the format (iota.go merklehasher JSON, TIP-25 block and milestone), the block ID, the
 * TIP-4 root and the signature rule all agree with Hornet's plugin; each one-field change
 * makes it invalid, as inx-poi's validateProof answers.
 */

const NETWORK = {
  keys: { publicKeys: INX_POI_EXAMPLE_KEYS.map((k) => fromHex(k, "key", 32)), threshold: 2 },
  protocolVersion: 2,
};

describe("inx-poi's example proof", () => {
  it("reads, names its block and hashes to its milestone's inclusion Merkle root", () => {
    const p = inclusionProofFromJson(inxPoiExample());
    assert.equal(toHex(computeBlockId(p.block)), INX_POI_EXAMPLE_BLOCK_ID);
    assert.equal(toHex(inclusionProofRoot(p.proof)), toHex(p.milestone.inclusionMerkleRoot));
    assert.equal(p.milestone.index, 13);
  });

  it("is valid against its network's two keys with threshold 2", () => {
    assert.deepEqual(validateInclusionProof(inxPoiExample(), NETWORK), { valid: true });
  });

  it("is written back as it came: the tree node for node, the block field for field", () => {
    const ex = inxPoiExample();
    const json = inclusionProofToJson(inclusionProofFromJson(ex));
    assert.deepEqual(json.proof, ex.proof);
    assert.deepEqual(inclusionProofNodeToJson(inclusionProofFromJson(ex).proof), ex.proof);
    assert.deepEqual(json.block, ex.block);
    // Hornet leaves out empty metadata and options; this node writes them ("0x", [])
    assert.deepEqual(json.milestone, { ...ex.milestone, metadata: "0x", options: [] });
    assert.deepEqual(validateInclusionProof(json, NETWORK), { valid: true });
  });

  it("is invalid with one flipped hash on the path", () => {
    const ex = inxPoiExample();
    const h: string = ex.proof.r.h;
    ex.proof.r.h = `${h.slice(0, -1)}${h.endsWith("0") ? "1" : "0"}`;
    assert.equal(validateInclusionProof(ex, NETWORK).valid, false);
  });

  it("is invalid with a signature removed (below the threshold of 2)", () => {
    const ex = inxPoiExample();
    ex.milestone.signatures.pop();
    const v = validateInclusionProof(ex, NETWORK);
    assert.equal(v.valid, false);
    assert.match(v.reason!, /1 signatures, expected 2\.\.2/);
    ex.milestone.signatures.pop();
    assert.deepEqual(validateInclusionProof(ex, NETWORK), {
      valid: false,
      reason: "the milestone carries no signature",
    });
  });

  it("is invalid on another network: other coordinator keys, or another protocol version", () => {
    const other = ed25519KeyPairFromSeed(new Uint8Array(32).fill(9));
    assert.equal(
      validateInclusionProof(inxPoiExample(), {
        keys: { publicKeys: [other.publicKey], threshold: 1 },
        protocolVersion: 2,
      }).valid,
      false,
    );
    assert.equal(validateInclusionProof(inxPoiExample(), { ...NETWORK, protocolVersion: 3 }).valid, false);
    // the milestone signed anew by the other network's key: valid there only
    const ex = inxPoiExample();
    const m = inclusionProofFromJson(ex).milestone;
    const signature = ed25519Sign(other, computeMilestoneId(m));
    ex.milestone.signatures = [{ type: 0, publicKey: toHex(other.publicKey), signature: toHex(signature) }];
    assert.equal(validateInclusionProof(ex, NETWORK).valid, false);
    assert.deepEqual(
      validateInclusionProof(ex, { keys: { publicKeys: [other.publicKey], threshold: 1 }, protocolVersion: 2 }),
      { valid: true },
    );
  });

  it("is invalid for another block than the path's value, and for a path without it", () => {
    const ex = inxPoiExample();
    ex.block.nonce = "300";
    const v = validateInclusionProof(ex, NETWORK);
    assert.equal(v.valid, false);
    assert.match(v.reason!, /does not lead to block/);
    const moved = inxPoiExample();
    moved.proof.l.r.l.r.l = { h: `0x${"11".repeat(32)}` };
    assert.equal(validateInclusionProof(moved, NETWORK).valid, false);
  });

  it("stays invalid for a changed signature after the milestone's signatures were remembered as valid", () => {
    const validator = new InclusionProofValidator(() => NETWORK, 2);
    assert.deepEqual(validator.validate(inxPoiExample()), { valid: true });
    assert.deepEqual(validator.validate(inxPoiExample()), { valid: true });
    const ex = inxPoiExample();
    const sig: string = ex.milestone.signatures[1].signature;
    ex.milestone.signatures[1].signature = `${sig.slice(0, 20)}${sig[20] === "0" ? "1" : "0"}${sig.slice(21)}`;
    assert.equal(validator.validate(ex).valid, false);
    const unsigned = inxPoiExample();
    unsigned.milestone.signatures.pop();
    assert.equal(validator.validate(unsigned).valid, false);
  });
});
