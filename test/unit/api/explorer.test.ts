import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import Fastify, { type FastifyInstance } from "fastify";
import { registerErrorHandling } from "../../../src/api/errors.js";
import { parseMilestonesQuery, registerExplorerRoutes } from "../../../src/api/routes/explorer.js";
import { toHex } from "../../../src/codec/hex.js";
import type { MilestoneInfo } from "../../../src/tangle/tangle.js";
import { TestLedger } from "../../helpers/ledgerFixture.js";

interface Page {
  items: { milestoneId: string; index: number }[];
  cursor: string | null;
}

type Sort = "newest" | "oldest";

describe("GET /api/explorer/v2/milestones", () => {
  let ledger: TestLedger;
  let app: FastifyInstance;
  const milestones: MilestoneInfo[] = [];

  const page = async (query: Record<string, string | number>): Promise<Page> => {
    const qs = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString();
    const r = await app.inject({ method: "GET", url: `/api/explorer/v2/milestones${qs ? `?${qs}` : ""}` });
    assert.equal(r.statusCode, 200, r.body);
    return r.json();
  };
  const item = (m: MilestoneInfo) => ({ milestoneId: toHex(m.milestoneId), index: m.index });

  /** Follows cursors from `first` with `sort` until the last page; returns every item in order. */
  async function walk(window: Record<string, number>, sort: Sort, pageSize: number, cursor?: string) {
    const seen: Page["items"] = [];
    let p = await page({ ...window, sort, pageSize, ...(cursor ? { cursor } : {}) });
    const cursors: string[] = [];
    for (let guard = 0; guard < 100; guard++) {
      assert.ok(p.items.length <= pageSize);
      seen.push(...p.items);
      if (p.cursor === null) return { seen, cursors };
      assert.match(p.cursor, new RegExp(`^\\d+\\.${pageSize}$`));
      cursors.push(p.cursor);
      // the cursor's page size wins over a different pageSize
      p = await page({ ...window, sort, pageSize: 3, cursor: p.cursor });
    }
    throw new Error("no last page");
  }

  before(async () => {
    ledger = await TestLedger.open("explorer");
    for (let i = 0; i < 36; i++) milestones.push(await ledger.milestone());
    ({ app } = await ledger.serve());
  });
  after(async () => {
    await ledger.close();
  });

  it("pages forwards and backwards through every sort, page size and time window", async () => {
    const ts = milestones.map((m) => m.timestamp);
    const first = ts[0]!;
    const last = ts.at(-1)!;
    const windows: Record<string, number>[] = [
      {},
      { startTimestamp: ts[5]! },
      { endTimestamp: ts[20]! },
      { startTimestamp: ts[3]!, endTimestamp: ts[29]! },
      { startTimestamp: ts[10]!, endTimestamp: ts[10]! },
      { startTimestamp: first - 1000, endTimestamp: last + 1000 },
      { startTimestamp: last + 1 },
      { endTimestamp: first - 1 },
    ];
    for (const window of windows) {
      const inWindow = milestones
        .filter((m) => (window.startTimestamp ?? 0) <= m.timestamp && m.timestamp <= (window.endTimestamp ?? Infinity))
        .map(item);
      for (const sort of ["newest", "oldest"] as const) {
        const expected = sort === "oldest" ? inWindow : [...inWindow].reverse();
        for (const pageSize of [1, 7, 100]) {
          const what = `${JSON.stringify(window)} ${sort} ${pageSize}`;
          const { seen, cursors } = await walk(window, sort, pageSize);
          assert.deepEqual(seen, expected, what);
          assert.equal(new Set(seen.map((s) => s.index)).size, seen.length, `${what}: duplicates`);
          assert.equal(cursors.length, Math.max(0, Math.ceil(expected.length / pageSize) - 1), what);

          // backwards: the middle cursor with the other sort walks back to the window's start
          if (cursors.length === 0) continue;
          const middle = cursors[Math.floor(cursors.length / 2)]!;
          const from = Number(middle.split(".")[0]);
          const back = await walk(window, sort === "newest" ? "oldest" : "newest", pageSize, middle);
          const at = expected.findIndex((m) => m.index === from);
          assert.deepEqual(back.seen, expected.slice(0, at + 1).reverse(), `${what}: backwards from ${middle}`);
        }
      }
    }
  });

  it("defaults to newest first, 100 per page, and answers cursor null on the last page", async () => {
    const p = await page({});
    assert.deepEqual(p.items, milestones.map(item).reverse());
    assert.equal(p.cursor, null);
    assert.deepEqual(Object.keys(p).sort(), ["cursor", "items"]);
    assert.equal(parseMilestonesQuery({}).pageSize, 100);
    assert.equal(parseMilestonesQuery({ pageSize: "5000" }).pageSize, 1000);
    assert.equal(parseMilestonesQuery({ pageSize: "5", cursor: "3.5000" }).pageSize, 1000);
  });

  it("answers 404 for a cursor naming a milestone that does not exist", async () => {
    for (const cursor of [`${milestones.at(-1)!.index + 1}.10`, "0.10"]) {
      const r = await app.inject({ method: "GET", url: `/api/explorer/v2/milestones?cursor=${cursor}` });
      assert.equal(r.statusCode, 404, cursor);
      assert.equal(r.json().error.message, "could not find data");
    }
  });

  it("answers 400 for bad numbers, an end before the start, malformed cursors and unknown parameters", async () => {
    const t = milestones[4]!.timestamp;
    for (const q of [
      "startTimestamp=abc",
      "endTimestamp=-5",
      "pageSize=1.5",
      "pageSize=0",
      "pageSize=",
      `startTimestamp=${t}&endTimestamp=${t - 1}`,
      "cursor=12",
      "cursor=a.5",
      "cursor=3.",
      "cursor=3.0",
      "cursor=99999999999.5",
      "sort=up",
      "page_size=10",
      "sort=newest&sort=oldest",
    ]) {
      const r = await app.inject({ method: "GET", url: `/api/explorer/v2/milestones?${q}` });
      assert.equal(r.statusCode, 400, `${q}: ${r.body}`);
      assert.equal(r.json().error.code, 400);
    }
  });

  it("registers on a separate fastify instance as well", async () => {
    const explorer = Fastify({ logger: false });
    registerErrorHandling(explorer);
    registerExplorerRoutes(explorer, ledger.node);
    const r = await explorer.inject({ method: "GET", url: "/api/explorer/v2/milestones?sort=oldest&pageSize=2" });
    assert.equal(r.statusCode, 200);
    assert.deepEqual(r.json(), { items: milestones.slice(0, 2).map(item), cursor: `${milestones[2]!.index}.2` });
    assert.equal((await explorer.inject({ method: "GET", url: "/api/explorer/v2/milestones?x=1" })).statusCode, 400);
    await explorer.close();
  });
});
