import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CodecErrorCode } from "../../../src/codec/errors.js";
import {
  inclusionProofFromJson,
  inclusionProofNodeFromJson,
  MAX_INCLUSION_PROOF_DEPTH,
} from "../../../src/codec/inclusionProof.js";
import { validateInclusionProof } from "../../../src/tangle/inclusionProof.js";
import { INX_POI_EXAMPLE_BLOCK_ID, inxPoiExample } from "../../spec/inxPoiExample.js";
import { expectCodecError } from "./expectCodecError.js";

const HASH = { h: `0x${"ab".repeat(32)}` };
const VALUE = { value: INX_POI_EXAMPLE_BLOCK_ID };

/** A path `depth` levels deep (a chain of inner nodes, a hash beside each). */
function nested(depth: number): unknown {
  let node: unknown = VALUE;
  for (let i = 0; i < depth; i++) node = { l: node, r: HASH };
  return node;
}

describe("proof of inclusion JSON (inx-poi's format)", () => {
  it("takes a path as deep as a tree of 2^32 leaves, and no deeper", () => {
    inclusionProofNodeFromJson(nested(MAX_INCLUSION_PROOF_DEPTH));
    expectCodecError(
      () => inclusionProofNodeFromJson(nested(MAX_INCLUSION_PROOF_DEPTH + 1)),
      CodecErrorCode.CountOutOfRange,
      "proof",
    );
  });

  it("refuses a body nested 10,000 (and 100,000) deep with a reason, without recursing", () => {
    for (const depth of [10_000, 100_000]) {
      // built as text and parsed, as a request body would be
      const text = `${'{"l":'.repeat(depth)}{"value":"${INX_POI_EXAMPLE_BLOCK_ID}"}${',"r":{"h":"0x00"}}'.repeat(depth)}`;
      const json = JSON.parse(text);
      assert.throws(
        () => inclusionProofNodeFromJson(json),
        (e: Error) => /nested deeper than 32 levels/.test(e.message),
      );
      const body = { ...inxPoiExample(), proof: json };
      assert.throws(() => validateInclusionProof(body, { keys: { publicKeys: [], threshold: 1 }, protocolVersion: 2 }));
    }
  });

  it("refuses a tree of more nodes than an audit path has", () => {
    // 5 levels, both sides expanded: 63 nodes is within bounds, a full tree of 6 levels is not
    const full = (d: number): unknown => (d === 0 ? HASH : { l: full(d - 1), r: full(d - 1) });
    inclusionProofNodeFromJson(full(5));
    expectCodecError(() => inclusionProofNodeFromJson(full(6)), CodecErrorCode.CountOutOfRange, "proof");
  });

  it("refuses every malformed node with the field named", () => {
    const cases: [unknown, string, string][] = [
      [null, CodecErrorCode.InvalidJson, "proof"],
      [[], CodecErrorCode.InvalidJson, "proof"],
      ["0x00", CodecErrorCode.InvalidJson, "proof"],
      [{}, CodecErrorCode.InvalidJson, "proof"],
      [{ l: HASH }, CodecErrorCode.InvalidJson, "proof.r"],
      [{ l: HASH, r: HASH, x: 1 }, CodecErrorCode.InvalidJson, "proof.x"],
      [{ h: HASH.h, value: VALUE.value }, CodecErrorCode.InvalidJson, "proof.value"],
      [{ l: { h: "0xzz" }, r: HASH }, CodecErrorCode.InvalidHex, "proof.l.h"],
      [{ l: { h: "ab".repeat(32) }, r: HASH }, CodecErrorCode.InvalidHex, "proof.l.h"],
      [{ l: { h: `0x${"ab".repeat(31)}` }, r: HASH }, CodecErrorCode.InvalidHex, "proof.l.h"],
      [{ l: { value: `0x${"ab".repeat(33)}` }, r: HASH }, CodecErrorCode.InvalidHex, "proof.l.value"],
      [{ l: { value: 7 }, r: HASH }, CodecErrorCode.InvalidHex, "proof.l.value"],
      [{ l: { h: "" }, r: HASH }, CodecErrorCode.InvalidHex, "proof.l.h"],
    ];
    for (const [json, code, field] of cases) {
      expectCodecError(() => inclusionProofNodeFromJson(json), code as CodecErrorCode, field);
    }
  });

  it("refuses a body without one of its three parts, or with another", () => {
    const ex = inxPoiExample();
    for (const part of ["milestone", "block", "proof"] as const) {
      const body: Record<string, unknown> = { ...ex };
      delete body[part];
      expectCodecError(() => inclusionProofFromJson(body), CodecErrorCode.InvalidJson, `body.${part}`);
    }
    expectCodecError(() => inclusionProofFromJson({ ...ex, extra: 1 }), CodecErrorCode.InvalidJson, "body.extra");
    expectCodecError(() => inclusionProofFromJson([ex]), CodecErrorCode.InvalidJson, "body");
    const badBlock = { ...ex, block: { ...ex.block, parents: ["0x12"] } };
    expectCodecError(() => inclusionProofFromJson(badBlock), CodecErrorCode.InvalidHex, "body.block.parents[0]");
    const badMilestone = { ...ex, milestone: { ...ex.milestone, inclusionMerkleRoot: "0x" } };
    expectCodecError(
      () => inclusionProofFromJson(badMilestone),
      CodecErrorCode.InvalidHex,
      "body.milestone.inclusionMerkleRoot",
    );
  });
});
