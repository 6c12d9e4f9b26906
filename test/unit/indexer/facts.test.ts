import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { serializeAddressBytes } from "../../../src/codec/address.js";
import { toHex } from "../../../src/codec/hex.js";
import { aliasIdFromOutputId, computeFoundryId, nftIdFromOutputId, outputIdFromParts } from "../../../src/codec/ids.js";
import { FeatureType, OutputType, UnlockConditionType } from "../../../src/codec/types.js";
import {
  chainIdOf,
  decodeOutputFacts,
  encodeOutputFacts,
  fieldEntries,
  IndexedField,
  indexEntries,
  matches,
  type OutputFacts,
  outputFacts,
  planScan,
  positionOfKey,
} from "../../../src/indexer/index.js";
import { Bucket } from "../../../src/storage/index.js";
import { alias, alice, basic, bob, foundry, idOf, nft } from "../../helpers/txBuilder.js";

const outputId = outputIdFromParts(new Uint8Array(32).fill(5), 3);
const at = (output: Parameters<typeof outputFacts>[0]["output"]) => ({
  outputId,
  output,
  bookedIndex: 7,
  bookedTimestamp: 1_700_000_123,
});

describe("indexer facts and keys", () => {
  it("derives every filterable fact of a basic output and round-trips it", () => {
    const o = basic(alice.address, {
      unlockConditions: [
        { type: UnlockConditionType.StorageDepositReturn, returnAddress: bob.address, amount: 50_000n },
        { type: UnlockConditionType.Timelock, unixTime: 10 },
        { type: UnlockConditionType.Expiration, returnAddress: bob.address, unixTime: 20 },
      ],
      features: [
        { type: FeatureType.Sender, address: alice.address },
        { type: FeatureType.Tag, tag: Uint8Array.of(1, 2, 3) },
      ],
    });
    const facts = outputFacts(at(o))!;
    assert.equal(facts.bookedIndex, 7);
    assert.equal(facts.expirationTime, 20);
    assert.equal(facts.timelockTime, 10);
    assert.deepEqual(
      facts.fields.map((f) => f.field),
      [
        IndexedField.Address,
        IndexedField.StorageDepositReturn,
        IndexedField.ExpirationReturn,
        IndexedField.Sender,
        IndexedField.Tag,
      ],
    );
    assert.deepEqual(decodeOutputFacts(encodeOutputFacts(facts)), facts);
    const bare: OutputFacts = { bookedIndex: 0, nativeTokenCount: 0, fields: [] };
    assert.deepEqual(decodeOutputFacts(encodeOutputFacts(bare)), bare);
  });

  it("names chains by their ID, or by BLAKE2b-256 of the output ID when created with a zero ID", () => {
    const zeroAlias = alias({ stateController: alice.address, governor: bob.address });
    assert.equal(toHex(chainIdOf(at(zeroAlias))!), toHex(aliasIdFromOutputId(outputId)));
    const named = alias({ aliasId: idOf("a"), stateController: alice.address, governor: bob.address });
    assert.equal(toHex(chainIdOf(at(named))!), toHex(idOf("a")));
    assert.equal(toHex(chainIdOf(at(nft({ owner: alice.address })))!), toHex(nftIdFromOutputId(outputId)));
    const f = foundry({ aliasId: idOf("a"), serialNumber: 9 });
    assert.equal(toHex(chainIdOf(at(f))!), toHex(computeFoundryId(idOf("a"), 9, 0)));
    assert.equal(chainIdOf(at(basic(alice.address))), undefined);
  });

  it("writes one listing entry per kind and one chain entry, and one field list entry per field value", () => {
    const o = at(alias({ stateController: alice.address, governor: alice.address }));
    const entries = indexEntries(o);
    assert.deepEqual(
      entries.map(([k]) => k[0]),
      [Bucket.IndexerOutput, Bucket.IndexerChain],
    );
    const [listingKey] = entries[0]!;
    assert.equal(listingKey[1], OutputType.Alias);
    const p = positionOfKey(listingKey);
    assert.equal(p.createdAt, 1_700_000_123);
    assert.equal(toHex(p.outputId), toHex(outputId));
    assert.equal(toHex(entries[1]![1]), toHex(outputId));

    const lists = fieldEntries(o);
    const owner = serializeAddressBytes(alice.address);
    assert.deepEqual(
      lists.map((l) => toHex(l.list)),
      [IndexedField.StateController, IndexedField.Governor].map((field) =>
        toHex(Uint8Array.of(OutputType.Alias, field, owner.length, ...owner)),
      ),
    );
    for (const { entry } of lists) {
      assert.equal(toHex(entry.position), toHex(Uint8Array.of(...listingKey.subarray(2))));
      assert.equal(toHex(entry.facts), toHex(entries[0]![1]));
    }
    assert.deepEqual(indexEntries(at({ type: OutputType.Treasury, amount: 1n })), []);
    assert.deepEqual(fieldEntries(at({ type: OutputType.Treasury, amount: 1n })), []);
  });

  it("plans the booking window and cursor into the scan range, strictly as inx-indexer compares", () => {
    const q = { type: OutputType.Basic, pageSize: 10 } as const;
    assert.equal(planScan({ ...q, createdBefore: 0 }), undefined);
    assert.equal(planScan({ ...q, createdAfter: 0xffffffff }), undefined);
    assert.equal(
      planScan({ ...q, createdAfter: 100, createdBefore: 101 }),
      undefined,
      "nothing is after 100 and before 101",
    );
    const p = planScan({ ...q, createdAfter: 100, createdBefore: 102 })!;
    assert.equal(positionOfKey(p.gte).createdAt, 101);
    assert.equal(positionOfKey(p.lte).createdAt, 101);
    const c = planScan({ ...q, createdAfter: 100, cursor: { createdAt: 500, outputId } })!;
    assert.equal(positionOfKey(c.gte).createdAt, 500, "the later of cursor and window wins");
    const field = { field: IndexedField.Address, value: serializeAddressBytes(alice.address) };
    const f = planScan({ ...q, fields: [field] })!;
    assert.equal(f.indexed, field);
    assert.equal(f.prefix[0], Bucket.IndexerField);
  });

  it("matches presence, counts and unlock times", () => {
    const facts: OutputFacts = {
      bookedIndex: 1,
      nativeTokenCount: 2,
      expirationTime: 50,
      fields: [{ field: IndexedField.StorageDepositReturn, value: serializeAddressBytes(bob.address) }],
    };
    const q = { type: OutputType.Basic, pageSize: 1 } as const;
    assert.equal(matches(facts, { ...q, hasNativeTokens: true, minNativeTokenCount: 2, maxNativeTokenCount: 2 }), true);
    assert.equal(matches(facts, { ...q, minNativeTokenCount: 3 }), false);
    assert.equal(
      matches(facts, { ...q, hasStorageDepositReturn: true, hasExpiration: true, hasTimelock: false }),
      true,
    );
    assert.equal(matches(facts, { ...q, expiresBefore: 50 }), false);
    assert.equal(matches(facts, { ...q, expiresBefore: 51, expiresAfter: 49 }), true);
    assert.equal(matches(facts, { ...q, timelockedBefore: 1000 }), false, "no timelock is never timelocked");
    const other = { field: IndexedField.StorageDepositReturn, value: serializeAddressBytes(alice.address) };
    assert.equal(matches(facts, { ...q, fields: [other] }), false);
  });
});
