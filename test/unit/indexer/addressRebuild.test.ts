import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { serializeAddressBytes } from "../../../src/codec/address.js";
import { toHex } from "../../../src/codec/hex.js";
import { IndexerErrorCode, isIndexerError, readAddressEntry, readRankings } from "../../../src/indexer/index.js";
import { DEV_TOKEN_SUPPLY } from "../../../src/node/devNetwork.js";
import { Bucket, type KvStore } from "../../../src/storage/index.js";
import { buildHistory, type History, TestLedger } from "../../helpers/ledgerFixture.js";
import { alice, basic, bob } from "../../helpers/txBuilder.js";

/** The address ledger's buckets as hex, marker first, in key order. */
async function dumpAddressLedger(store: KvStore): Promise<string[]> {
  const out: string[] = [];
  for (const bucket of [Bucket.AddressBalanceState, Bucket.AddressBalance, Bucket.AddressConditional])
    for await (const [k, v] of store.scan({ prefix: Uint8Array.of(bucket) })) out.push(`${toHex(k)}=${toHex(v)}`);
  return out;
}

/** What a lagging address ledger looks like: no marker (another layout version reads alike), a stale balance. */
async function loseMarker(store: KvStore): Promise<void> {
  await store.batch().del(Uint8Array.of(Bucket.AddressBalanceState)).write();
  await store.put(Uint8Array.of(Bucket.AddressBalance, 0, ...new Uint8Array(32).fill(7)), new Uint8Array(16));
}

describe("address ledger rebuilt in bounded memory when it lags", () => {
  let ledger: TestLedger;
  let h: History;

  before(async () => {
    ledger = await TestLedger.open("address-rebuild");
    h = await buildHistory(ledger);
  });
  after(async () => {
    await ledger.close();
  });

  it("answers NotReady while it lags, not a scan of the ledger per request", async () => {
    const store = ledger.node.store;
    const built = await dumpAddressLedger(store);
    assert.ok(built.length > 4, "balances and time-bound entries of several owners");
    await loseMarker(store);
    for (const read of [
      () => readAddressEntry(ledger.node.db, serializeAddressBytes(alice.address)),
      () => readRankings(ledger.node.db),
    ]) {
      await assert.rejects(read(), (e) => isIndexerError(e, IndexerErrorCode.NotReady));
    }
  });

  it("is rebuilt at start to the very entries kept milestone by milestone, with no sort file left", async () => {
    const store = ledger.node.store;
    await store
      .batch()
      .del(Uint8Array.of(Bucket.AddressBalance, 0, ...new Uint8Array(32).fill(7)))
      .write();
    const kept = await dumpAddressLedger(store);
    await loseMarker(store);
    await ledger.reopen();
    const rebuilt = await dumpAddressLedger(ledger.node.store);
    // the marker (first) was deleted by loseMarker: compare the entries, then the marker itself
    assert.deepEqual(rebuilt.slice(1), kept);
    assert.match(rebuilt[0]!, new RegExp(`^${toHex(Uint8Array.of(Bucket.AddressBalanceState))}`));
    assert.equal(existsSync(join(ledger.dir, "address-sort")), false);
    const entry = await readAddressEntry(ledger.node.db, serializeAddressBytes(alice.address));
    assert.equal(entry.ledgerIndex, ledger.node.tangle.latestMilestone.index);
    assert.ok(entry.value.total > 0n);
  });

  it("is rebuilt before a milestone's batch when the milestone finds it lagging, then follows it", async () => {
    const store = ledger.node.store;
    await loseMarker(store);
    // the dev key's remainder of the history's first transaction pays bob
    const remainder = h.split.outputs[5]!;
    const sent = await ledger.send(
      [remainder],
      [basic(bob.address, { amount: 2_000_000n }), basic(h.dev.address, { amount: DEV_TOKEN_SUPPLY - 8_000_000n })],
      [h.dev],
    );
    const ms = await ledger.milestone();
    await ledger.assertIncluded(sent);
    const bobEntry = await readAddressEntry(ledger.node.db, serializeAddressBytes(bob.address));
    assert.equal(bobEntry.ledgerIndex, ms.index);
    const followed = await dumpAddressLedger(ledger.node.store);
    // the same as a rebuild from scratch at this milestone
    await loseMarker(ledger.node.store);
    await ledger.reopen();
    assert.deepEqual(await dumpAddressLedger(ledger.node.store), followed);
  });
});
