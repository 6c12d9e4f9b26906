import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { FastifyInstance } from "fastify";
import { toHex } from "../../../src/codec/hex.js";
import { PayloadType } from "../../../src/codec/types.js";
import { Bucket, decodeBlockMetadata, idKey } from "../../../src/storage/index.js";
import type { MilestoneInfo } from "../../../src/tangle/tangle.js";
import { TangleBuilder } from "../../helpers/tangleBuilder.js";

const V2 = "/api/explorer/v2";

describe("explorer: milestone blocks and children", () => {
  let tb: TangleBuilder;
  let app: FastifyInstance;
  let ms: MilestoneInfo;
  let blocks: Uint8Array[];
  let parent: Uint8Array;

  before(async () => {
    tb = await TangleBuilder.create();
    app = tb.serve();
    await app.ready();
    parent = await tb.block({ type: PayloadType.TaggedData, tag: new Uint8Array([1]), data: new Uint8Array() });
    blocks = [parent];
    blocks.push(await tb.block(undefined, [parent]));
    for (let i = 0; i < 4; i++) {
      blocks.push(
        await tb.block({ type: PayloadType.TaggedData, tag: new Uint8Array([2 + i]), data: new Uint8Array() }, [
          parent,
        ]),
      );
    }
    ms = await tb.milestone();
  });
  after(async () => {
    await tb.dispose();
  });

  /** Every block of the listing, following cursors. */
  async function all(url: string, pageSize: number, sort = "oldest") {
    const out: { blockId: string; payloadType: number | null }[] = [];
    let r = await app.inject(`${url}?pageSize=${pageSize}&sort=${sort}`);
    for (;;) {
      assert.equal(r.statusCode, 200, r.body);
      const body = r.json();
      out.push(...body.blocks);
      if (body.cursor === null) break;
      assert.equal(body.blocks.length, pageSize);
      r = await app.inject(`${url}?cursor=${body.cursor}&sort=${sort}`);
    }
    return out;
  }

  it("lists the referenced blocks in white-flag order with payload types, by ID and by index", async () => {
    const store = tb.node.store;
    const want: { id: string; wf: number }[] = [];
    for (const id of [...blocks, ms.blockId]) {
      const m = decodeBlockMetadata((await store.get(idKey(Bucket.BlockMetadata, id)))!);
      if (m.referencedByMilestoneIndex === ms.index) want.push({ id: toHex(id), wf: m.whiteFlagIndex });
    }
    want.sort((a, b) => a.wf - b.wf);
    assert.ok(want.length >= 6);
    for (const url of [
      `${V2}/milestones/${toHex(ms.milestoneId)}/blocks`,
      `${V2}/milestones/by-index/${ms.index}/blocks`,
    ]) {
      for (const size of [1, 2, 1000]) {
        const got = await all(url, size);
        assert.deepEqual(
          got.map((b) => b.blockId),
          want.map((w) => w.id),
        );
        assert.equal(got.find((b) => b.blockId === toHex(parent))!.payloadType, PayloadType.TaggedData);
        assert.equal(got.find((b) => b.blockId === toHex(blocks[1]!))!.payloadType, null);
        const back = await all(url, size, "newest");
        assert.deepEqual(
          back.map((b) => b.blockId),
          want.map((w) => w.id).reverse(),
        );
      }
    }
  });

  it("lists a block's children across pages", async () => {
    const want = blocks.slice(1).map(toHex).sort();
    for (const size of [1, 2, 1000]) {
      const seen: string[] = [];
      let r = await app.inject(`${V2}/blocks/${toHex(parent)}/children?pageSize=${size}`);
      for (;;) {
        assert.equal(r.statusCode, 200, r.body);
        const body = r.json();
        assert.equal(body.count, body.children.length);
        assert.equal(body.maxResults, size);
        seen.push(...body.children);
        if (body.cursor === null) break;
        r = await app.inject(`${V2}/blocks/${toHex(parent)}/children?cursor=${body.cursor}`);
      }
      assert.deepEqual(
        seen.filter((c) => want.includes(c)),
        want,
      );
    }
  });

  it("lists a child and finds a block taken in just before, though intake writes behind", async () => {
    const fresh = await tb.block({ type: PayloadType.TaggedData, tag: new Uint8Array([9]), data: new Uint8Array() });
    const child = await tb.block(undefined, [fresh]);
    const r = await app.inject(`${V2}/blocks/${toHex(fresh)}/children`);
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual(r.json().children, [toHex(child)]);
  });

  it("answers 404 for unknown milestones and blocks, 400 for bad input", async () => {
    for (const url of [
      `${V2}/milestones/0x${"ab".repeat(32)}/blocks`,
      `${V2}/milestones/by-index/99999/blocks`,
      `${V2}/blocks/0x${"ab".repeat(32)}/children`,
    ]) {
      assert.equal((await app.inject(url)).statusCode, 404, url);
    }
    for (const url of [
      `${V2}/milestones/0x1234/blocks`,
      `${V2}/milestones/by-index/x/blocks`,
      `${V2}/milestones/by-index/1/blocks?foo=1`,
      `${V2}/milestones/by-index/1/blocks?pageSize=0`,
      `${V2}/milestones/by-index/1/blocks?cursor=abc`,
      `${V2}/milestones/by-index/1/blocks?sort=up`,
      `${V2}/blocks/${toHex(parent)}/children?cursor=1.1`,
      `${V2}/blocks/${toHex(parent)}/children?pageSize=ten`,
    ]) {
      const r = await app.inject(url);
      assert.equal(r.statusCode, 400, url);
      assert.equal(r.json().error.message, "invalid data provided");
    }
  });
});
