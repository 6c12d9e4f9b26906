import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  blockFromJson,
  blockToJson,
  decodeBlock,
  decodeOwnedBlock,
  encodeBlock,
  MAX_BLOCK_LENGTH,
} from "../../../src/codec/block.js";
import { CodecErrorCode } from "../../../src/codec/errors.js";
import { concatBytes, toHex } from "../../../src/codec/hex.js";
import { type Block, PayloadType } from "../../../src/codec/types.js";
import { WriteStream } from "../../../src/codec/writeStream.js";
import { Rng } from "../../helpers/random.js";
import { BLOCK_KINDS, randomBlock } from "../../helpers/randomBlocks.js";
import { expectCodecError } from "./expectCodecError.js";

const plain = (x: unknown): unknown => JSON.parse(JSON.stringify(x));
const id = (b: number): Uint8Array => new Uint8Array(32).fill(b);

/** A block with two parents and no payload: 1 + 1 + 64 + 4 + 8 = 78 bytes. */
const empty: Block = { protocolVersion: 2, parents: [id(1), id(2)], nonce: 7n };

/** Raw block bytes around a given payload body (u32 frame written as given). */
function withPayload(body: Uint8Array, frameLength = body.length): Uint8Array {
  const w = new WriteStream();
  w.u8(2).u8(1).bytes(id(1)).u32(frameLength).bytes(body).u64(0n);
  return w.finish();
}

describe("block codec", () => {
  it("decodes without aliasing the input (a Buffer too); decodeOwnedBlock hands out views of its input", () => {
    for (let i = 0; i < BLOCK_KINDS.length; i++) {
      const block = randomBlock(new Rng(7000 + i), BLOCK_KINDS[i]);
      for (const bytes of [encodeBlock(block), Buffer.from(encodeBlock(block))]) {
        const decoded = decodeBlock(bytes);
        bytes.fill(0xee);
        assert.deepEqual(decoded, block, "the caller may reuse its buffer");
      }
      const owned = encodeBlock(block);
      const decoded = decodeOwnedBlock(owned);
      assert.deepEqual(decoded, block);
      assert.equal(decoded.parents[0]!.buffer, owned.buffer, "a view of the owned bytes");
    }
  });

  it("round-trips random blocks of every payload kind, binary and JSON", () => {
    for (let i = 0; i < 40; i++) {
      const block = randomBlock(new Rng(9000 + i), BLOCK_KINDS[i % BLOCK_KINDS.length]);
      const bytes = encodeBlock(block);
      assert.deepEqual(decodeBlock(bytes), block);
      assert.deepEqual(blockFromJson(plain(blockToJson(block))), block);
    }
  });

  it("lays out a payload-less block as version, parents, zero length, nonce", () => {
    const bytes = encodeBlock(empty);
    assert.equal(bytes.length, 78);
    assert.equal(toHex(bytes.subarray(66, 70)), "0x00000000");
    assert.equal(toHex(bytes.subarray(70)), "0x0700000000000000");
    assert.deepEqual(blockToJson(empty), {
      protocolVersion: 2,
      parents: [toHex(id(1)), toHex(id(2))],
      nonce: "7",
    });
  });

  it("accepts a null payload in JSON as no payload", () => {
    const json = { ...(plain(blockToJson(empty)) as object), payload: null };
    assert.deepEqual(blockFromJson(json), empty);
  });

  it("rejects trailing bytes and truncation", () => {
    const bytes = encodeBlock(empty);
    expectCodecError(() => decodeBlock(concatBytes(bytes, Uint8Array.of(0))), CodecErrorCode.TrailingBytes, "block");
    expectCodecError(() => decodeBlock(bytes.subarray(0, 77)), CodecErrorCode.Truncated, "block.nonce");
    expectCodecError(() => decodeBlock(bytes.subarray(0, 40)), CodecErrorCode.Truncated, "block.parents[1]");
    expectCodecError(() => decodeBlock(new Uint8Array(0)), CodecErrorCode.Truncated, "block.protocolVersion");
  });

  it("rejects blocks over 32768 bytes, binary and JSON alike", () => {
    expectCodecError(() => decodeBlock(new Uint8Array(MAX_BLOCK_LENGTH + 1)), CodecErrorCode.CountOutOfRange, "block");
    // tagged data filling the block to 32769 bytes: 46 bytes of block, 9 of payload head
    const data = new Uint8Array(MAX_BLOCK_LENGTH + 1 - 46 - 9);
    const big: Block = {
      protocolVersion: 2,
      parents: [id(1)],
      payload: { type: 5, tag: new Uint8Array(0), data },
      nonce: 0n,
    };
    assert.equal(encodeBlock(big).length, MAX_BLOCK_LENGTH + 1);
    expectCodecError(() => decodeBlock(encodeBlock(big)), CodecErrorCode.CountOutOfRange, "block");
    expectCodecError(() => blockFromJson(plain(blockToJson(big))), CodecErrorCode.CountOutOfRange, "block");
    const fits: Block = { ...big, payload: { type: 5, tag: new Uint8Array(0), data: data.subarray(1) } };
    assert.deepEqual(decodeBlock(encodeBlock(fits)), fits);
  });

  it("rejects 0 or 9 parents, unsorted and duplicate parents (binary and JSON)", () => {
    const cases: [Uint8Array[], CodecErrorCode, string][] = [
      [[], CodecErrorCode.CountOutOfRange, "block.parents"],
      [Array.from({ length: 9 }, (_, i) => id(i + 1)), CodecErrorCode.CountOutOfRange, "block.parents"],
      [[id(2), id(1)], CodecErrorCode.NotSortedOrUnique, "block.parents[1]"],
      [[id(1), id(1)], CodecErrorCode.NotSortedOrUnique, "block.parents[1]"],
    ];
    for (const [parents, code, field] of cases) {
      const w = new WriteStream();
      w.u8(2).u8(parents.length);
      for (const p of parents) w.bytes(p);
      w.u32(0).u64(0n);
      expectCodecError(() => decodeBlock(w.finish()), code, field);
      const json = { protocolVersion: 2, parents: parents.map(toHex), nonce: "0" };
      expectCodecError(() => blockFromJson(json), code, field);
    }
  });

  it("rejects unknown payload types and a treasury transaction in a block", () => {
    for (const type of [0, 1, 2, 3, 4, 8, 0xffffffff]) {
      const body = new Uint8Array(8);
      new DataView(body.buffer).setUint32(0, type, true);
      expectCodecError(() => decodeBlock(withPayload(body)), CodecErrorCode.UnknownType, "block.payload.type");
      expectCodecError(
        () => blockFromJson({ protocolVersion: 2, parents: [toHex(id(1))], payload: { type }, nonce: "0" }),
        CodecErrorCode.UnknownType,
        "block.payload.type",
      );
    }
  });

  it("requires the payload to fill its length frame exactly", () => {
    // tagged data: type 5, tag length 0, data length 0 = 9 bytes
    const body = Uint8Array.of(5, 0, 0, 0, 0, 0, 0, 0, 0);
    assert.equal(decodeBlock(withPayload(body)).payload?.type, PayloadType.TaggedData);
    expectCodecError(
      () => decodeBlock(withPayload(concatBytes(body, Uint8Array.of(0)))),
      CodecErrorCode.TrailingBytes,
      "block.payload",
    );
    // frame says 8, the payload needs 9: the payload reader runs out inside its frame
    expectCodecError(() => decodeBlock(withPayload(body, 8)), CodecErrorCode.Truncated, "block.payload.data.length");
    // frame longer than the rest of the block
    expectCodecError(() => decodeBlock(withPayload(body, 100)), CodecErrorCode.Truncated, "block.payload");
  });

  it("rejects malformed JSON with the field named", () => {
    const good = plain(blockToJson(empty)) as Record<string, unknown>;
    expectCodecError(() => blockFromJson({ ...good, extra: 1 }), CodecErrorCode.InvalidJson, "block.extra");
    expectCodecError(() => blockFromJson({ ...good, nonce: 7 }), CodecErrorCode.InvalidJson, "block.nonce");
    expectCodecError(
      () => blockFromJson({ ...good, nonce: "18446744073709551616" }),
      CodecErrorCode.ValueOutOfRange,
      "block.nonce",
    );
    expectCodecError(
      () => blockFromJson({ ...good, protocolVersion: 256 }),
      CodecErrorCode.ValueOutOfRange,
      "block.protocolVersion",
    );
    expectCodecError(
      () => blockFromJson({ ...good, parents: ["0x01"] }),
      CodecErrorCode.InvalidHex,
      "block.parents[0]",
    );
    const { nonce: _, ...noNonce } = good;
    expectCodecError(() => blockFromJson(noNonce), CodecErrorCode.InvalidJson, "block.nonce");
    expectCodecError(() => blockFromJson([]), CodecErrorCode.InvalidJson, "block");
  });
});
