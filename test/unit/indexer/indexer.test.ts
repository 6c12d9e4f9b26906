import assert from "node:assert/strict";
import { fork } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { serializeAddressBytes } from "../../../src/codec/address.js";
import { toHex } from "../../../src/codec/hex.js";
import { decodeOutput } from "../../../src/codec/outputs/output.js";
import { OutputType } from "../../../src/codec/types.js";
import {
  AddressLedgerLoad,
  allLists,
  decodeOutputFacts,
  type FieldValue,
  INDEXER_STATE_KEY,
  IndexedField,
  Indexer,
  IndexerErrorCode,
  IndexerLoad,
  isIndexerError,
  type OutputQuery,
} from "../../../src/indexer/index.js";
import { GENESIS_OUTPUT_ID } from "../../../src/node/devNetwork.js";
import { importSnapshot, writeFullSnapshot } from "../../../src/snapshot/index.js";
import { Bucket, defaultKvStoreOptions, KvStore } from "../../../src/storage/index.js";
import {
  aliasAddressOf,
  buildHistory,
  FUTURE,
  GENESIS,
  type History,
  TAG,
  TestLedger,
} from "../../helpers/ledgerFixture.js";
import { basic, wallet } from "../../helpers/txBuilder.js";
import { devWallet } from "../../helpers/wallet.js";

const hexes = (ids: Uint8Array[]) => ids.map(toHex);
const addr = (field: IndexedField, a: Parameters<typeof serializeAddressBytes>[0]): FieldValue => ({
  field,
  value: serializeAddressBytes(a),
});

/**
 * What the indexes hold, as hex: every key and value of the per-entry buckets in key order, then
 * every field list's entries (their chunking may differ between a rebuild and step-by-step
 * upkeep; their content may not).
 */
async function dumpIndexes(ledger: TestLedger | KvStore): Promise<string[]> {
  const store = ledger instanceof KvStore ? ledger : ledger.node.store;
  const out: string[] = [];
  for (const bucket of [Bucket.IndexerState, Bucket.IndexerChain, Bucket.IndexerOutput, Bucket.IndexerSort]) {
    for await (const [k, v] of store.scan({ prefix: Uint8Array.of(bucket) })) {
      out.push(`${toHex(k)}=${toHex(v)}`);
    }
  }
  for await (const { list, entries } of allLists(store)) {
    for (const e of entries) out.push(`${toHex(list)}/${toHex(e.position)}=${toHex(e.facts)}`);
  }
  return out;
}

describe("indexer over a real ledger", () => {
  let ledger: TestLedger;
  let indexer: Indexer;
  let h: History;

  before(async () => {
    ledger = await TestLedger.open("indexer");
    indexer = ledger.node.indexer;
    await indexer.catchUp();
  });
  after(async () => {
    await ledger.close();
  });

  it("indexes the genesis output on first start", async () => {
    assert.equal(indexer.isSynced, true);
    const dev = devWallet();
    const page = await indexer.outputs({
      type: OutputType.Basic,
      fields: [addr(IndexedField.Address, dev.address)],
      pageSize: 10,
    });
    assert.deepEqual(hexes(page.items), [toHex(GENESIS_OUTPUT_ID)]);
    assert.equal(page.ledgerIndex, 0);
  });

  it("follows every milestone in its batch: marker, chains and listings", async () => {
    h = await buildHistory(ledger);
    assert.equal(indexer.isSynced, true);
    assert.equal(await ledger.node.db.nodeState.ledgerIndex(), h.msB.index);
    const state = (await ledger.node.store.get(INDEXER_STATE_KEY))!;
    assert.equal(new DataView(state.buffer, state.byteOffset).getUint32(4, true), h.msB.index);

    // the alias moved with its state transition; the destroyed one is gone
    const a = await indexer.chainOutput(OutputType.Alias, h.aliasId);
    assert.equal(toHex(a.outputId!), toHex(h.transition.outputs[0]!.outputId));
    assert.equal(a.ledgerIndex, h.msB.index);
    assert.equal((await indexer.chainOutput(OutputType.Alias, h.destroyedAliasId)).outputId, undefined);
    const n = await indexer.chainOutput(OutputType.Nft, h.nftId);
    assert.equal(toHex(n.outputId!), toHex(h.split.outputs[4]!.outputId));
    const f = await indexer.chainOutput(OutputType.Foundry, h.foundryId);
    assert.equal(toHex(f.outputId!), toHex(h.transition.outputs[1]!.outputId));

    // the genesis output and alice's spent basic output are no longer listed
    const dev = await indexer.outputs({
      type: OutputType.Basic,
      fields: [addr(IndexedField.Address, h.dev.address)],
      pageSize: 10,
    });
    assert.deepEqual(hexes(dev.items), [toHex(h.split.outputs[5]!.outputId)]);
    const alice = await indexer.outputs({
      type: OutputType.Basic,
      fields: [addr(IndexedField.Address, h.alice.address)],
      pageSize: 10,
    });
    assert.deepEqual(hexes(alice.items), hexes([h.split.outputs[1]!.outputId, h.split.outputs[2]!.outputId]));
  });

  it("reads its marker again only once something was written since it last did", async () => {
    const store = ledger.node.store;
    const markerReads = { n: 0 };
    const getSync = store.getSync.bind(store);
    store.getSync = (key: Uint8Array) => {
      if (toHex(key) === toHex(INDEXER_STATE_KEY)) markerReads.n++;
      return getSync(key);
    };
    try {
      const q: OutputQuery = {
        type: OutputType.Basic,
        fields: [addr(IndexedField.Address, h.alice.address)],
        pageSize: 10,
      };
      const first = await indexer.outputs(q);
      const reads = markerReads.n;
      assert.ok(reads <= 1, `${reads} marker reads for one listing with nothing written`);
      // nothing written since: the marker read last still holds, before and after
      assert.deepEqual(await indexer.outputs(q), first);
      assert.equal(markerReads.n, reads);
      // a write, any: the marker is read again, once
      await store.put(Uint8Array.of(0xee), Uint8Array.of(1));
      assert.deepEqual(await indexer.outputs(q), first);
      assert.equal(markerReads.n, reads + 1);
      // a write under way during the read: the marker is read before and after it
      const writing = store.batch().put(Uint8Array.of(0xee), Uint8Array.of(2)).write({ sync: false });
      const during = await indexer.outputs(q);
      await writing;
      assert.deepEqual(during, first);
      assert.equal(markerReads.n, reads + 3);
    } finally {
      store.getSync = getSync;
      await store.batch().del(Uint8Array.of(0xee)).write();
    }
  });

  it("answers inx-indexer's filters from the index entries", async () => {
    const ids = async (q: Omit<OutputQuery, "pageSize">) =>
      hexes((await indexer.outputs({ ...q, pageSize: 100 })).items);
    const o = (i: number) => toHex(h.split.outputs[i]!.outputId);
    const basicAlice = { type: OutputType.Basic, fields: [addr(IndexedField.Address, h.alice.address)] } as const;
    assert.deepEqual(await ids({ ...basicAlice, hasStorageDepositReturn: true }), [o(1)]);
    assert.deepEqual(await ids({ ...basicAlice, hasStorageDepositReturn: false }), [o(2)]);
    assert.deepEqual(await ids({ ...basicAlice, hasExpiration: true, expiresAfter: FUTURE - 1 }), [o(1)]);
    assert.deepEqual(await ids({ ...basicAlice, expiresBefore: FUTURE }), []);
    assert.deepEqual(await ids({ ...basicAlice, hasTimelock: true, timelockedBefore: FUTURE + 101 }), [o(2)]);
    assert.deepEqual(await ids({ ...basicAlice, timelockedAfter: FUTURE + 100 }), []);
    assert.deepEqual(await ids({ ...basicAlice, hasNativeTokens: true }), []);
    assert.deepEqual(await ids({ ...basicAlice, maxNativeTokenCount: 0 }), [o(1), o(2)]);
    // without an owner: the return-address and sender indexes (iota.js's getBalance asks this way)
    assert.deepEqual(
      await ids({ type: OutputType.Basic, fields: [addr(IndexedField.ExpirationReturn, h.dev.address)] }),
      [o(1)],
    );
    assert.deepEqual(
      await ids({ type: OutputType.Basic, fields: [addr(IndexedField.StorageDepositReturn, h.dev.address)] }),
      [o(1)],
    );
    assert.deepEqual(await ids({ type: OutputType.Basic, fields: [addr(IndexedField.Sender, h.dev.address)] }), [o(1)]);
    assert.deepEqual(await ids({ type: OutputType.Basic, fields: [{ field: IndexedField.Tag, value: TAG }] }), [o(1)]);
    assert.deepEqual(await ids({ type: OutputType.Nft, fields: [{ field: IndexedField.Tag, value: TAG }] }), [o(4)]);
    assert.deepEqual(await ids({ type: OutputType.Nft, fields: [addr(IndexedField.Issuer, h.dev.address)] }), [o(4)]);

    const aliasNow = toHex(h.transition.outputs[0]!.outputId);
    assert.deepEqual(
      await ids({ type: OutputType.Alias, fields: [addr(IndexedField.StateController, h.alice.address)] }),
      [aliasNow],
    );
    assert.deepEqual(
      await ids({
        type: OutputType.Alias,
        fields: [addr(IndexedField.Governor, h.bob.address), addr(IndexedField.Issuer, h.dev.address)],
      }),
      [aliasNow],
    );
    assert.deepEqual(
      await ids({ type: OutputType.Alias, fields: [addr(IndexedField.Governor, h.alice.address)] }),
      [],
      "alice is the state controller, not the governor",
    );
    assert.deepEqual(
      await ids({ type: OutputType.Foundry, fields: [addr(IndexedField.ImmutableAlias, aliasAddressOf(h.aliasId))] }),
      [toHex(h.transition.outputs[1]!.outputId)],
    );

    // booking time: milestone A's outputs are created before milestone B's
    const all = await ids({ type: OutputType.Basic });
    assert.equal(all.length, 4, "alice's 1 and 2, dev's remainder, bob's output of the destroyed alias");
    assert.deepEqual(all.slice(-1), [toHex(h.destroy.outputs[0]!.outputId)]);
    assert.deepEqual(await ids({ type: OutputType.Basic, createdAfter: h.msA.timestamp }), all.slice(-1));
    assert.deepEqual(await ids({ type: OutputType.Basic, createdBefore: h.msB.timestamp }), all.slice(0, 3));
    assert.deepEqual(await ids({ type: OutputType.Basic, createdBefore: h.msA.timestamp }), []);
  });

  it("pages in booking order then output ID order, each output exactly once", async () => {
    const all = hexes((await indexer.outputs({ type: OutputType.Basic, pageSize: 1000 })).items);
    for (const pageSize of [1, 2, 3]) {
      const seen: string[] = [];
      let cursor: OutputQuery["cursor"];
      for (let i = 0; i < 10; i++) {
        const page = await indexer.outputs({ type: OutputType.Basic, pageSize, ...(cursor ? { cursor } : {}) });
        assert.ok(page.items.length <= pageSize);
        seen.push(...hexes(page.items));
        if (!page.next) break;
        cursor = page.next;
      }
      assert.deepEqual(seen, all, `page size ${pageSize}`);
    }
  });

  it("stores the facts inx-indexer filters on in every entry", async () => {
    for await (const [, v] of ledger.node.store.scan({ prefix: Uint8Array.of(Bucket.IndexerOutput) })) {
      const facts = decodeOutputFacts(v);
      assert.ok(facts.fields.every((f, i, a) => i === 0 || a[i - 1]!.field <= f.field));
    }
  });

  it("rebuilds the same indexes from the ledger when the marker is missing", async () => {
    const incremental = await dumpIndexes(ledger);
    await ledger.node.store.batch().del(INDEXER_STATE_KEY).write();
    // leave a stale entry behind: the rebuild must remove it
    await ledger.node.store.put(
      Uint8Array.of(Bucket.IndexerChain, 4, ...new Uint8Array(32).fill(9)),
      new Uint8Array(34),
    );
    await ledger.reopen();
    const rebuilt = ledger.node.indexer;
    await rebuilt.catchUp();
    assert.equal(rebuilt.isSynced, true);
    assert.deepEqual(await dumpIndexes(ledger), incremental);
    indexer = rebuilt;
  });

  it("writes the same indexes and address ledger with a snapshot's ledger as it imports it, and the indexer finds them built", async () => {
    const ledgerIndex = ledger.node.tangle.latestMilestone.index;
    const file = join(ledger.dir, "indexed-load.snapshot");
    await writeFullSnapshot(ledger.node.store, ledgerIndex, file);
    const store = await KvStore.open({ ...defaultKvStoreOptions, path: join(ledger.dir, "loaded") });
    try {
      // sorting in runs of 2 entries: merged from their files
      const indexes = new IndexerLoad(store, { sortDir: join(ledger.dir, "load-sort"), sortRunEntries: 2 });
      const addresses = new AddressLedgerLoad(store, join(ledger.dir, "address-sort"));
      const imported = await importSnapshot(store, {
        fullPath: file,
        expectedNetworkName: ledger.node.tangle.protocolParameters.networkName,
        sink: {
          add(batch, o) {
            const output = decodeOutput(o.outputBytes);
            const { outputId, bookedIndex, bookedTimestamp } = o;
            indexes.add(batch, { outputId, output, bookedIndex, bookedTimestamp });
            addresses.add(batch, outputId, output);
          },
        },
      });
      assert.equal(imported.sinkHoldsLedger, true);
      await indexes.finish(imported.ledgerIndex);
      await addresses.finish(imported.ledgerIndex);
      await indexes.close();
      await addresses.close();
      // the very entries the source built milestone by milestone, no sort entry left
      assert.deepEqual(await dumpIndexes(store), await dumpIndexes(ledger));
      const balances = async (from: KvStore) => {
        const out: string[] = [];
        for (const bucket of [Bucket.AddressBalanceState, Bucket.AddressBalance, Bucket.AddressConditional])
          for await (const [k, v] of from.scan({ prefix: Uint8Array.of(bucket) })) out.push(`${toHex(k)}=${toHex(v)}`);
        return out;
      };
      const loadedBalances = await balances(store);
      assert.ok(loadedBalances.length > 3, "balances of several owners");
      assert.deepEqual(loadedBalances, await balances(ledger.node.store));
      assert.equal(existsSync(join(ledger.dir, "load-sort")), false);
      let rebuilt = 0;
      const loaded = new Indexer({ store }, { onRebuildBatch: () => void rebuilt++ });
      await loaded.sync();
      assert.equal(loaded.isSynced, true);
      assert.equal(rebuilt, 0, "built by the load: no rebuild");
      const page = await loaded.outputs({ type: OutputType.Basic, pageSize: 1000 });
      assert.equal(page.ledgerIndex, ledgerIndex);
      assert.ok(page.items.length > 1);
    } finally {
      await store.close();
    }
  });

  it("redoes a rebuild in batches that failed midway, and serves nothing of it meanwhile", async () => {
    const whole = await dumpIndexes(ledger);
    const store = ledger.node.store;
    // a whole rebuild in batches of 5 writes takes several of them
    let batches = 0;
    await store.batch().del(INDEXER_STATE_KEY).write();
    // and sorting its lists in runs of 3 entries, merged from their files
    const counted = new Indexer(
      { store },
      { rebuildBatchWrites: 5, sortRunEntries: 3, onRebuildBatch: (n) => void (batches = n) },
    );
    await counted.sync();
    assert.ok(batches >= 6, `${batches} batches`);
    assert.deepEqual(await dumpIndexes(ledger), whole);

    // the same, failing once three batches are written (some listings; the lists are sorted apart)
    await store.batch().del(INDEXER_STATE_KEY).write();
    const failing = new Indexer(
      { store },
      {
        rebuildBatchWrites: 5,
        onRebuildBatch: (n) => {
          if (n === 3) throw new Error("injected write failure");
        },
      },
    );
    await assert.rejects(failing.sync(), /injected write failure/);
    assert.equal(failing.isSynced, false);
    assert.equal(await store.get(INDEXER_STATE_KEY), undefined, "no marker until the last write");
    let listings = 0;
    for await (const _ of store.scanKeys({ prefix: Uint8Array.of(Bucket.IndexerOutput) })) listings++;
    assert.ok(listings > 0 && listings < whole.length, "the rebuild stopped midway");
    await assert.rejects(failing.outputs({ type: OutputType.Basic, pageSize: 10 }), (e) =>
      isIndexerError(e, IndexerErrorCode.NotReady),
    );

    // the next open redoes it (sorting in the data directory), and leaves no sort file behind
    await ledger.reopen();
    indexer = ledger.node.indexer;
    await indexer.catchUp();
    assert.equal(indexer.isSynced, true);
    assert.deepEqual(await dumpIndexes(ledger), whole);
    assert.equal(existsSync(join(ledger.dir, "index-sort")), false);
  });

  it("redoes a rebuild killed (SIGKILL) in the middle of either pass on the next open", async () => {
    const whole = await dumpIndexes(ledger);
    let batches = 0;
    await ledger.node.store.batch().del(INDEXER_STATE_KEY).write();
    await new Indexer(
      { store: ledger.node.store },
      { rebuildBatchWrites: 5, onRebuildBatch: (n) => void (batches = n) },
    ).sync();
    assert.ok(batches >= 6, `${batches} batches`);
    // in the pass over the outputs, and once the lists are written (before the marker)
    for (const killAt of [2, batches]) {
      await ledger.whileClosed(async () => {
        const path = join(ledger.dir, "db");
        const child = fork(fileURLToPath(new URL("../../helpers/rebuildChild.js", import.meta.url)), [
          path,
          `${killAt}`,
        ]);
        const said = await new Promise((resolve, reject) => {
          child.once("message", resolve);
          child.once("exit", (code) => reject(new Error(`the rebuilding child exited (${code})`)));
        });
        assert.equal(said, "midway");
        const exited = new Promise((resolve) => child.once("exit", (_code, signal) => resolve(signal)));
        child.kill("SIGKILL");
        assert.equal(await exited, "SIGKILL");
        const store = await KvStore.open({ ...defaultKvStoreOptions, path });
        try {
          assert.equal(await store.get(INDEXER_STATE_KEY), undefined, "no marker until the last write");
        } finally {
          await store.close();
        }
      });
      await ledger.node.indexer.catchUp();
      assert.equal(ledger.node.indexer.isSynced, true);
      assert.deepEqual(await dumpIndexes(ledger), whole, `killed after ${killAt} of ${batches} batches`);
      for await (const _ of ledger.node.store.scanKeys({ prefix: Uint8Array.of(Bucket.IndexerSort) }))
        assert.fail("a sort entry left");
    }
    indexer = ledger.node.indexer;
  });

  it("catches up with milestones confirmed while no indexer was attached", async () => {
    await ledger.reopen();
    ledger.node.events.detachIndex(ledger.node.indexer);
    // milestone C: bob spends his output again, with no indexer attached to this node
    const sent = await ledger.send([h.destroy.outputs[0]!], [basic(h.alice.address)], [h.bob]);
    const msC = await ledger.milestone();
    await ledger.assertIncluded(sent);
    const late = new Indexer({ store: ledger.node.store });
    ledger.node.events.attachIndex(late);
    await late.catchUp();
    const page = await late.outputs({
      type: OutputType.Basic,
      fields: [addr(IndexedField.Address, h.alice.address)],
      pageSize: 10,
    });
    assert.equal(page.ledgerIndex, msC.index);
    assert.ok(hexes(page.items).includes(toHex(sent.outputs[0]!.outputId)));
    // and follows the next milestone in its batch again
    await ledger.milestone();
    assert.equal(late.isSynced, true);
    assert.equal((await late.outputs({ type: OutputType.Basic, pageSize: 1 })).ledgerIndex, msC.index + 1);
  });
});

describe("indexer attached while the coordinator is issuing milestones", () => {
  it("ends with the same indexes a rebuild produces, and follows the ledger again", async () => {
    const ledger = await TestLedger.open("indexer-live", { milestoneIntervalMs: 1 });
    try {
      const dev = devWallet();
      const alice = wallet("alice");
      ledger.node.events.detachIndex(ledger.node.indexer);
      ledger.node.start();
      let funds = GENESIS;
      let attaching: Promise<Indexer> | undefined;
      for (let i = 0; i < 8; i++) {
        if (i === 3) {
          const late = new Indexer({ store: ledger.node.store });
          ledger.node.events.attachIndex(late);
          attaching = late.catchUp().then(() => late);
        }
        const amount = funds.output.amount - 1_000_000n;
        const sent = await ledger.send([funds], [basic(alice.address), basic(dev.address, { amount })], [dev]);
        for (let polls = 0; polls < 2000; polls++) {
          if (((await ledger.node.tangle.getMetadata(sent.blockId))?.referencedByMilestoneIndex ?? 0) > 0) break;
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        await ledger.assertIncluded(sent);
        funds = sent.outputs[1]!;
      }
      const indexer = await attaching!;
      await ledger.node.coordinator.stop();
      await indexer.sync();
      assert.equal(indexer.isSynced, true);
      const state = (await ledger.node.store.get(INDEXER_STATE_KEY))!;
      const ledgerIndex = await ledger.node.db.nodeState.ledgerIndex();
      assert.equal(new DataView(state.buffer, state.byteOffset).getUint32(4, true), ledgerIndex);
      const alicePage = await indexer.outputs({
        type: OutputType.Basic,
        fields: [addr(IndexedField.Address, alice.address)],
        pageSize: 100,
      });
      assert.equal(alicePage.items.length, 8);
      assert.equal(alicePage.ledgerIndex, ledgerIndex);

      const live = await dumpIndexes(ledger);
      await ledger.node.store.batch().del(INDEXER_STATE_KEY).write();
      await ledger.reopen();
      await ledger.node.indexer.catchUp();
      assert.deepEqual(await dumpIndexes(ledger), live);
    } finally {
      await ledger.close();
    }
  });

  it("rebuilds before the next milestone's batch when a confirmation slipped past its writer", async () => {
    const ledger = await TestLedger.open("indexer-slip");
    try {
      const dev = devWallet();
      const alice = wallet("alice");
      const indexer = ledger.node.indexer;
      ledger.node.events.detachIndex(indexer);
      const sent = await ledger.send(
        [GENESIS],
        [basic(alice.address), basic(dev.address, { amount: GENESIS.output.amount - 1_000_000n })],
        [dev],
      );
      const slipped = await ledger.milestone();
      await ledger.assertIncluded(sent);
      const stale = await indexer.outputs({ type: OutputType.Basic, pageSize: 10 });
      assert.equal(stale.ledgerIndex, slipped.index - 1, "still consistent with the ledger it names");
      assert.deepEqual(hexes(stale.items), [toHex(GENESIS.outputId)]);

      ledger.node.events.attachIndex(indexer);
      const next = await ledger.milestone();
      assert.equal(indexer.isSynced, true);
      const page = await indexer.outputs({ type: OutputType.Basic, pageSize: 10 });
      assert.equal(page.ledgerIndex, next.index);
      assert.deepEqual(page.items.map(toHex).sort(), hexes(sent.outputs.map((o) => o.outputId)).sort());
    } finally {
      await ledger.close();
    }
  });
});
