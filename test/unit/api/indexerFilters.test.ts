import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { FastifyInstance } from "fastify";
import { addressToBech32 } from "../../../src/codec/address.js";
import {
  expected,
  type Filters,
  type FilterWorld,
  filterValues,
  HRP,
  type LedgerOutput,
  openFilterWorld,
  ROUTES_OF,
} from "../../helpers/filterFixture.js";
import type { TestLedger } from "../../helpers/ledgerFixture.js";

const V1 = "/api/indexer/v1/outputs";

describe("indexer filters against a brute-force scan of the ledger", () => {
  let ledger: TestLedger;
  let app: FastifyInstance;
  let world: FilterWorld;
  let all: LedgerOutput[];

  /** Every item of a listing, following cursors with `pageSize` per page. */
  async function pages(path: string, filters: Filters, pageSize: number): Promise<string[]> {
    const url = (extra: Record<string, string>) =>
      `${path ? `${V1}/${path}` : V1}?${new URLSearchParams({ ...filters, ...extra }).toString()}`;
    const items: string[] = [];
    let r = await app.inject(url({ pageSize: String(pageSize) }));
    for (let n = 0; ; n++) {
      assert.equal(r.statusCode, 200, r.body);
      const body = r.json();
      assert.equal(body.pageSize, pageSize);
      assert.equal(body.ledgerIndex, ledger.node.tangle.latestMilestone.index);
      assert.ok(body.items.length <= pageSize);
      items.push(...body.items);
      if (body.cursor === undefined) break;
      assert.equal(body.items.length, pageSize, "only the last page is short");
      assert.ok(n < 200, "the paging ends");
      r = await app.inject(url({ cursor: body.cursor }));
    }
    return items;
  }

  before(async () => {
    ({ ledger, app, world, all } = await openFilterWorld("api-indexer-filters"));
  });
  after(async () => {
    await app.close();
    await ledger.close();
  });

  for (const [name, paths] of Object.entries(ROUTES_OF)) {
    it(`${name}: the exact set, across pages of 1, 2 and 1000`, async () => {
      for (const path of paths) {
        const unfiltered = expected(all, path, {}, HRP);
        let matchedSome = false;
        let leftSomeOut = false;
        for (const value of filterValues(world, name)) {
          const filters = { [name]: value };
          const want = expected(all, path, filters, HRP);
          if (want.length > 0) matchedSome = true;
          if (want.length < unfiltered.length) leftSomeOut = true;
          for (const size of [1, 2, 1000]) {
            assert.deepEqual(await pages(path, filters, size), want, `${path}?${name}=${value} pageSize ${size}`);
          }
        }
        assert.ok(matchedSome, `${path}: some output matches ${name}`);
        assert.ok(leftSomeOut, `${path}: some output does not match ${name}`);
      }
    });
  }

  it("the combined listing holds every kind, in booking order then output ID order", async () => {
    const want = expected(all, "", {}, HRP);
    const kinds = new Set(all.map((o) => o.output.type));
    assert.ok(kinds.size >= 4, "basic, alias, foundry and NFT outputs exist");
    assert.deepEqual(await pages("", {}, 3), want);
  });

  it("unlockableByAddress lists an output once when the address sits in two of its conditions", async () => {
    const carol = addressToBech32(world.addresses.carol!, HRP);
    const items = await pages("", { unlockableByAddress: carol }, 1000);
    assert.equal(new Set(items).size, items.length);
    assert.deepEqual(items, expected(all, "", { unlockableByAddress: carol }, HRP));
  });

  it("answers 400 in the spec's shape for bad parameters of the combined listing", async () => {
    const alice = addressToBech32(world.addresses.alice!, HRP);
    for (const q of [
      `address=${alice}`,
      "unlockableByAddress=tst1xyz",
      `unlockableByAddress=${addressToBech32(world.addresses.alice!, "rms")}`,
      "pageSize=x",
      "cursor=zz.1",
      "createdAfter=10&createdBefore=5",
      "minNativeTokenCount=3&maxNativeTokenCount=1",
    ]) {
      const r = await app.inject(`${V1}?${q}`);
      assert.equal(r.statusCode, 400, q);
      assert.deepEqual(Object.keys(r.json().error).sort(), ["code", "details", "message"]);
      assert.equal(r.json().error.message, "invalid data provided");
    }
  });
});
