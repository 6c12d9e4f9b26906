import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { isCodecError } from "../../../src/codec/errors.js";
import {
  Bucket,
  childKey,
  decodeBlockMetadata,
  decodeLedgerDiff,
  decodeOutputRecord,
  defaultKvStoreOptions,
  encodeBlockMetadata,
  encodeLedgerDiff,
  encodeOutputRecord,
  idKey,
  indexKey,
  indexOfKey,
  KvStore,
  prefixEnd,
  putChildLinks,
  StorageErrorCode,
  spentOutputRecord,
} from "../../../src/storage/index.js";
import { removeDir, tempDir } from "../../helpers/node.js";

describe("KvStore over LevelDB", () => {
  let dir: string;
  let store: KvStore;
  before(async () => {
    dir = await tempDir("kv");
    store = await KvStore.open({ ...defaultKvStoreOptions, path: dir });
  });
  after(async () => {
    await store.close();
    await removeDir(dir);
  });

  it("counts the writes begun, and tells none from one under way (quietWrites)", async () => {
    const start = store.quietWrites();
    assert.notEqual(start, undefined);
    const batch = store.batch().put(Uint8Array.of(0xee, 1), Uint8Array.of(1));
    const writing = batch.write({ sync: false });
    assert.equal(store.quietWrites(), undefined, "a batch under way");
    await writing;
    assert.equal(store.quietWrites(), start! + 1);
    const putting = store.put(Uint8Array.of(0xee, 2), Uint8Array.of(2));
    assert.equal(store.quietWrites(), undefined, "a put under way");
    await putting;
    const clearing = store.clearRange({ prefix: Uint8Array.of(0xee) });
    assert.equal(store.quietWrites(), undefined, "a range delete under way");
    await clearing;
    assert.equal(store.quietWrites(), start! + 3);
    assert.equal(store.getSync(Uint8Array.of(0xee, 1)), undefined);
  });

  it("scans milestone-index keys in numeric order, forwards and backwards, within bounds", async () => {
    const batch = store.batch();
    for (const i of [1, 2, 255, 256, 65536, 70000])
      batch.put(indexKey(Bucket.MilestoneByIndex, i), Uint8Array.of(i & 0xff));
    batch.put(indexKey(Bucket.LedgerDiff, 3), Uint8Array.of(0)); // another bucket must not leak in
    await batch.write();
    const forward: number[] = [];
    for await (const k of store.scanKeys({ prefix: Uint8Array.of(Bucket.MilestoneByIndex) }))
      forward.push(indexOfKey(k));
    assert.deepEqual(forward, [1, 2, 255, 256, 65536, 70000]);
    const backward: number[] = [];
    for await (const [k] of store.scan({
      prefix: Uint8Array.of(Bucket.MilestoneByIndex),
      lte: indexKey(Bucket.MilestoneByIndex, 65536),
      reverse: true,
      limit: 3,
    })) {
      backward.push(indexOfKey(k));
    }
    assert.deepEqual(backward, [65536, 256, 255]);
  });

  it("applies a batch atomically and reads it back after reopening", async () => {
    const parent = new Uint8Array(32).fill(1);
    const batch = store.batch();
    for (let i = 0; i < 10; i++) batch.put(childKey(parent, new Uint8Array(32).fill(i)), new Uint8Array());
    batch.del(childKey(parent, new Uint8Array(32).fill(3)));
    await batch.write();
    await store.close();
    store = await KvStore.open({ ...defaultKvStoreOptions, path: dir });
    let n = 0;
    for await (const _ of store.scanKeys({ prefix: idKey(Bucket.Child, parent) })) n++;
    assert.equal(n, 9);
  });

  it("writes a block's child links through one scratch key, each as a whole key", async () => {
    const child = new Uint8Array(32).fill(0xcc);
    const parents = [0x41, 0x42, 0x43].map((i) => new Uint8Array(32).fill(i));
    const batch = store.batch();
    putChildLinks(batch, parents, child);
    await batch.write();
    for (const p of parents) {
      const found: Uint8Array[] = [];
      for await (const k of store.scanKeys({ prefix: idKey(Bucket.Child, p) })) found.push(k);
      assert.deepEqual(found, [Uint8Array.of(Bucket.Child, ...p, ...child)]);
    }
  });

  it("refuses a second open of the same directory with a typed error", async () => {
    await assert.rejects(KvStore.open({ ...defaultKvStoreOptions, path: dir }), { code: StorageErrorCode.OpenFailed });
  });

  it("computes prefix ends, including carries and the all-0xff prefix", () => {
    assert.deepEqual(prefixEnd(Uint8Array.of(1, 2)), Uint8Array.of(1, 3));
    assert.deepEqual(prefixEnd(Uint8Array.of(1, 0xff)), Uint8Array.of(2));
    assert.equal(prefixEnd(Uint8Array.of(0xff, 0xff)), undefined);
  });
});

describe("records", () => {
  it("round-trip block metadata, output records and ledger diffs", () => {
    const meta = {
      solid: true,
      milestone: false,
      referencedByMilestoneIndex: 7,
      whiteFlagIndex: 3,
      inclusionState: 2 as const,
      conflictReason: 5,
      arrivalTime: 1_700_000_000,
    };
    assert.deepEqual(decodeBlockMetadata(encodeBlockMetadata(meta)), meta);
    const rec = {
      blockId: new Uint8Array(32).fill(9),
      bookedIndex: 5,
      bookedTimestamp: 6,
      proof: Uint8Array.of(7, 7),
      outputBytes: Uint8Array.of(3, 1, 2),
    };
    const unspent = encodeOutputRecord(rec);
    assert.deepEqual(decodeOutputRecord(unspent), rec);
    // spending fills the spent part in and keeps the rest; a spent record is not spent again
    const spent = { transactionId: new Uint8Array(32).fill(4), spentIndex: 8, spentTimestamp: 9 };
    const spentRecord = spentOutputRecord(unspent, spent);
    assert.deepEqual(decodeOutputRecord(spentRecord), { ...rec, spent });
    assert.deepEqual(spentRecord, encodeOutputRecord({ ...rec, spent }));
    assert.throws(
      () => spentOutputRecord(spentRecord, spent),
      (e) => isCodecError(e),
    );
    assert.throws(
      () => decodeOutputRecord(unspent.subarray(0, 44)),
      (e) => isCodecError(e),
    );
    const diff = {
      created: [new Uint8Array(34).fill(1)],
      consumed: [new Uint8Array(34).fill(2), new Uint8Array(34).fill(3)],
    };
    assert.deepEqual(decodeLedgerDiff(encodeLedgerDiff(diff)), diff);
    assert.throws(() => decodeLedgerDiff(encodeLedgerDiff(diff).subarray(1)));
  });
});
