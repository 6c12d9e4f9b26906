import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { toHex } from "../../../src/codec/hex.js";
import { computeTransactionId, outputIdFromParts } from "../../../src/codec/ids.js";
import { encodeOutput, outputToJson } from "../../../src/codec/outputs/output.js";
import { DEV_KEY, DEV_TOKEN_SUPPLY, devGenesisOutput, GENESIS_OUTPUT_ID } from "../../../src/node/devNetwork.js";
import {
  assertError,
  BINARY,
  CORE,
  genesisPayment,
  type Harness,
  openHealthyHarness,
  postTransaction,
} from "../../helpers/coreHarness.js";

describe("output reads", () => {
  let h: Harness;
  const genesisId = toHex(GENESIS_OUTPUT_ID);
  const get = (url: string, accept?: string) => h.app.inject({ url, headers: accept ? { accept } : {} });

  before(async () => {
    h = await openHealthyHarness({ minPowScore: 0 });
  });
  after(async () => {
    await h.close();
  });

  it("serves the genesis output with its metadata (unspent, booked at 0 by the null block)", async () => {
    const res = await get(`${CORE}/outputs/${genesisId}`);
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(Object.keys(body), ["metadata", "output"]);
    assert.deepEqual(body.metadata, {
      blockId: `0x${"00".repeat(32)}`,
      transactionId: `0x${"00".repeat(32)}`,
      outputIndex: 0,
      isSpent: false,
      milestoneIndexBooked: 0,
      milestoneTimestampBooked: 0,
      ledgerIndex: 1,
    });
    assert.deepEqual(body.output, outputToJson(devGenesisOutput()));
    assert.deepEqual(body.output, {
      type: 3,
      amount: DEV_TOKEN_SUPPLY.toString(),
      unlockConditions: [{ type: 0, address: { type: 0, pubKeyHash: DEV_KEY.pubKeyHash } }],
    });
    assert.deepEqual((await get(`${CORE}/outputs/${genesisId}/metadata`)).json(), body.metadata);
    const raw = await get(`${CORE}/outputs/${genesisId}`, BINARY);
    assert.equal(raw.headers["content-type"], BINARY);
    assert.deepEqual(new Uint8Array(raw.rawPayload), encodeOutput(devGenesisOutput()));
  });

  it("shows a spent output with the spending transaction and milestone, and the new outputs booked", async () => {
    const tx = genesisPayment(new Uint8Array(32).fill(4), 3_000_000n);
    const res = await postTransaction(h.app, tx);
    assert.equal(res.statusCode, 201, res.body);
    // before confirmation the created outputs are not in the ledger
    const txId = computeTransactionId(tx);
    assertError(await get(`${CORE}/outputs/${toHex(outputIdFromParts(txId, 1))}`), 404, /not found/);
    const ms = await h.node.coordinator.issueMilestone();

    const spent = (await get(`${CORE}/outputs/${genesisId}/metadata`)).json();
    assert.equal(spent.isSpent, true);
    assert.equal(spent.milestoneIndexSpent, ms.index);
    assert.equal(spent.milestoneTimestampSpent, ms.timestamp);
    assert.equal(spent.transactionIdSpent, toHex(txId));
    assert.equal(spent.ledgerIndex, ms.index);

    const created = (await get(`${CORE}/outputs/${toHex(outputIdFromParts(txId, 1))}`)).json();
    assert.deepEqual(created.metadata, {
      blockId: res.json().blockId,
      transactionId: toHex(txId),
      outputIndex: 1,
      isSpent: false,
      milestoneIndexBooked: ms.index,
      milestoneTimestampBooked: ms.timestamp,
      ledgerIndex: ms.index,
    });
    assert.equal(created.output.amount, (DEV_TOKEN_SUPPLY - 3_000_000n).toString());
  });

  it("answers 404 for unknown outputs and 400 for IDs that are not 34 bytes of 0x-hex", async () => {
    assertError(await get(`${CORE}/outputs/0x${"ab".repeat(34)}`), 404);
    assertError(await get(`${CORE}/outputs/0x${"ab".repeat(34)}/metadata`), 404);
    for (const bad of [`0x${"00".repeat(32)}`, `0x${"00".repeat(35)}`, `0x${"0g".repeat(34)}`, "00".repeat(34), "0x"]) {
      assertError(await get(`${CORE}/outputs/${bad}`), 400, /outputId/);
      assertError(await get(`${CORE}/outputs/${bad}/metadata`), 400, /outputId/);
    }
  });
});
