import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import Fastify, { type FastifyInstance } from "fastify";
import type { ApiNode } from "../../../src/api/apiNode.js";
import { registerErrorHandling } from "../../../src/api/errors.js";
import { registerExplorerRoutes } from "../../../src/api/routes/explorer.js";
import { toHex } from "../../../src/codec/hex.js";
import {
  Bucket,
  defaultKvStoreOptions,
  encodeMilestoneRecord,
  indexKey,
  KvStore,
  Repositories,
} from "../../../src/storage/index.js";
import { removeDir, tempDir } from "../../helpers/node.js";

/**
 * The milestones listing over 300 stored milestones: every combination of sort, page size and
 * time window pages through exactly the milestones of the window, once each, in order; and a
 * cursor taken with one sort pages backwards with the other.
 */

const COUNT = 300;
const FIRST = 1;
const T0 = 1_700_000_000;
/** Timestamps strictly increase with gaps of 1 to 3 seconds. */
const timestampOf = (index: number) => T0 + index * 2 + (index % 3);
const idOf = (index: number) => toHex(new Uint8Array(32).fill(index % 251).map((b, i) => (i === 0 ? index >> 8 : b)));

interface Page {
  items: { milestoneId: string; index: number }[];
  cursor: string | null;
}

describe("explorer milestones listing over 300 milestones", () => {
  let dir: string;
  let store: KvStore;
  let app: FastifyInstance;

  before(async () => {
    dir = await tempDir("ms300");
    store = await KvStore.open({ ...defaultKvStoreOptions, path: dir, cacheSize: 8 * 1024 * 1024 });
    const batch = store.batch();
    for (let i = FIRST; i < FIRST + COUNT; i++) {
      const milestoneId = new Uint8Array(32).fill(i % 251);
      milestoneId[0] = i >> 8;
      batch.put(
        indexKey(Bucket.MilestoneByIndex, i),
        encodeMilestoneRecord({ milestoneId, blockId: new Uint8Array(32), timestamp: timestampOf(i) }),
      );
    }
    await batch.write();
    app = Fastify({ logger: false });
    registerErrorHandling(app);
    // the listing needs the milestone records and the tangle's milestone IDs (read straight from the records here)
    const db = new Repositories(store);
    const milestoneIdAt = (index: number) => db.milestones.getSync(index)?.milestoneId;
    registerExplorerRoutes(app, { tangle: { milestoneIdAt }, db } as unknown as Pick<ApiNode, "tangle" | "db">);
    await app.ready();
  });
  after(async () => {
    await app.close();
    await store.close();
    await removeDir(dir);
  });

  async function page(query: Record<string, string | number>): Promise<Page> {
    const qs = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]));
    const r = await app.inject(`/api/explorer/v2/milestones?${qs}`);
    assert.equal(r.statusCode, 200, r.body);
    return r.json();
  }

  async function walk(window: Record<string, number>, sort: string, pageSize: number, cursor?: string) {
    const seen: number[] = [];
    const cursors: string[] = [];
    let p = await page({ ...window, sort, pageSize, ...(cursor ? { cursor } : {}) });
    for (let guard = 0; guard <= COUNT + 1; guard++) {
      assert.ok(p.items.length <= pageSize);
      for (const it of p.items) {
        assert.equal(it.milestoneId, idOf(it.index));
        seen.push(it.index);
      }
      if (p.cursor === null) return { seen, cursors };
      assert.equal(p.items.length, pageSize, "only the last page is short");
      assert.match(p.cursor, new RegExp(`^\\d+\\.${pageSize}$`));
      cursors.push(p.cursor);
      p = await page({ ...window, sort, cursor: p.cursor });
    }
    assert.fail("the paging does not end");
  }

  const all = Array.from({ length: COUNT }, (_, i) => FIRST + i);
  const inWindow = (w: Record<string, number>) =>
    all.filter(
      (i) =>
        (w.startTimestamp === undefined || timestampOf(i) >= w.startTimestamp) &&
        (w.endTimestamp === undefined || timestampOf(i) <= w.endTimestamp),
    );
  const windows: Record<string, number>[] = [
    {},
    { startTimestamp: timestampOf(101) },
    { endTimestamp: timestampOf(200) - 1 },
    { startTimestamp: timestampOf(50) + 1, endTimestamp: timestampOf(250) },
    { startTimestamp: timestampOf(120), endTimestamp: timestampOf(120) },
    { startTimestamp: T0 - 100, endTimestamp: T0 - 1 },
    { startTimestamp: timestampOf(COUNT) + 1 },
  ];

  for (const pageSize of [1, 7, 100, 1000]) {
    it(`pages through every window once, both sorts, page size ${pageSize}`, async () => {
      for (const w of windows) {
        const want = inWindow(w);
        const oldest = await walk(w, "oldest", pageSize);
        assert.deepEqual(oldest.seen, want, `oldest ${JSON.stringify(w)}`);
        const newest = await walk(w, "newest", pageSize);
        assert.deepEqual(newest.seen, [...want].reverse(), `newest ${JSON.stringify(w)}`);
        // a cursor of one sort pages backwards with the other, from that milestone (inclusive)
        for (const [walked, other] of [
          [oldest, "newest"],
          [newest, "oldest"],
        ] as const) {
          const picks = [
            walked.cursors[0],
            walked.cursors[Math.floor(walked.cursors.length / 2)],
            walked.cursors.at(-1),
          ];
          for (const c of new Set(picks.filter((x): x is string => x !== undefined))) {
            const at = Number(c.split(".")[0]);
            const back = await walk(w, other, pageSize, c);
            const expect = other === "newest" ? want.filter((i) => i <= at).reverse() : want.filter((i) => i >= at);
            assert.deepEqual(back.seen, expect, `${other} from ${c} ${JSON.stringify(w)}`);
          }
        }
      }
    });
  }
});
