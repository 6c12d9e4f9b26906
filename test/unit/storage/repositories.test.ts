import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  Bucket,
  defaultKvStoreOptions,
  encodeMilestoneRecord,
  encodeU32,
  idKey,
  indexKey,
  KvStore,
  Repositories,
  StorageErrorCode,
} from "../../../src/storage/index.js";
import { removeDir, tempDir } from "../../helpers/node.js";

/** Typed reads of the buckets: a key in, the decoded record out; a damaged value is the node's failure. */
describe("repositories", () => {
  let dir: string;
  let store: KvStore;
  let db: Repositories;
  before(async () => {
    dir = await tempDir("repo");
    store = await KvStore.open({ ...defaultKvStoreOptions, path: dir });
    db = new Repositories(store);
    const batch = store.batch();
    for (const index of [3, 4, 5]) {
      batch.put(
        indexKey(Bucket.MilestoneByIndex, index),
        encodeMilestoneRecord({
          milestoneId: new Uint8Array(32).fill(index),
          blockId: new Uint8Array(32),
          timestamp: index,
        }),
      );
      batch.put(idKey(Bucket.MilestoneById, new Uint8Array(32).fill(index)), encodeU32(index));
    }
    batch.put(idKey(Bucket.MilestoneById, new Uint8Array(32).fill(9)), Uint8Array.of(1, 2));
    await batch.write();
  });
  after(async () => {
    await store.close();
    await removeDir(dir);
  });

  it("reads records by index and by ID, async, synchronous and many at once", async () => {
    assert.equal((await db.milestones.get(4))?.timestamp, 4);
    assert.equal(db.milestones.getSync(5)?.timestamp, 5);
    assert.equal(await db.milestones.get(6), undefined);
    assert.equal(db.milestoneIndexes.getSync(new Uint8Array(32).fill(3)), 3);
    assert.equal(db.milestoneIndexes.getSync(new Uint8Array(32).fill(4)), 4, "the scratch key is rewritten per read");
    assert.deepEqual(await db.milestoneIndexes.getMany([new Uint8Array(32).fill(5), new Uint8Array(32).fill(6)]), [
      5,
      undefined,
    ]);
    assert.equal(db.milestones.hasSync(3), true);
    assert.equal(await db.milestones.has(2), false);
  });

  it("finds the range of a gapless index bucket, and follows it as it grows", async () => {
    assert.deepEqual(await db.milestones.indexRange(), { first: 3, last: 5 });
    await store.put(
      indexKey(Bucket.MilestoneByIndex, 6),
      encodeMilestoneRecord({ milestoneId: new Uint8Array(32), blockId: new Uint8Array(32), timestamp: 6 }),
    );
    assert.deepEqual(await db.milestones.indexRange(), { first: 3, last: 6 });
  });

  it("turns a stored value that does not decode into a storage error, not a codec (client) error", async () => {
    await assert.rejects(db.milestoneIndexes.get(new Uint8Array(32).fill(9)), {
      code: StorageErrorCode.CorruptValue,
      message: /MilestoneById record of 0x0909.* does not decode/,
    });
  });
});
