import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { statusOfCode, toHttpError } from "../../../src/api/errors.js";
import { CodecErrorCode, codecError } from "../../../src/codec/errors.js";
import { IndexerErrorCode } from "../../../src/indexer/errors.js";
import { LedgerErrorCode } from "../../../src/ledger/errors.js";
import { NetworkErrorCode } from "../../../src/network/errors.js";
import { PowErrorCode } from "../../../src/pow/errors.js";
import { SnapshotErrorCode } from "../../../src/snapshot/errors.js";
import { StorageErrorCode } from "../../../src/storage/errors.js";
import { BlockErrorCode, TangleErrorCode } from "../../../src/tangle/errors.js";
import { LedgerNodeError } from "../../../src/util/ledgerNodeError.js";

/** One error class below the API, and one table from its codes to statuses (src/api/errors.ts). */
describe("domain errors as HTTP answers", () => {
  const enums = {
    CodecErrorCode,
    BlockErrorCode,
    TangleErrorCode,
    StorageErrorCode,
    LedgerErrorCode,
    PowErrorCode,
    SnapshotErrorCode,
    IndexerErrorCode,
    NetworkErrorCode,
  };

  it("maps every code of every layer, and no code is used by two layers", () => {
    const seen = new Set<string>();
    for (const [name, codes] of Object.entries(enums)) {
      for (const code of Object.values(codes)) {
        assert.ok(statusOfCode(code) !== undefined, `${name}.${code} has a status`);
        assert.ok(!seen.has(code), `${code} is unique`);
        seen.add(code);
      }
    }
  });

  it("answers what an error means, not 500, for missing data, bad input and a busy node", () => {
    const cases: [LedgerNodeError<string, unknown>, number][] = [
      [codecError(CodecErrorCode.InvalidHex, "outputId", "odd length"), 400],
      [new LedgerNodeError(BlockErrorCode.InsufficientPow, "PoW score 1 is below the minimum 100"), 400],
      [new LedgerNodeError(SnapshotErrorCode.BadIndex, "index 0"), 400],
      [new LedgerNodeError(SnapshotErrorCode.Pruned, "below the pruning index"), 404],
      [new LedgerNodeError(IndexerErrorCode.Busy, "the ledger moved"), 503],
      [new LedgerNodeError(NetworkErrorCode.NotSynced, "behind the network"), 503],
      [new LedgerNodeError(PowErrorCode.Disabled, "no workers"), 503],
      [new LedgerNodeError(TangleErrorCode.NotCoordinator, "a follower"), 503],
      [new LedgerNodeError(StorageErrorCode.CorruptValue, "a record does not decode"), 500],
    ];
    for (const [e, status] of cases) {
      const answer = toHttpError(e);
      assert.equal(answer.status, status, e.code);
      assert.ok(answer.details.length > 0, `${e.code} says why`);
    }
  });

  it("keeps the reason of a 500 out of answers for errors it does not know", () => {
    assert.deepEqual(toHttpError(new Error("secret internals")), {
      status: 500,
      details: "unexpected error while serving the request",
    });
    assert.equal(toHttpError(new LedgerNodeError("SOMETHING_ELSE", "x")).status, 500);
  });
});
