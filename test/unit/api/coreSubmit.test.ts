import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { buildServer } from "../../../src/api/server.js";
import { blockToJson, decodeBlock, encodeBlock } from "../../../src/codec/block.js";
import { fromHex, toHex } from "../../../src/codec/hex.js";
import { blockIdFromBytes } from "../../../src/codec/ids.js";
import { transactionToJson } from "../../../src/codec/transaction.js";
import type { Block } from "../../../src/codec/types.js";
import { closeMinerPool, minerPool, powDigest, powScore, withNonce } from "../../../src/pow/index.js";
import {
  assertError,
  BINARY,
  basicTo,
  CORE,
  devTransaction,
  genesisPayment,
  type Harness,
  HEX32,
  openHealthyHarness,
  viewWith,
} from "../../helpers/coreHarness.js";
import { devWallet } from "../../helpers/wallet.js";

const MIN_POW = 100;
const tagged = (tag: string, data = "0x") => ({ type: 5, tag, data });

describe("POST /api/core/v2/blocks", () => {
  let h: Harness;
  const post = (payload: unknown, headers: Record<string, string> = {}) =>
    h.app.inject({ method: "POST", url: `${CORE}/blocks`, payload: payload as object, headers });
  const postBytes = (bytes: Uint8Array, type = BINARY) =>
    h.app.inject({
      method: "POST",
      url: `${CORE}/blocks`,
      payload: Buffer.from(bytes),
      headers: { "content-type": type },
    });
  const stored = async (blockId: string): Promise<{ block: Block; bytes: Uint8Array }> => {
    const bytes = (await h.node.tangle.getBlockBytes(fromHex(blockId, "blockId")))!;
    return { block: decodeBlock(bytes), bytes };
  };
  const tip = () => h.node.tangle.selectParents();
  /** A tagged-data block over `parents`, mined here to the network's score. */
  const minedBlock = async (tag: string, parents = tip()): Promise<Uint8Array> => {
    const bytes = encodeBlock({
      protocolVersion: 2,
      parents,
      payload: { type: 5, tag: fromHex(tag, "t"), data: new Uint8Array() },
      nonce: 0n,
    });
    const nonce = await minerPool().mine(powDigest(bytes), MIN_POW, bytes.length, { workers: 1 });
    return withNonce(bytes, nonce);
  };

  before(async () => {
    h = await openHealthyHarness({ minPowScore: MIN_POW, powWorkers: 1 });
  });
  after(async () => {
    await h.close();
    await closeMinerPool();
  });

  describe("accepts", () => {
    it("JSON without parents and nonce: the node selects tips and does the PoW (201, Location)", async () => {
      const res = await post({ protocolVersion: 2, payload: tagged("0x01", "0x68656c6c6f") });
      assert.equal(res.statusCode, 201, res.body);
      assert.deepEqual(Object.keys(res.json()), ["blockId"]);
      const { blockId } = res.json();
      assert.match(blockId, HEX32);
      assert.equal(res.headers.location, `${CORE}/blocks/${blockId}`);
      const { block, bytes } = await stored(blockId);
      assert.equal(toHex(blockIdFromBytes(bytes)), blockId);
      assert.ok(block.parents.length >= 1);
      assert.notEqual(block.nonce, 0n);
      assert.ok(powScore(bytes) >= MIN_POW);
    });

    it('JSON as iota.js sends it without local PoW (parents [], nonce "0") and with no payload', async () => {
      const res = await post({ protocolVersion: 2, parents: [], nonce: "0" });
      assert.equal(res.statusCode, 201, res.body);
      const { block } = await stored(res.json().blockId);
      assert.equal(block.payload, undefined);
      assert.ok(block.parents.length >= 1);
      const nulls = await post({ protocolVersion: 2, parents: null, payload: null, nonce: null });
      assert.equal(nulls.statusCode, 201, nulls.body);
    });

    it("JSON with parents named by the client, which are kept", async () => {
      const parents = tip().map(toHex);
      const res = await post({ protocolVersion: 2, parents, payload: tagged("0x02") });
      assert.equal(res.statusCode, 201, res.body);
      assert.deepEqual((await stored(res.json().blockId)).block.parents.map(toHex), parents);
    });

    it("a block already mined by the client, without re-mining it", async () => {
      const bytes = await minedBlock("0x03");
      const json = blockToJson(decodeBlock(bytes));
      const res = await post(json);
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.json().blockId, toHex(blockIdFromBytes(bytes)));
      // the same block again: known, same ID
      assert.equal((await post(json)).json().blockId, res.json().blockId);
    });

    it("raw bytes under both media types, with or without parents", async () => {
      const mined = await minedBlock("0x04");
      const a = await postBytes(mined);
      assert.equal(a.statusCode, 201, a.body);
      assert.equal(a.json().blockId, toHex(blockIdFromBytes(mined)));
      assert.equal(a.headers.location, `${CORE}/blocks/${a.json().blockId}`);

      const unmined = encodeBlock({
        protocolVersion: 2,
        parents: tip(),
        payload: { type: 5, tag: Uint8Array.of(5), data: new Uint8Array() },
        nonce: 0n,
      });
      const b = await postBytes(unmined, "application/vnd.node.serializer-v1");
      assert.equal(b.statusCode, 201, b.body);
      const mb = await stored(b.json().blockId);
      assert.ok(powScore(mb.bytes) >= MIN_POW);

      // zero parents in the binary form: the node fills them, as in JSON
      // version 2, 0 parents, no payload (length 0), nonce 0
      const noParents = Uint8Array.of(2, 0, ...new Uint8Array(4), ...new Uint8Array(8));
      const c = await postBytes(noParents);
      assert.equal(c.statusCode, 201, c.body);
      assert.ok((await stored(c.json().blockId)).block.parents.length >= 1);

      // the same bytes as one 0x-hex string (the interface document's "string" body)
      const hexBody = await h.app.inject({
        method: "POST",
        url: `${CORE}/blocks`,
        payload: `${toHex(await minedBlock("0x06"))}\n`,
        headers: { "content-type": "application/vnd.node.serializer-v1" },
      });
      assert.equal(hexBody.statusCode, 201, hexBody.body);
    });

    it("a value transaction built and signed for the dev network, then confirmed", async () => {
      const tx = genesisPayment(new Uint8Array(32).fill(9), 1_000_000n);
      const res = await post({ protocolVersion: 2, payload: transactionToJson(tx) });
      assert.equal(res.statusCode, 201, res.body);
      await h.node.coordinator.issueMilestone();
      const meta = (await h.app.inject(`${CORE}/blocks/${res.json().blockId}/metadata`)).json();
      assert.equal(meta.ledgerInclusionState, "included");
    });
  });

  describe("refuses with 400", () => {
    it("a missing, wrong or mistyped protocol version", async () => {
      assertError(await post({ payload: tagged("0x01") }), 400, /protocolVersion: is required/);
      assertError(await post({ protocolVersion: 1 }), 400, /protocolVersion: 1 is not supported/);
      assertError(await post({ protocolVersion: 3 }), 400, /protocolVersion/);
      assertError(await post({ protocolVersion: "2" }), 400, /protocolVersion/);
      assertError(await postBytes(Uint8Array.of(1, 0, ...new Uint8Array(12))), 400, /protocolVersion/);
    });

    it("malformed JSON, non-object bodies and unknown fields", async () => {
      assertError(await post('{"protocolVersion": 2,', { "content-type": "application/json" }), 400);
      assertError(await post("[]", { "content-type": "application/json" }), 400, /expected an object/);
      assertError(await post("2", { "content-type": "application/json" }), 400, /expected an object/);
      assertError(await post("", { "content-type": "application/json" }), 400);
      assertError(await post({ protocolVersion: 2, parent: [] }), 400, /block\.parent: unknown field/);
      assertError(await post({ protocolVersion: 2, payload: { ...tagged("0x01"), extra: 1 } }), 400, /unknown field/);
      assertError(await post('{"protocolVersion":2,"__proto__":{"x":1}}', { "content-type": "application/json" }), 400);
    });

    it("wrong hex, wrong parents and parents this node does not know", async () => {
      assertError(await post({ protocolVersion: 2, parents: ["0x1234"] }), 400, /parents\[0\]/);
      assertError(await post({ protocolVersion: 2, parents: ["zz"] }), 400, /parents\[0\]/);
      assertError(await post({ protocolVersion: 2, parents: "0x00" }), 400, /parents/);
      const [a, b] = [`0x${"11".repeat(32)}`, `0x${"22".repeat(32)}`];
      assertError(await post({ protocolVersion: 2, parents: [b, a] }), 400, /sorted/);
      assertError(await post({ protocolVersion: 2, parents: Array(9).fill(a) }), 400, /parents/);
      assertError(await post({ protocolVersion: 2, parents: [a] }), 400, /not known to this node/);
      assertError(await post({ protocolVersion: 2, payload: { type: 5, tag: "0xz1", data: "0x" } }), 400, /tag/);
      assertError(await post({ protocolVersion: 2, nonce: "-1" }), 400, /nonce/);
      assertError(await post({ protocolVersion: 2, nonce: 5 }), 400, /nonce/);
    });

    it("a non-zero nonce that misses the score, and a nonce without parents", async () => {
      const res = await post({ protocolVersion: 2, parents: tip().map(toHex), payload: tagged("0x09"), nonce: "1" });
      assertError(res, 400, /PoW score .* below the minimum 100/);
      assertError(await post({ protocolVersion: 2, nonce: "12345" }), 400, /nonce/);
    });

    it("unsupported or missing content types", async () => {
      assertError(await post("hello", { "content-type": "text/plain" }), 400, /unsupported content type "text\/plain"/);
      assertError(await post("<a/>", { "content-type": "application/xml" }), 400, /unsupported content type/);
      assertError(await post("x", { "content-type": "application/octet-stream" }), 400, /unsupported/);
      assertError(await h.app.inject({ method: "POST", url: `${CORE}/blocks` }), 400, /no body/);
      assertError(await post("{}", { "content-type": "" }), 400);
      assertError(await post("{}", { "content-type": "%%%" }), 400);
    });

    it("truncated, padded, oversized and empty binary blocks", async () => {
      const bytes = await minedBlock("0x0a");
      assertError(await postBytes(bytes.subarray(0, bytes.length - 3)), 400, /block/);
      assertError(await postBytes(bytes.subarray(0, 1)), 400, /block/);
      assertError(await postBytes(new Uint8Array()), 400);
      assertError(await postBytes(Uint8Array.from([...bytes, 0])), 400, /block/);
      assertError(await postBytes(new TextEncoder().encode("0xzz")), 400, /block/);
      assertError(await postBytes(new Uint8Array(40_000).fill(2)), 400, /limit is 32768/);
      assertError(await postBytes(new Uint8Array(70_000).fill(2)), 400, /too large/);
    });

    it("huge bodies of any type", async () => {
      const huge = JSON.stringify({ protocolVersion: 2, payload: tagged("0x01", `0x${"ab".repeat(700_000)}`) });
      assertError(await post(huge, { "content-type": "application/json" }), 400, /too large/);
      const big = JSON.stringify({ protocolVersion: 2, payload: tagged("0x01", `0x${"ab".repeat(40_000)}`) });
      assertError(await post(big, { "content-type": "application/json" }), 400, /32768/);
    });

    it("a transaction for another network, and other syntactic rules", async () => {
      const dev = devWallet();
      const tx = devTransaction(
        [{ outputId: new Uint8Array(34).fill(1), output: basicTo(dev.address.pubKeyHash, 1_000_000n) }],
        [basicTo(dev.address.pubKeyHash, 1_000_000n)],
        dev.keyPair,
        "mainnet",
      );
      assertError(await post({ protocolVersion: 2, payload: transactionToJson(tx) }), 400, /networkId/);
      assertError(await post({ protocolVersion: 2, payload: tagged(`0x${"00".repeat(65)}`) }), 400, /tag/);
      assertError(await post({ protocolVersion: 2, payload: { type: 4 } }), 400, /payload/);
    });

    it("milestones not signed by the coordinator (a known one is a duplicate: 201)", async () => {
      const latest = h.node.tangle.latestMilestone;
      const ms = (await h.app.inject(`${CORE}/milestones/by-index/${latest.index}`)).json();
      const forged = { ...ms, index: latest.index + 1, previousMilestoneId: toHex(latest.milestoneId) };
      const res = await post({ protocolVersion: 2, parents: ms.parents, payload: forged, nonce: "0" });
      assertError(res, 400, /not signed by the coordinator/);
      // the stale milestone with a valid signature and no block here: unit/network/intake.test.ts
      const original = (await h.node.tangle.getBlockBytes(latest.blockId))!;
      const again = await postBytes(original);
      assert.equal(again.statusCode, 201, again.body);
      assert.equal(again.json().blockId, toHex(latest.blockId));
    });
  });

  describe("PoW disabled on the node", () => {
    it("answers 503 when PoW is needed, and still takes blocks the client mined", async () => {
      const app = buildServer(viewWith(h.node, { powWorkers: 0 }), "silent");
      try {
        const res = await app.inject({
          method: "POST",
          url: `${CORE}/blocks`,
          payload: { protocolVersion: 2, payload: tagged("0x0b") },
        });
        assertError(res, 503, /proof of work/);
        const mined = await minedBlock("0x0c");
        const ok = await app.inject({
          method: "POST",
          url: `${CORE}/blocks`,
          payload: Buffer.from(mined),
          headers: { "content-type": BINARY },
        });
        assert.equal(ok.statusCode, 201, ok.body);
      } finally {
        await app.close();
      }
    });
  });

  it("returns the block as sent: the stored bytes are the canonical encoding", async () => {
    const mined = await minedBlock("0x0d");
    const res = await postBytes(mined);
    const got = await h.app.inject({ url: `${CORE}/blocks/${res.json().blockId}`, headers: { accept: BINARY } });
    assert.deepEqual(new Uint8Array(got.rawPayload), mined);
    const json = (await h.app.inject(`${CORE}/blocks/${res.json().blockId}`)).json();
    assert.deepEqual(json, blockToJson(decodeBlock(mined)));
    assert.equal(toHex(encodeBlock(decodeBlock(mined))), toHex(mined));
  });
});
