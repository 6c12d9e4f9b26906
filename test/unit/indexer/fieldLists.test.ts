import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { compareBytes, toHex } from "../../../src/codec/hex.js";
import { IndexerErrorCode, isIndexerError } from "../../../src/indexer/errors.js";
import {
  addListWrites,
  addWholeList,
  allLists,
  CHUNK_ENTRIES,
  decodeChunk,
  type ListEntry,
  ListReader,
  POSITION_LENGTH,
} from "../../../src/indexer/index.js";
import { Bucket, defaultKvStoreOptions, KvStore } from "../../../src/storage/index.js";
import { removeDir, tempDir } from "../../helpers/node.js";

/**
 * The chunked field lists against a model (a sorted map per list), over many milestones of
 * random puts and deletes: appends at the end (new bookings), deletes anywhere (spends), puts
 * before the first entry, chunks splitting past CHUNK_ENTRIES and emptying; reads from random
 * starting positions; and a list written whole reads the same as one built step by step.
 */

let seed = 42;
const rand = (n: number) => {
  seed = (seed * 1103515245 + 12345) >>> 0;
  return (seed >>> 8) % n;
};

const position = (createdAt: number, n: number): Uint8Array<ArrayBufferLike> => {
  const p = new Uint8Array(POSITION_LENGTH);
  new DataView(p.buffer).setUint32(0, createdAt, false);
  new DataView(p.buffer).setUint32(POSITION_LENGTH - 4, n, false);
  return p;
};
const entry = (p: Uint8Array): ListEntry => ({ position: p, facts: Uint8Array.of(p[3]!, p[POSITION_LENGTH - 1]!, 7) });
const listOf = (i: number) => Uint8Array.of(3, 0, 2, 0xaa, i);

describe("chunked field lists", () => {
  let dir: string;
  let store: KvStore;
  before(async () => {
    dir = await tempDir("lists");
    store = await KvStore.open({ ...defaultKvStoreOptions, path: dir, cacheSize: 8 * 1024 * 1024 });
  });
  after(async () => {
    await store.close();
    await removeDir(dir);
  });

  const read = (list: Uint8Array, from: Uint8Array = new Uint8Array(POSITION_LENGTH)) => {
    const reader = new ListReader(store, list, from);
    const out: string[] = [];
    for (let e = reader.next(); e; e = reader.next()) out.push(`${toHex(e.position)}:${toHex(e.facts)}`);
    return out;
  };
  const modelRead = (model: Map<string, ListEntry>, from: Uint8Array = new Uint8Array(POSITION_LENGTH)) =>
    [...model.values()]
      .filter((e) => compareBytes(e.position, from) >= 0)
      .sort((a, b) => compareBytes(a.position, b.position))
      .map((e) => `${toHex(e.position)}:${toHex(e.facts)}`);

  it("follows a model over 300 milestones of random puts and deletes on five lists", async () => {
    const models = Array.from({ length: 5 }, () => new Map<string, ListEntry>());
    let serial = 0;
    for (let ms = 1; ms <= 300; ms++) {
      const changes = models.map((model, i) => {
        const puts: ListEntry[] = [];
        const dels: Uint8Array[] = [];
        const live = [...model.values()];
        // spends anywhere in the list
        for (let k = rand(i === 0 ? 40 : 6); k > 0 && live.length > 0; k--) {
          const victim = live.splice(rand(live.length), 1)[0]!;
          dels.push(victim.position);
          model.delete(toHex(victim.position));
        }
        // new bookings at this milestone's time; now and then one booked earlier than all
        for (let k = rand(i === 0 ? 60 : 8); k > 0; k--) {
          const e = entry(position(rand(10) === 0 ? rand(ms) : 1000 + ms, serial++));
          puts.push(e);
          model.set(toHex(e.position), e);
        }
        return { list: listOf(i), puts, dels };
      });
      const batch = store.batch();
      addListWrites(store, batch, changes);
      await batch.write();
      if (ms % 50 === 0 || ms === 300) {
        models.forEach((model, i) => {
          assert.deepEqual(read(listOf(i)), modelRead(model), `list ${i} after milestone ${ms}`);
          const from = position(1000 + rand(ms), rand(serial));
          assert.deepEqual(read(listOf(i), from), modelRead(model, from), `list ${i} from a position`);
        });
      }
    }
    assert.ok(models[0]!.size > 3 * CHUNK_ENTRIES, "the busy list spans several chunks");
    // no chunk is ever above the limit, and none is left empty
    for await (const [key, value] of store.scan({ prefix: Uint8Array.of(Bucket.IndexerField) })) {
      const n = decodeChunk(value).length;
      assert.ok(n >= 1 && n <= CHUNK_ENTRIES, `chunk ${toHex(key)} holds ${n}`);
    }
    // a list emptied completely leaves nothing behind
    const last = models[4]!;
    const batch = store.batch();
    addListWrites(store, batch, [{ list: listOf(4), puts: [], dels: [...last.values()].map((e) => e.position) }]);
    await batch.write();
    assert.deepEqual(read(listOf(4)), []);
    const left: string[] = [];
    for await (const { list } of allLists(store)) left.push(toHex(list));
    assert.equal(left.includes(toHex(listOf(4))), false);
  });

  it("tells a reader when a milestone removed a chunk its directory named", async () => {
    const list = Uint8Array.of(5, 3, 1, 0xdd);
    const entries = Array.from({ length: 2 * CHUNK_ENTRIES }, (_, i) => entry(position(7000, i)));
    const batch = store.batch();
    addWholeList(batch, list, entries);
    await batch.write();
    const reader = new ListReader(store, list, new Uint8Array(POSITION_LENGTH));
    for (let i = 0; i < CHUNK_ENTRIES; i++) assert.ok(reader.next());
    // the second chunk empties before the reader gets there
    const spend = store.batch();
    addListWrites(store, spend, [{ list, puts: [], dels: entries.slice(CHUNK_ENTRIES).map((e) => e.position) }]);
    await spend.write();
    assert.throws(
      () => reader.next(),
      (e) => isIndexerError(e, IndexerErrorCode.ListMoved),
    );
  });

  it("reads a list written whole like one built step by step", async () => {
    const entries = Array.from({ length: 3 * CHUNK_ENTRIES + 5 }, (_, i) => entry(position(5000 + (i >> 2), i)));
    const whole = Uint8Array.of(5, 3, 1, 0xbb);
    const steps = Uint8Array.of(5, 3, 1, 0xcc);
    const batch = store.batch();
    addWholeList(batch, whole, entries);
    await batch.write();
    for (let at = 0; at < entries.length; at += 37) {
      const b = store.batch();
      addListWrites(store, b, [{ list: steps, puts: entries.slice(at, at + 37), dels: [] }]);
      await b.write();
    }
    assert.deepEqual(read(whole), read(steps));
    assert.equal(read(whole).length, entries.length);
  });
});
