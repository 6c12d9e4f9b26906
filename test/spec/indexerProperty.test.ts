import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { FastifyInstance } from "fastify";
import {
  expected,
  type Filters,
  type FilterWorld,
  filterValues,
  type LedgerOutput,
  openFilterWorld,
  ROUTES_OF,
} from "../helpers/filterFixture.js";
import type { TestLedger } from "../helpers/ledgerFixture.js";
import { Rng } from "../helpers/random.js";

/**
 * Random combinations of indexer filters on every listing, paged with random page sizes,
 * compared with a brute-force scan of the ledger. A combination whose range is empty must be
 * refused (400); every other must list exactly the outputs the scan finds, in its order.
 */

const V1 = "/api/indexer/v1/outputs";
const PATHS = ["", "basic", "alias", "foundry", "nft"];
const RANGES: [string, string][] = [
  ["createdAfter", "createdBefore"],
  ["expiresAfter", "expiresBefore"],
  ["timelockedAfter", "timelockedBefore"],
];

function emptyRange(f: Filters): boolean {
  for (const [lo, hi] of RANGES) {
    if (f[lo] !== undefined && f[hi] !== undefined && Number(f[lo]) >= Number(f[hi])) return true;
  }
  const min = f.minNativeTokenCount;
  const max = f.maxNativeTokenCount;
  return min !== undefined && max !== undefined && Number(min) > Number(max);
}

describe("indexer listings equal a brute-force scan for random filter combinations", () => {
  let ledger: TestLedger;
  let app: FastifyInstance;
  let world: FilterWorld;
  let all: LedgerOutput[];

  before(async () => {
    ({ ledger, app, world, all } = await openFilterWorld("indexer-property"));
  });
  after(async () => {
    await app.close();
    await ledger.close();
  });

  it("400 random combinations", async () => {
    const rng = new Rng(0x1d3e);
    let nonEmpty = 0;
    for (let round = 0; round < 400; round++) {
      const path = rng.pick(PATHS);
      const names = Object.keys(ROUTES_OF).filter((n) => ROUTES_OF[n]!.includes(path));
      const filters: Filters = {};
      const count = rng.int(1, 4);
      for (let i = 0; i < count; i++) {
        const name = rng.pick(names);
        filters[name] = rng.pick(filterValues(world, name));
      }
      const pageSize = rng.pick([1, 2, 3, 7, 1000]);
      const url = (extra: Record<string, string>) =>
        `${path ? `${V1}/${path}` : V1}?${new URLSearchParams({ ...filters, ...extra }).toString()}`;
      const label = `${path || "(combined)"} ${JSON.stringify(filters)} pageSize ${pageSize}`;
      let r = await app.inject(url({ pageSize: String(pageSize) }));
      if (emptyRange(filters)) {
        assert.equal(r.statusCode, 400, label);
        continue;
      }
      const items: string[] = [];
      for (;;) {
        assert.equal(r.statusCode, 200, `${label}: ${r.body}`);
        const body = r.json();
        items.push(...body.items);
        if (body.cursor === undefined) break;
        r = await app.inject(url({ cursor: body.cursor }));
      }
      const want = expected(all, path, filters, "tst");
      if (want.length > 0) nonEmpty++;
      assert.deepEqual(items, want, label);
    }
    assert.ok(nonEmpty > 50, `enough combinations match something (${nonEmpty})`);
  });
});
