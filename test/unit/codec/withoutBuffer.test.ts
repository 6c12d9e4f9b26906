import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { describe, it } from "node:test";
import { encodeBlock } from "../../../src/codec/block.js";
import { toHex } from "../../../src/codec/hex.js";
import { blockIdFromBytes } from "../../../src/codec/ids.js";
import { Rng } from "../../helpers/random.js";
import { BLOCK_KINDS, randomBlock } from "../../helpers/randomBlocks.js";

/**
 * The codec as the dashboard's explorer runs it in a browser, where there is no `Buffer`
 * (src/codec/nodeBuffer.ts): a Node process with the global `Buffer` deleted before the codec
 * loads decodes, re-encodes and hashes the same blocks to the same bytes and IDs as this process,
 * and hexes every length both ways.
 */

/** What the process without Buffer computes: each block's re-encoding and ID, and hex round trips. */
const CHILD = `
delete globalThis.Buffer;
const [{ decodeBlock, encodeBlock }, { toHex, fromHex }, { blockIdFromBytes }] = await Promise.all([
  import("./dist/src/codec/block.js"),
  import("./dist/src/codec/hex.js"),
  import("./dist/src/codec/ids.js"),
]);
const { readFileSync } = await import("node:fs");
const blocks = JSON.parse(readFileSync(0, "utf8")).map((hex) => {
  const bytes = encodeBlock(decodeBlock(fromHex(hex, "block")));
  return { bytes: toHex(bytes), id: toHex(blockIdFromBytes(bytes)) };
});
const roundTrips = Array.from({ length: 81 }, (_, n) => {
  const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 37 + n) & 0xff);
  return toHex(fromHex(toHex(bytes), "x", n));
});
console.log(JSON.stringify({ buffer: typeof Buffer, blocks, roundTrips }));
`;

describe("the codec without Node's Buffer (as in a browser)", () => {
  it("decodes, encodes and hashes blocks of every kind as with it, and hexes every length", () => {
    const rng = new Rng(20_251_126);
    const blocks = Array.from({ length: 24 }, (_, i) =>
      encodeBlock(randomBlock(rng, BLOCK_KINDS[i % BLOCK_KINDS.length])),
    );
    const r = spawnSync(process.execPath, ["--input-type=module", "-e", CHILD], {
      input: JSON.stringify(blocks.map(toHex)),
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    });
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout) as {
      buffer: string;
      blocks: { bytes: string; id: string }[];
      roundTrips: string[];
    };
    assert.equal(out.buffer, "undefined", "the child ran without Buffer");
    assert.deepEqual(
      out.blocks,
      blocks.map((b) => ({ bytes: toHex(b), id: toHex(blockIdFromBytes(b)) })),
    );
    out.roundTrips.forEach((hex, n) => {
      assert.equal(hex, toHex(Uint8Array.from({ length: n }, (_, i) => (i * 37 + n) & 0xff)), `length ${n}`);
    });
  });
});
