import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, it } from "node:test";
import { compareBytes } from "../../../src/codec/hex.js";
import { IndexerErrorCode, isIndexerError, RANKED_ADDRESSES, Ranker } from "../../../src/indexer/index.js";

describe("Ranker: the rankings of a stream of balances in bounded memory", () => {
  it("ranks 3,500 addresses as a sort of all of them would, ties by address bytes", () => {
    // many ties: balances drawn from a few values, so the cut must order them by address
    const all = Array.from({ length: 3_500 }, (_, i) => ({
      address: new Uint8Array(randomBytes(33)),
      total: BigInt(1 + (i % 7)) * 10n ** BigInt(i % 13),
    }));
    const ranker = new Ranker();
    for (const e of all) ranker.add(e.address, e.total);
    ranker.add(new Uint8Array(33), 0n); // owns nothing: not ranked
    const r = ranker.rankings(42);

    const sorted = [...all].sort((a, b) =>
      a.total === b.total ? compareBytes(a.address, b.address) : a.total > b.total ? -1 : 1,
    );
    assert.equal(r.ledgerIndex, 42);
    assert.equal(r.richest.length, RANKED_ADDRESSES);
    assert.deepEqual(r.richest, sorted.slice(0, RANKED_ADDRESSES));
    const ranges = new Map<number, { addressCount: number; total: bigint }>();
    for (const e of all) {
      const k = e.total.toString().length - 1;
      const x = ranges.get(k) ?? { addressCount: 0, total: 0n };
      ranges.set(k, { addressCount: x.addressCount + 1, total: x.total + e.total });
    }
    assert.deepEqual(
      r.distribution,
      [...ranges.entries()].sort((a, b) => a[0] - b[0]).map(([k, x]) => ({ k, ...x })),
    );
  });

  it("refuses a balance below zero as the store's failure", () => {
    assert.throws(
      () => new Ranker().add(new Uint8Array(33), -1n),
      (e) => isIndexerError(e, IndexerErrorCode.Corrupt),
    );
  });
});
