import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { blockFromJson, blockToJson, decodeBlock, encodeBlock, MAX_BLOCK_LENGTH } from "../../src/codec/block.js";
import { CodecErrorCode, isCodecError } from "../../src/codec/errors.js";
import { bytesEqual, toHex } from "../../src/codec/hex.js";
import { Rng } from "../helpers/random.js";
import { BLOCK_KINDS, randomBlock } from "../helpers/randomBlocks.js";

/**
 * decodeBlock on random and mutated bytes: every input either decodes to a block that
 * re-encodes to exactly those bytes (and survives a JSON round trip), or fails with a
 * CodecError carrying a known code. Any other exception (RangeError, TypeError, ...) fails.
 */

const SEEDS = 400;
const MUTATIONS = 100_000;
const RANDOM = 10_000;
const KNOWN_CODES = new Set<string>(Object.values(CodecErrorCode));

interface Tally {
  decoded: number;
  rejected: Map<string, number>;
}

function feed(bytes: Uint8Array, tally: Tally, origin: string): void {
  let block: ReturnType<typeof decodeBlock>;
  try {
    block = decodeBlock(bytes);
  } catch (e) {
    if (!isCodecError(e) || !KNOWN_CODES.has(e.code)) {
      assert.fail(`${origin}: ${String(e)} on ${toHex(bytes.subarray(0, 96))}… (${bytes.length} bytes)`);
    }
    tally.rejected.set(e.code, (tally.rejected.get(e.code) ?? 0) + 1);
    return;
  }
  tally.decoded++;
  const again = encodeBlock(block);
  if (!bytesEqual(again, bytes)) assert.fail(`${origin}: decoded block re-encodes differently`);
  const viaJson = encodeBlock(blockFromJson(JSON.parse(JSON.stringify(blockToJson(block)))));
  if (!bytesEqual(viaJson, bytes)) assert.fail(`${origin}: JSON round trip changes the bytes`);
}

/** One mutation of `src`, chosen at random. */
function mutate(rng: Rng, src: Uint8Array, payloadLengthAt: number): Uint8Array {
  const out = src.slice();
  const at = (): number => rng.int(0, Math.max(0, src.length - 1));
  switch (rng.int(0, 9)) {
    case 0: {
      // 1..8 bit flips
      for (let n = rng.int(1, 8); n > 0; n--) out[at()] ^= 1 << rng.int(0, 7);
      return out;
    }
    case 1: {
      // a byte set to an edge value
      out[at()] = rng.pick([0, 1, 0x7f, 0x80, 0xfe, 0xff, rng.int(0, 255)]);
      return out;
    }
    case 2:
      // truncation
      return src.subarray(0, rng.int(0, src.length - 1));
    case 3: {
      // insertion of 1..16 random bytes
      const i = rng.int(0, src.length);
      const extra = rng.bytes(rng.int(1, 16));
      const r = new Uint8Array(src.length + extra.length);
      r.set(src.subarray(0, i));
      r.set(extra, i);
      r.set(src.subarray(i), i + extra.length);
      return r;
    }
    case 4: {
      // deletion of 1..16 bytes
      const i = at();
      const n = Math.min(rng.int(1, 16), src.length - i);
      const r = new Uint8Array(src.length - n);
      r.set(src.subarray(0, i));
      r.set(src.subarray(i + n), i);
      return r;
    }
    case 5: {
      // the block's payload length field corrupted
      const view = new DataView(out.buffer);
      if (payloadLengthAt + 4 > out.length) return out;
      const current = view.getUint32(payloadLengthAt, true);
      const v = rng.pick([0, 1, current - 1, current + 1, current + rng.int(2, 64), 0xffffffff, rng.u32()]);
      view.setUint32(payloadLengthAt, v >>> 0, true);
      return out;
    }
    case 6: {
      // some other length or count field: a u8, u16 or u32 at a random place set near its value
      const i = at();
      const view = new DataView(out.buffer);
      const width = rng.pick([1, 2, 4]);
      if (i + width > out.length) return out;
      const delta = rng.pick([-1, 1, 2, -2, 128, 255]);
      if (width === 1) out[i] = (out[i]! + delta) & 0xff;
      else if (width === 2) view.setUint16(i, (view.getUint16(i, true) + delta) & 0xffff, true);
      else view.setUint32(i, (view.getUint32(i, true) + delta) >>> 0, true);
      return out;
    }
    case 7: {
      // the parents count changed
      out[1] = rng.int(0, 10);
      return out;
    }
    case 8: {
      // a run of bytes overwritten with random ones
      const i = at();
      out.set(rng.bytes(Math.min(rng.int(1, 40), out.length - i)), i);
      return out;
    }
    default: {
      // two mutations at once
      return mutate(rng, mutate(rng, src, payloadLengthAt), payloadLengthAt);
    }
  }
}

describe("fuzzing decodeBlock", () => {
  it(`${MUTATIONS} mutated valid blocks and ${RANDOM} random byte strings decode or fail with a CodecError`, () => {
    const rng = new Rng(0xf022);
    const seeds: { bytes: Uint8Array; payloadLengthAt: number }[] = [];
    for (let i = 0; i < SEEDS; i++) {
      // keep most seeds small so the run stays quick; 1 in 8 is as large as the generator makes it
      const block = randomBlock(new Rng(0xb10c_0000 + i), BLOCK_KINDS[i % BLOCK_KINDS.length]);
      const bytes = encodeBlock(block);
      if (bytes.length > 6000 && i % 8 !== 0) continue;
      seeds.push({ bytes, payloadLengthAt: 2 + 32 * block.parents.length });
    }
    assert.ok(seeds.length >= 100);
    const tally: Tally = { decoded: 0, rejected: new Map() };
    for (const s of seeds) feed(s.bytes, tally, "seed");
    assert.equal(tally.decoded, seeds.length);

    for (let i = 0; i < MUTATIONS; i++) {
      const s = seeds[rng.int(0, seeds.length - 1)]!;
      feed(mutate(rng, s.bytes, s.payloadLengthAt), tally, `mutation ${i}`);
    }
    for (let i = 0; i < RANDOM; i++) {
      const n = rng.bool(0.01) ? MAX_BLOCK_LENGTH + rng.int(1, 10) : rng.int(0, 300);
      const bytes = rng.bytes(n);
      // make a fair share look like a block's start: version 2, a plausible parents count
      if (n > 2 && rng.bool(0.7)) {
        bytes[0] = 2;
        bytes[1] = rng.int(1, 8);
      }
      feed(bytes, tally, `random ${i}`);
    }
    // Both outcomes occur, and the rejections spread over several codes.
    assert.ok(tally.decoded > seeds.length, "some mutations still decode");
    assert.ok(tally.rejected.size >= 5, `rejection codes seen: ${[...tally.rejected.keys()].join(", ")}`);
  });
});
