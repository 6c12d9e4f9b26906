import assert from "node:assert/strict";
import { describe, it } from "node:test";
import * as lp from "it-length-prefixed";
import {
  decodeMessage,
  encodeMessage,
  type Message,
  MessageType,
  NetworkErrorCode,
} from "../../../src/network/index.js";
import { FrameDecoder } from "../../../src/network/protocol.js";

describe("request/response messages", () => {
  const samples: Message[] = [
    { type: MessageType.MilestoneRequest, index: 4_000_000_000 },
    { type: MessageType.Block, bytes: Uint8Array.from({ length: 300 }, (_, i) => i & 255) },
    { type: MessageType.BlockRequest, blockId: new Uint8Array(32).fill(7) },
    {
      type: MessageType.Heartbeat,
      heartbeat: {
        solidMilestoneIndex: 12,
        prunedMilestoneIndex: 3,
        latestMilestoneIndex: 14,
        connectedPeers: 2,
        syncedPeers: 1,
      },
    },
    { type: MessageType.NotFound },
    { type: MessageType.ConeEnd, index: 9, blocks: 17 },
  ];

  it("encode and decode every message type back to itself, type byte first", () => {
    for (const m of samples) {
      const bytes = encodeMessage(m);
      assert.equal(bytes[0], m.type);
      assert.deepEqual(decodeMessage(bytes), m);
    }
    // little-endian integers, as the ledger's wire formats
    assert.deepEqual([...encodeMessage({ type: MessageType.MilestoneRequest, index: 0x01020304 })], [1, 4, 3, 2, 1]);
  });

  it("refuses unknown types, wrong lengths and oversized blocks with MalformedMessage", () => {
    const bad = [
      new Uint8Array(0),
      Uint8Array.of(0x7f),
      Uint8Array.of(MessageType.MilestoneRequest, 1, 2),
      Uint8Array.of(MessageType.BlockRequest, ...new Uint8Array(31)),
      Uint8Array.of(MessageType.Heartbeat, 1),
      Uint8Array.of(MessageType.NotFound, 0),
      Uint8Array.of(MessageType.Block),
      new Uint8Array(32770).fill(MessageType.Block, 0, 1),
    ];
    for (const bytes of bad) {
      assert.throws(() => decodeMessage(bytes), { code: NetworkErrorCode.MalformedMessage }, `${bytes.slice(0, 4)}`);
    }
  });

  it("frames split across chunks come out whole; an oversized frame is malformed", () => {
    const frames = samples.map((m) => lp.encode.single(encodeMessage(m)).subarray());
    const all = new Uint8Array(frames.reduce((n, f) => n + f.length, 0));
    let at = 0;
    for (const f of frames) {
      all.set(f, at);
      at += f.length;
    }
    for (const chunk of [1, 3, 7, 64, all.length]) {
      const decoder = new FrameDecoder(40_000);
      const out: Message[] = [];
      for (let i = 0; i < all.length; i += chunk) {
        for (const f of decoder.push(all.subarray(i, i + chunk))) out.push(decodeMessage(f));
      }
      assert.deepEqual(out, samples, `chunks of ${chunk}`);
      assert.equal(decoder.pending, 0);
    }
    const decoder = new FrameDecoder(100);
    assert.throws(() => decoder.push(lp.encode.single(new Uint8Array(101)).subarray()), {
      code: NetworkErrorCode.MalformedMessage,
    });
  });

  // a peer dribbling a frame a byte at a time must cost linear time: re-joining the held bytes
  // per chunk would copy 2 TB here and never finish; the limit is 100 times what it takes
  it("a 2 MiB frame dribbled one byte at a time comes out whole", { timeout: 30_000 }, () => {
    const body = new Uint8Array(2 * 1024 * 1024).map((_, i) => i & 0xff);
    const frame = lp.encode.single(body).subarray();
    const decoder = new FrameDecoder(body.length);
    const out: Uint8Array[] = [];
    for (let i = 0; i < frame.length; i++) out.push(...decoder.push(frame.subarray(i, i + 1)));
    assert.equal(out.length, 1);
    assert.deepEqual(out[0], body);
    assert.equal(decoder.pending, 0);
  });
});
