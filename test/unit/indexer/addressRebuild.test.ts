import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { buildServer } from "../../../src/api/server.js";
import { addressToBech32, serializeAddressBytes } from "../../../src/codec/address.js";
import { toHex } from "../../../src/codec/hex.js";
import { decodeOutput } from "../../../src/codec/outputs/output.js";
import { OutputType, UnlockConditionType } from "../../../src/codec/types.js";
import {
  IndexerErrorCode,
  isIndexerError,
  ownerAddress,
  readAddressEntry,
  readRankings,
  unspentRecords,
} from "../../../src/indexer/index.js";
import { DEV_TOKEN_SUPPLY } from "../../../src/node/devNetwork.js";
import { Bucket, encodeIndexState, type KvStore } from "../../../src/storage/index.js";
import { buildHistory, FUTURE, type History, TestLedger } from "../../helpers/ledgerFixture.js";
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

/**
 * Puts the address ledger back in the layout of version 1, as that version wrote it for the ledger
 * the node holds: AddressConditional `owner[33] ‖ outputId[34]` → amount u64 ‖ timelock u32 ‖
 * expiration u32 for each owned unspent output with a timelock or an expiration (no storage
 * deposit returns, no expiration return entries), and the marker of version 1 at the ledger index.
 */
async function writeVersion1(ledger: TestLedger): Promise<void> {
  const store = ledger.node.store;
  await store.clearRange({ prefix: Uint8Array.of(Bucket.AddressConditional) });
  const batch = store.batch();
  for await (const { outputId, record } of unspentRecords(ledger.node.db)) {
    const output = decodeOutput(record.outputBytes);
    const owner = ownerAddress(output);
    if (!owner || output.type === OutputType.Treasury) continue;
    let timelock = 0;
    let expiration = 0;
    for (const uc of output.unlockConditions) {
      if (uc.type === UnlockConditionType.Timelock) timelock = uc.unixTime;
      if (uc.type === UnlockConditionType.Expiration) expiration = uc.unixTime;
    }
    if (!timelock && !expiration) continue;
    const value = Buffer.alloc(16);
    value.writeBigUInt64LE(output.amount, 0);
    value.writeUInt32LE(timelock, 8);
    value.writeUInt32LE(expiration, 12);
    batch.put(Uint8Array.of(Bucket.AddressConditional, ...serializeAddressBytes(owner), ...outputId), value);
  }
  const ledgerIndex = await ledger.node.db.nodeState.ledgerIndex();
  batch.put(Uint8Array.of(Bucket.AddressBalanceState), encodeIndexState({ version: 1, ledgerIndex }));
  await batch.write({ sync: true });
}

describe("address ledger of a database written by version 1", () => {
  let ledger: TestLedger;
  let h: History;

  before(async () => {
    ledger = await TestLedger.open("address-v1");
    h = await buildHistory(ledger);
  });
  after(async () => {
    await ledger.close();
  });

  /** Each history wallet's explorer balance and rank balance, through the routes. */
  async function figures(): Promise<Record<string, { total: bigint; available: bigint; ranked: bigint }>> {
    const app = buildServer(ledger.node, "silent");
    try {
      const hrp = ledger.node.tangle.protocolParameters.bech32Hrp;
      const richest = await app.inject("/api/explorer/v2/ledger/richest-addresses?top=1000");
      assert.equal(richest.statusCode, 200, richest.body);
      const out: Record<string, { total: bigint; available: bigint; ranked: bigint }> = {};
      for (const [name, w] of Object.entries({ alice: h.alice, bob: h.bob, dev: h.dev })) {
        const bech32 = addressToBech32(w.address, hrp);
        const r = await app.inject(`/api/explorer/v2/balance/${bech32}`);
        assert.equal(r.statusCode, 200, r.body);
        const row = richest.json().top.find((t: { address: string }) => t.address === bech32);
        out[name] = {
          total: BigInt(r.json().totalBalance),
          available: BigInt(r.json().availableBalance),
          ranked: BigInt(row?.balance ?? 0),
        };
      }
      return out;
    } finally {
      await app.close();
    }
  }

  /** Writes the ledger as version 1 did, restarts, and checks the rebuild against what the milestones wrote. */
  async function assertRebuiltFromVersion1(): Promise<void> {
    const live = { entries: await dumpAddressLedger(ledger.node.store), figures: await figures() };
    await writeVersion1(ledger);
    assert.notDeepEqual(await dumpAddressLedger(ledger.node.store), live.entries, "another layout on disk");
    await ledger.reopen();
    assert.deepEqual(
      { entries: await dumpAddressLedger(ledger.node.store), figures: await figures() },
      live,
      "the rebuild writes what the milestones wrote",
    );
  }

  it("is rebuilt at start to the entries and figures the milestones write, before and after an expiry", async () => {
    // alice's output 1 owes the dev key a deposit of 100,000 and expires to it at FUTURE; her
    // output 2 is timelocked until FUTURE + 100
    const before = await figures();
    assert.equal(before.alice!.total, before.alice!.ranked - 100_000n);
    assert.equal(before.alice!.available, before.alice!.total - 1_000_000n);
    assert.deepEqual([before.dev!.total, before.dev!.available], [before.dev!.ranked, before.dev!.ranked]);
    await assertRebuiltFromVersion1();

    // past FUTURE + 100: output 1 is the dev key's in full (its deposit returns to the dev key itself)
    const batch = ledger.node.store.batch();
    ledger.node.clock.setOffset(ledger.node.db, batch, FUTURE + 200 - Math.floor(Date.now() / 1000));
    await batch.write({ sync: true });
    const ms = await ledger.milestone();
    assert.ok(ms.timestamp > FUTURE + 100);
    const expired = await figures();
    assert.deepEqual(expired.alice, {
      total: before.alice!.ranked - 1_000_000n,
      available: before.alice!.ranked - 1_000_000n,
      ranked: before.alice!.ranked,
    });
    assert.deepEqual(expired.dev, {
      total: before.dev!.ranked + 1_000_000n,
      available: before.dev!.ranked + 1_000_000n,
      ranked: before.dev!.ranked,
    });
    await assertRebuiltFromVersion1();
  });
});
