import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { FastifyInstance } from "fastify";
import { formatIndexerCursor, parseIndexerCursor } from "../../../src/api/routes/indexer.js";
import { addressToBech32, aliasAddressOf } from "../../../src/codec/address.js";
import { toHex } from "../../../src/codec/hex.js";
import { buildHistory, FUTURE, type History, TAG, TestLedger } from "../../helpers/ledgerFixture.js";
import { basic } from "../../helpers/txBuilder.js";

interface Listing {
  ledgerIndex: number;
  pageSize: number;
  cursor?: string;
  items: string[];
}

describe("indexer routes (inx-indexer v1)", () => {
  let ledger: TestLedger;
  let app: FastifyInstance;
  let h: History;
  const bech = (a: Parameters<typeof addressToBech32>[0]) => addressToBech32(a, "tst");
  const get = (url: string) => app.inject({ method: "GET", url });
  const listing = async (url: string): Promise<Listing> => {
    const r = await get(url);
    assert.equal(r.statusCode, 200, r.body);
    return r.json();
  };
  const o = (i: number) => toHex(h.split.outputs[i]!.outputId);

  before(async () => {
    ledger = await TestLedger.open("api-indexer");
    ({ app } = await ledger.serve());
    await app.ready();
    h = await buildHistory(ledger);
  });
  after(async () => {
    await ledger.close();
  });

  it("GET /outputs/alias/:aliasId follows the alias through its state transition", async () => {
    const r = await get(`/api/indexer/v1/outputs/alias/${toHex(h.aliasId)}`);
    assert.equal(r.statusCode, 200);
    assert.deepEqual(r.json(), { ledgerIndex: h.msB.index, items: [toHex(h.transition.outputs[0]!.outputId)] });
  });

  it("answers 404 for a destroyed alias and one never created", async () => {
    for (const id of [toHex(h.destroyedAliasId), `0x${"ab".repeat(32)}`]) {
      const r = await get(`/api/indexer/v1/outputs/alias/${id}`);
      assert.equal(r.statusCode, 404);
      assert.equal(r.json().error.code, 404);
      assert.equal(r.json().error.message, "could not find data");
    }
  });

  it("answers 400 for an alias ID that is not 32 bytes of 0x-hex", async () => {
    for (const id of [`0x${"ab".repeat(31)}`, `0x${"ab".repeat(33)}`, "ab".repeat(32), `0x${"zz".repeat(32)}`, "0x"]) {
      const r = await get(`/api/indexer/v1/outputs/alias/${id}`);
      assert.equal(r.statusCode, 400, id);
      assert.deepEqual(Object.keys(r.json().error).sort(), ["code", "details", "message"]);
      assert.equal(r.json().error.message, "invalid data provided");
    }
    const r = await get(`/api/indexer/v1/outputs/alias/${toHex(h.aliasId)}?extra=1`);
    assert.equal(r.statusCode, 400);
  });

  it("finds NFTs and foundries by ID", async () => {
    assert.deepEqual((await listing(`/api/indexer/v1/outputs/nft/${toHex(h.nftId)}`)).items, [o(4)]);
    assert.deepEqual((await listing(`/api/indexer/v1/outputs/foundry/${toHex(h.foundryId)}`)).items, [
      toHex(h.transition.outputs[1]!.outputId),
    ]);
    assert.equal((await get(`/api/indexer/v1/outputs/foundry/${toHex(h.aliasId)}`)).statusCode, 400, "38 bytes");
    assert.equal((await get(`/api/indexer/v1/outputs/nft/${toHex(h.aliasId)}`)).statusCode, 404);
  });

  it("lists basic outputs by address with inx-indexer's filters", async () => {
    const base = `/api/indexer/v1/outputs/basic?address=${bech(h.alice.address)}`;
    const all = await listing(base);
    assert.deepEqual(all, { ledgerIndex: h.msB.index, pageSize: 1000, items: [o(1), o(2)] });
    assert.deepEqual((await listing(`${base}&hasStorageDepositReturn=false`)).items, [o(2)]);
    assert.deepEqual((await listing(`${base}&hasStorageDepositReturn=true&hasExpiration=true`)).items, [o(1)]);
    assert.deepEqual((await listing(`${base}&hasTimelock=true&timelockedAfter=${FUTURE}`)).items, [o(2)]);
    assert.deepEqual((await listing(`${base}&tag=${toHex(TAG)}&sender=${bech(h.dev.address)}`)).items, [o(1)]);
    assert.deepEqual((await listing(`${base}&hasNativeTokens=true`)).items, []);
    // what iota.js's addressBalance asks for the expiration return address
    const exp = await listing(
      `/api/indexer/v1/outputs/basic?expirationReturnAddress=${bech(h.dev.address)}&expiresBefore=${FUTURE + 1}`,
    );
    assert.deepEqual(exp.items, [o(1)]);
  });

  it("lists aliases, foundries and NFTs by their addresses", async () => {
    const aliasNow = toHex(h.transition.outputs[0]!.outputId);
    const a = `/api/indexer/v1/outputs/alias?stateController=${bech(h.alice.address)}`;
    assert.deepEqual((await listing(a)).items, [aliasNow]);
    assert.deepEqual((await listing(`${a}&governor=${bech(h.bob.address)}&issuer=${bech(h.dev.address)}`)).items, [
      aliasNow,
    ]);
    const f = `/api/indexer/v1/outputs/foundry?aliasAddress=${bech(aliasAddressOf(h.aliasId))}`;
    assert.deepEqual((await listing(f)).items, [toHex(h.transition.outputs[1]!.outputId)]);
    assert.deepEqual((await listing(`/api/indexer/v1/outputs/nft?address=${bech(h.alice.address)}`)).items, [o(4)]);
    assert.deepEqual((await listing(`/api/indexer/v1/outputs/nft?tag=${toHex(TAG)}`)).items, [o(4)]);
  });

  it("pages with inx-indexer's cursor until the last page, which has none", async () => {
    const all = (await listing("/api/indexer/v1/outputs/basic")).items;
    assert.equal(all.length, 4);
    const seen: string[] = [];
    let page = await listing("/api/indexer/v1/outputs/basic?pageSize=1");
    for (;;) {
      assert.equal(page.pageSize, 1);
      seen.push(...page.items);
      if (page.cursor === undefined) break;
      assert.match(page.cursor, /^[0-9a-f]{76}\.1$/);
      // the cursor's page size wins over pageSize
      page = await listing(`/api/indexer/v1/outputs/basic?cursor=${page.cursor}&pageSize=50`);
    }
    assert.deepEqual(seen, all);
    assert.equal((await listing("/api/indexer/v1/outputs/basic?pageSize=5000")).pageSize, 1000);
  });

  it("formats and parses the cursor as <created_at 8 hex><outputId 68 hex>.<pageSize>", () => {
    const position = { createdAt: 0x65a1b2c3, outputId: h.split.outputs[1]!.outputId };
    const c = formatIndexerCursor(position, 7);
    assert.equal(c, `65a1b2c3${o(1).slice(2)}.7`);
    const back = parseIndexerCursor(c);
    assert.equal(back.pageSize, 7);
    assert.equal(back.position.createdAt, position.createdAt);
    assert.equal(toHex(back.position.outputId), o(1));
  });

  it("answers 400 for bad addresses, cursors, numbers and unknown parameters", async () => {
    const alice = bech(h.alice.address);
    const bad = [
      "basic?address=tst1notanaddress",
      `basic?address=${addressToBech32(h.alice.address, "rms")}`,
      `basic?address=${alice.slice(0, -1)}${alice.endsWith("q") ? "p" : "q"}`,
      "basic?pageSize=ten",
      "basic?pageSize=0",
      "basic?pageSize=-1",
      "basic?cursor=abc.1",
      `basic?cursor=${"0".repeat(76)}`,
      `basic?cursor=${"0".repeat(76)}.x`,
      `basic?cursor=${"0".repeat(76)}.0`,
      "basic?hasNativeTokens=maybe",
      "basic?createdBefore=yesterday",
      "basic?minNativeTokenCount=65",
      "basic?tag=68656c6c6f",
      "basic?unlockableByAddress=x",
      `basic?address=${alice}&address=${alice}`,
      "basic?stateController=x",
      `alias?address=${alice}`,
      `foundry?aliasAddress=${alice}`,
      `nft?governor=${alice}`,
    ];
    for (const q of bad) {
      const r = await get(`/api/indexer/v1/outputs/${q}`);
      assert.equal(r.statusCode, 400, `${q}: ${r.body}`);
      assert.equal(r.json().error.code, 400);
    }
  });

  // pages are kept while the latest milestone stays (api/milestoneAnswers.ts): last, as it moves the ledger
  it("answers a page again with the same text until a milestone changes the ledger", async () => {
    const url = `/api/indexer/v1/outputs/basic?address=${bech(h.alice.address)}`;
    const first = await get(url);
    assert.equal(first.statusCode, 200);
    const again = await get(url);
    assert.equal(again.body, first.body);
    assert.equal(again.headers["content-type"], first.headers["content-type"]);
    const remainder = h.split.outputs[5]!;
    const pay = await ledger.send(
      [remainder],
      [
        basic(h.alice.address),
        basic(h.dev.address, { amount: remainder.output.amount - basic(h.alice.address).amount }),
      ],
      [h.dev],
    );
    const ms = await ledger.milestone();
    await ledger.assertIncluded(pay);
    assert.deepEqual(await listing(url), {
      ledgerIndex: ms.index,
      pageSize: 1000,
      items: [o(1), o(2), toHex(pay.outputs[0]!.outputId)],
    });
  });
});
