import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { defaultKvStoreOptions, KvStore, levelWork, parseLevelStats } from "../../../src/storage/index.js";
import { removeDir, tempDir } from "../../helpers/node.js";

// LevelDB's `leveldb.stats`, as classic-level returns it (db/db_impl.cc, "leveldb.stats")
const STATS = `                               Compactions
Level  Files Size(MB) Time(sec) Read(MB) Write(MB)
--------------------------------------------------
  0        1        4         0        0        10
  1        2        3         1       12        33
  2       14       28         2      142       142
`;

describe("LevelDB's own work (leveldb.stats)", () => {
  it("reads one row per level and sums flushes and compactions", () => {
    const levels = parseLevelStats(STATS);
    assert.deepEqual(
      levels.map((l) => [l.level, l.files, l.seconds]),
      [
        [0, 1, 0],
        [1, 2, 1],
        [2, 14, 2],
      ],
    );
    assert.equal(levels[2]!.sizeBytes, 28 * 1_048_576);
    const work = levelWork(levels);
    assert.equal(work.seconds, 3);
    assert.equal(work.readBytes, 154 * 1_048_576);
    assert.equal(work.writtenBytes, 185 * 1_048_576);
    assert.equal(work.flushedBytes, 10 * 1_048_576, "level 0 is written by flushes");
  });

  it("is empty for a table with no rows, and skips lines that are not rows", () => {
    assert.deepEqual(parseLevelStats("Compactions\nLevel  Files Size(MB) Time(sec) Read(MB) Write(MB)\n---\n"), []);
    assert.deepEqual(parseLevelStats("garbage 1 2\n"), []);
  });

  it("counts the flush of a real store once its memtable fills", async () => {
    const dir = await tempDir("levelstats");
    const store = await KvStore.open({ ...defaultKvStoreOptions, path: dir });
    try {
      assert.equal(levelWork(store.levelStats()).writtenBytes, 0, "nothing flushed on a fresh store");
      // past the 4 MB write buffer: LevelDB flushes the memtable into a level-0 table (or deeper)
      const value = new Uint8Array(1024).map((_, i) => (i * 7919) & 0xff);
      for (let b = 0; b < 8; b++) {
        const batch = store.batch();
        for (let i = 0; i < 1024; i++) batch.put(Uint8Array.of(b, i >> 8, i & 0xff, 1), value);
        await batch.write();
      }
      let work = levelWork(store.levelStats());
      for (let wait = 0; work.writtenBytes === 0 && wait < 100; wait++) {
        await new Promise((r) => setTimeout(r, 20));
        work = levelWork(store.levelStats());
      }
      assert.ok(work.writtenBytes > 0, "a flush is reported");
      assert.ok(store.levelStats().some((l) => l.files > 0));
    } finally {
      await store.close();
      await removeDir(dir);
    }
  });
});
