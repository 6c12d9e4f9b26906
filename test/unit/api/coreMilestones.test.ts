import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { decodeBlock } from "../../../src/codec/block.js";
import { toHex } from "../../../src/codec/hex.js";
import { computeMilestoneId, computeTransactionId, outputIdFromParts } from "../../../src/codec/ids.js";
import { decodePayload, encodePayload, payloadToJson } from "../../../src/codec/payload.js";
import type { MilestonePayload } from "../../../src/codec/types.js";
import { GENESIS_OUTPUT_ID } from "../../../src/node/devNetwork.js";
import type { MilestoneInfo } from "../../../src/tangle/tangle.js";
import {
  assertError,
  BINARY,
  CORE,
  genesisPayment,
  type Harness,
  openHarness,
  postTransaction,
} from "../../helpers/coreHarness.js";

describe("milestone reads", () => {
  let h: Harness;
  let ms1: MilestoneInfo;
  let ms2: MilestoneInfo;
  let txId: Uint8Array;
  const get = (url: string, accept?: string) => h.app.inject({ url, headers: accept ? { accept } : {} });
  const payloadOf = async (m: MilestoneInfo) =>
    decodeBlock((await h.node.tangle.getBlockBytes(m.blockId))!).payload as MilestonePayload;

  before(async () => {
    h = await openHarness({ minPowScore: 0 });
    ms1 = await h.node.coordinator.issueMilestone();
    const tx = genesisPayment(new Uint8Array(32).fill(5), 1_000_000n);
    txId = computeTransactionId(tx);
    const res = await postTransaction(h.app, tx);
    assert.equal(res.statusCode, 201, res.body);
    ms2 = await h.node.coordinator.issueMilestone();
  });
  after(async () => {
    await h.close();
  });

  it("serves a milestone payload by index and by ID, as JSON or raw payload bytes", async () => {
    const payload = await payloadOf(ms2);
    const byIndex = await get(`${CORE}/milestones/by-index/${ms2.index}`);
    assert.equal(byIndex.statusCode, 200);
    assert.deepEqual(byIndex.json(), payloadToJson(payload));
    assert.equal(byIndex.json().type, 7);
    assert.equal(byIndex.json().index, ms2.index);
    assert.equal(byIndex.json().previousMilestoneId, toHex(ms1.milestoneId));
    const byId = await get(`${CORE}/milestones/${toHex(ms2.milestoneId)}`);
    assert.deepEqual(byId.json(), byIndex.json());
    assert.equal(toHex(computeMilestoneId(payload)), toHex(ms2.milestoneId));

    for (const url of [`${CORE}/milestones/by-index/${ms2.index}`, `${CORE}/milestones/${toHex(ms2.milestoneId)}`]) {
      const raw = await get(url, BINARY);
      assert.equal(raw.statusCode, 200);
      assert.equal(raw.headers["content-type"], BINARY);
      const bytes = new Uint8Array(raw.rawPayload);
      assert.deepEqual(bytes, encodePayload(payload));
      assert.deepEqual(decodePayload(bytes), payload);
    }
  });

  it("lists the outputs a milestone created and consumed", async () => {
    const expected = {
      index: ms2.index,
      createdOutputs: [toHex(outputIdFromParts(txId, 0)), toHex(outputIdFromParts(txId, 1))],
      consumedOutputs: [toHex(GENESIS_OUTPUT_ID)],
    };
    assert.deepEqual((await get(`${CORE}/milestones/by-index/${ms2.index}/utxo-changes`)).json(), expected);
    assert.deepEqual((await get(`${CORE}/milestones/${toHex(ms2.milestoneId)}/utxo-changes`)).json(), expected);
    assert.deepEqual((await get(`${CORE}/milestones/by-index/${ms1.index}/utxo-changes`)).json(), {
      index: ms1.index,
      createdOutputs: [],
      consumedOutputs: [],
    });
  });

  it("answers 404 for unknown milestones", async () => {
    const unknown = `0x${"cd".repeat(32)}`;
    assertError(await get(`${CORE}/milestones/by-index/0`), 404, /milestone 0/);
    assertError(await get(`${CORE}/milestones/by-index/999`), 404);
    assertError(await get(`${CORE}/milestones/by-index/999`, BINARY), 404);
    assertError(await get(`${CORE}/milestones/by-index/999/utxo-changes`), 404);
    assertError(await get(`${CORE}/milestones/by-index/4294967295`), 404);
    assertError(await get(`${CORE}/milestones/${unknown}`), 404);
    assertError(await get(`${CORE}/milestones/${unknown}/utxo-changes`), 404);
  });

  it("answers 400 for malformed IDs and indexes", async () => {
    for (const bad of ["-1", "1.5", "abc", "4294967296", "99999999999", "0x01"]) {
      assertError(await get(`${CORE}/milestones/by-index/${bad}`), 400, /index/);
      assertError(await get(`${CORE}/milestones/by-index/${bad}/utxo-changes`), 400, /index/);
    }
    for (const bad of ["0x12", `0x${"zz".repeat(32)}`, "by-index", `0x${"ab".repeat(34)}`]) {
      assertError(await get(`${CORE}/milestones/${bad}`), 400, /milestoneId/);
      // ("by-index/utxo-changes" is the by-index route with a bad index)
      assertError(await get(`${CORE}/milestones/${bad}/utxo-changes`), 400, /milestoneId|index/);
    }
  });
});
