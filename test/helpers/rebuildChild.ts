/**
 * A process of its own that rebuilds the indexes of the LevelDB at argv[2] in batches of 5
 * writes and, once argv[3] of them are written, tells its parent ("midway") and waits, to be
 * killed with SIGKILL in the middle of the rebuild (test/unit/indexer/indexer.test.ts).
 */
import { dirname, join } from "node:path";
import { Indexer } from "../../src/indexer/index.js";
import { defaultKvStoreOptions, INDEXER_STATE_KEY, KvStore } from "../../src/storage/index.js";

const store = await KvStore.open({ ...defaultKvStoreOptions, path: process.argv[2]! });
const killAt = Number(process.argv[3]);
// a marker that names no ledger makes the indexer rebuild
await store.batch().del(INDEXER_STATE_KEY).write();
await new Indexer(
  { store },
  {
    // in the node's data directory, as the node sorts (a kill leaves its files there)
    sortDir: join(dirname(process.argv[2]!), "index-sort"),
    rebuildBatchWrites: 5,
    onRebuildBatch: async (n) => {
      if (n < killAt) return;
      process.send!("midway");
      await new Promise(() => {});
    },
  },
).sync();
process.send!("finished");
