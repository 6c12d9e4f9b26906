import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { blockToJson, decodeBlock, encodeBlock } from "../../../src/codec/block.js";
import { fromHex, toHex } from "../../../src/codec/hex.js";
import { blockIdFromBytes, computeTransactionId } from "../../../src/codec/ids.js";
import { transactionToJson } from "../../../src/codec/transaction.js";
import type { TransactionPayload } from "../../../src/codec/types.js";
import { ConflictReason } from "../../../src/ledger/conflictReason.js";
import { DEV_TOKEN_SUPPLY, devGenesisOutput, GENESIS_OUTPUT_ID } from "../../../src/node/devNetwork.js";
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
} from "../../helpers/coreHarness.js";
import { devWallet } from "../../helpers/wallet.js";

describe("block reads", () => {
  let h: Harness;
  let pay: TransactionPayload;
  let payBlock: string;
  let doubleBlock: string;
  let taggedBlock: string;

  const get = (url: string, accept?: string) => h.app.inject({ url, headers: accept ? { accept } : {} });
  const submit = async (body: object): Promise<string> => {
    const res = await h.app.inject({ method: "POST", url: `${CORE}/blocks`, payload: body });
    assert.equal(res.statusCode, 201, res.body);
    return res.json().blockId;
  };

  before(async () => {
    // PoW off so the tests can name parents and keep nonce 0
    h = await openHealthyHarness({ minPowScore: 0 });
    const dev = devWallet();
    pay = genesisPayment(new Uint8Array(32).fill(3), 2_000_000n);
    const genesis = [{ outputId: GENESIS_OUTPUT_ID, output: devGenesisOutput() }];
    const double = devTransaction(genesis, [basicTo(dev.address.pubKeyHash, DEV_TOKEN_SUPPLY)], dev.keyPair);
    payBlock = await submit({ protocolVersion: 2, payload: transactionToJson(pay) });
    doubleBlock = await submit({ protocolVersion: 2, parents: [payBlock], payload: transactionToJson(double) });
    taggedBlock = await submit({ protocolVersion: 2, payload: { type: 5, tag: "0x74", data: "0x" } });
  });
  after(async () => {
    await h.close();
  });

  it("serves a block as TIP-25 JSON, and as raw bytes when asked", async () => {
    const bytes = (await h.node.tangle.getBlockBytes(fromHex(taggedBlock, "id")))!;
    const json = await get(`${CORE}/blocks/${taggedBlock}`);
    assert.equal(json.statusCode, 200);
    assert.match(String(json.headers["content-type"]), /^application\/json/);
    assert.deepEqual(json.json(), blockToJson(decodeBlock(bytes)));
    assert.deepEqual(Object.keys(json.json()), ["protocolVersion", "parents", "payload", "nonce"]);
    for (const accept of [BINARY, "application/vnd.node.serializer-v1", `${BINARY}, application/json;q=0.5`]) {
      const raw = await get(`${CORE}/blocks/${taggedBlock}`, accept);
      assert.equal(raw.statusCode, 200);
      assert.equal(raw.headers["content-type"], BINARY);
      assert.deepEqual(new Uint8Array(raw.rawPayload), bytes);
      assert.equal(toHex(blockIdFromBytes(new Uint8Array(raw.rawPayload))), taggedBlock);
    }
    for (const accept of ["application/json", "*/*", `application/json, ${BINARY};q=0.5`]) {
      assert.match(String((await get(`${CORE}/blocks/${taggedBlock}`, accept)).headers["content-type"]), /json/);
    }
  });

  it("gives metadata of a solid block not referenced yet, with tip advice", async () => {
    const res = await get(`${CORE}/blocks/${taggedBlock}/metadata`);
    assert.equal(res.statusCode, 200);
    const meta = res.json();
    const parents = decodeBlock((await h.node.tangle.getBlockBytes(fromHex(taggedBlock, "id")))!).parents.map(toHex);
    assert.deepEqual(meta, {
      blockId: taggedBlock,
      parents,
      isSolid: true,
      shouldPromote: false,
      shouldReattach: false,
    });
  });

  it("gives metadata after confirmation: included, conflicting with its reason, white-flag order", async () => {
    const ms = await h.node.coordinator.issueMilestone();
    const a = (await get(`${CORE}/blocks/${payBlock}/metadata`)).json();
    const b = (await get(`${CORE}/blocks/${doubleBlock}/metadata`)).json();
    const t = (await get(`${CORE}/blocks/${taggedBlock}/metadata`)).json();
    assert.deepEqual(Object.keys(a).sort(), [
      "blockId",
      "isSolid",
      "ledgerInclusionState",
      "parents",
      "referencedByMilestoneIndex",
      "whiteFlagIndex",
    ]);
    assert.equal(a.referencedByMilestoneIndex, ms.index);
    assert.equal(a.ledgerInclusionState, "included");
    assert.equal(b.ledgerInclusionState, "conflicting");
    assert.equal(b.conflictReason, ConflictReason.InputUtxoAlreadySpentInThisMilestone);
    assert.ok(a.whiteFlagIndex < b.whiteFlagIndex);
    assert.equal(t.ledgerInclusionState, "noTransaction");
    assert.equal(t.conflictReason, undefined);
    assert.equal(t.shouldPromote, undefined);
  });

  it("names the milestone index of a milestone block", async () => {
    const latest = h.node.tangle.latestMilestone;
    const meta = (await get(`${CORE}/blocks/${toHex(latest.blockId)}/metadata`)).json();
    assert.equal(meta.milestoneIndex, latest.index);
    assert.equal(meta.isSolid, true);
    await h.node.coordinator.issueMilestone();
    const after = (await get(`${CORE}/blocks/${toHex(latest.blockId)}/metadata`)).json();
    assert.equal(after.milestoneIndex, latest.index);
    assert.equal(after.referencedByMilestoneIndex, latest.index + 1);
  });

  it("advises promotion for an old cone and reattachment below max depth", async () => {
    const base = h.node.tangle.latestMilestone; // referenced by the next milestone
    for (let i = 0; i < 10; i++) await h.node.coordinator.issueMilestone();
    // parents confirmed 9 milestones ago: YCRI too old (> 8) → promote
    const oldish = encodeBlock({ protocolVersion: 2, parents: [base.blockId], nonce: 0n });
    const oldishRes = await h.app.inject({
      method: "POST",
      url: `${CORE}/blocks`,
      payload: Buffer.from(oldish),
      headers: { "content-type": BINARY },
    });
    assert.equal(oldishRes.statusCode, 201, oldishRes.body);
    const promote = (await get(`${CORE}/blocks/${oldishRes.json().blockId}/metadata`)).json();
    assert.deepEqual([promote.shouldPromote, promote.shouldReattach], [true, false]);

    // a fresh block over it shares its cone: promote as well
    const child = await submit({ protocolVersion: 2, parents: [oldishRes.json().blockId] });
    const childMeta = (await get(`${CORE}/blocks/${child}/metadata`)).json();
    assert.deepEqual([childMeta.shouldPromote, childMeta.shouldReattach], [true, false]);

    // a parent confirmed more than belowMaxDepth (15) milestones ago → reattach
    for (let i = 0; i < 7; i++) await h.node.coordinator.issueMilestone();
    const stale = encodeBlock({
      protocolVersion: 2,
      parents: [base.blockId],
      payload: { type: 5, tag: Uint8Array.of(1), data: new Uint8Array() },
      nonce: 0n,
    });
    const staleRes = await h.app.inject({
      method: "POST",
      url: `${CORE}/blocks`,
      payload: Buffer.from(stale),
      headers: { "content-type": BINARY },
    });
    // a client's such block is refused at the door (docs/decisions.md, Threats); one that got
    // in before (a peer's, stored straight into the tangle here) is advised to be reattached
    assertError(staleRes, 400, /below max depth/);
    const staleId = blockIdFromBytes(stale);
    await h.node.tangle.storeBlock(staleId, decodeBlock(stale), stale, false);
    const reattach = (await get(`${CORE}/blocks/${toHex(staleId)}/metadata`)).json();
    assert.deepEqual([reattach.shouldPromote, reattach.shouldReattach], [false, true]);
  });

  it("finds the block that included a transaction, as JSON, raw bytes or metadata", async () => {
    const txId = toHex(computeTransactionId(pay));
    const json = await get(`${CORE}/transactions/${txId}/included-block`);
    assert.equal(json.statusCode, 200);
    assert.deepEqual(json.json(), (await get(`${CORE}/blocks/${payBlock}`)).json());
    const raw = await get(`${CORE}/transactions/${txId}/included-block`, BINARY);
    assert.equal(raw.headers["content-type"], BINARY);
    assert.equal(toHex(blockIdFromBytes(new Uint8Array(raw.rawPayload))), payBlock);
    const meta = (await get(`${CORE}/transactions/${txId}/included-block/metadata`)).json();
    assert.equal(meta.blockId, payBlock);
    assert.equal(meta.ledgerInclusionState, "included");
  });

  it("answers 404 for unknown blocks and transactions, and for a conflicting transaction", async () => {
    const unknown = `0x${"ab".repeat(32)}`;
    assertError(await get(`${CORE}/blocks/${unknown}`), 404, /not found/);
    assertError(await get(`${CORE}/blocks/${unknown}`, BINARY), 404);
    assertError(await get(`${CORE}/blocks/${unknown}/metadata`), 404);
    assertError(await get(`${CORE}/blocks/0x${"00".repeat(32)}`), 404);
    assertError(await get(`${CORE}/transactions/${unknown}/included-block`), 404, /not included/);
    assertError(await get(`${CORE}/transactions/${unknown}/included-block/metadata`), 404);
    const conflicting = decodeBlock((await h.node.tangle.getBlockBytes(fromHex(doubleBlock, "id")))!).payload;
    const txId = toHex(computeTransactionId(conflicting as TransactionPayload));
    assertError(await get(`${CORE}/transactions/${txId}/included-block`), 404);
  });

  it("answers 400 for IDs that are not 0x-hex of 32 bytes", async () => {
    for (const bad of ["0x1234", "1234", `0x${"zz".repeat(32)}`, `0x${"ab".repeat(33)}`, `${"ab".repeat(32)}`, "%20"]) {
      assertError(await get(`${CORE}/blocks/${bad}`), 400, /blockId/);
      assertError(await get(`${CORE}/blocks/${bad}/metadata`), 400, /blockId/);
      assertError(await get(`${CORE}/transactions/${bad}/included-block`), 400, /transactionId/);
    }
    assert.match(`0x${"ab".repeat(32)}`, HEX32);
  });
});
