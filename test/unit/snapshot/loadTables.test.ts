import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { OutputType } from "../../../src/codec/types.js";
import { levelWork } from "../../../src/storage/index.js";
import { generateSnapshot } from "../../helpers/generatedSnapshot.js";
import { openNode, removeDir, tempDir } from "../../helpers/node.js";

/**
 * A node started from a full snapshot writes each bucket's keys in key order, in batches of
 * their own (storage/kvStore.ts, BULK_BATCH_BYTES): the Output records, the Unspent markers and
 * the listings as the file streams, then the field lists' chunks and directories and the
 * balances from their sorts. LevelDB then writes each memtable to a table no other overlaps and
 * merges none of them: at 10,000,000 outputs, batches that mixed the buckets had its compactions
 * rewrite the database about three times over (docs/performance.md, "Loading a large ledger").
 */

const OUTPUTS = 120_000;

describe("the tables of a snapshot load", () => {
  let dir: string;
  let file: string;

  before(async () => {
    dir = await tempDir("load-tables");
    file = join(dir, "full.bin");
    await generateSnapshot(dir, OUTPUTS, file);
  });

  after(() => removeDir(dir));

  it(`are written once: LevelDB merges nothing while ${OUTPUTS.toLocaleString("en-US")} outputs load`, async () => {
    const node = await openNode(join(dir, "loaded"), { snapshot: file, faucet: false, p2pPort: 0 });
    try {
      const levels = node.store.levelStats();
      const work = levelWork(levels);
      const seen = JSON.stringify(levels);
      // some 30 MB of records, markers, listings and lists, 18 MB of tables once compressed
      assert.ok(work.writtenBytes >= 12 * 1024 * 1024, `tables written: ${seen}`);
      assert.equal(work.readBytes, 0, `no compaction read a table: ${seen}`);
      const page = await node.indexer.outputs({ type: OutputType.Basic, pageSize: 1000 });
      assert.equal(page.items.length, 1000);
    } finally {
      await node.close();
    }
  });
});
