import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CodecErrorCode, isCodecError } from "../../../src/codec/errors.js";
import { fromHex, toHex } from "../../../src/codec/hex.js";
import { foundryId } from "../../../src/codec/outputs/foundryOutput.js";
import { decodeOutput, encodeOutput, outputFromJson, outputToJson } from "../../../src/codec/outputs/output.js";
import { outputJsonText } from "../../../src/codec/outputs/outputJsonText.js";
import { validateOutput } from "../../../src/codec/outputs/validateOutput.js";
import {
  minStorageDeposit,
  minStorageDepositForReturn,
  storageDepositOffset,
} from "../../../src/codec/storageDeposit.js";
import type {
  Address,
  AliasOutput,
  BasicOutput,
  Feature,
  FoundryOutput,
  NftOutput,
  Output,
  TreasuryOutput,
  UnlockCondition,
} from "../../../src/codec/types.js";
import { expectCodecError } from "./expectCodecError.js";

// ---------------------------------------------------------------- fixtures

const PARAMS = {
  tokenSupply: 2779530283277761n,
  rentStructure: { vByteCost: 100, vByteFactorData: 1, vByteFactorKey: 10 },
};
const RENT = PARAMS.rentStructure;

const fill = (n: number, b: number): Uint8Array => new Uint8Array(n).fill(b);
const ed = (b: number): Address => ({ type: 0, pubKeyHash: fill(32, b) });
const alias = (b: number): Address & { type: 8 } => ({ type: 8, aliasId: fill(32, b) });
const nft = (b: number): Address => ({ type: 16, nftId: fill(32, b) });
const tokenId = (b: number): Uint8Array => fill(38, b);

function basic(over: Partial<BasicOutput> = {}): BasicOutput {
  return {
    type: 3,
    amount: 1_000_000n,
    nativeTokens: [],
    unlockConditions: [{ type: 0, address: ed(1) }],
    features: [],
    ...over,
  };
}
function aliasOutput(over: Partial<AliasOutput> = {}): AliasOutput {
  return {
    type: 4,
    amount: 1_000_000n,
    nativeTokens: [],
    aliasId: fill(32, 7),
    stateIndex: 3,
    stateMetadata: new Uint8Array(0),
    foundryCounter: 2,
    unlockConditions: [
      { type: 4, address: ed(1) },
      { type: 5, address: ed(2) },
    ],
    features: [],
    immutableFeatures: [],
    ...over,
  };
}
function foundry(over: Partial<FoundryOutput> = {}): FoundryOutput {
  return {
    type: 5,
    amount: 1_000_000n,
    nativeTokens: [],
    serialNumber: 1,
    tokenScheme: { type: 0, mintedTokens: 100n, meltedTokens: 10n, maximumSupply: 1000n },
    unlockConditions: [{ type: 6, address: alias(9) }],
    features: [],
    immutableFeatures: [],
    ...over,
  };
}
function nftOutput(over: Partial<NftOutput> = {}): NftOutput {
  return {
    type: 6,
    amount: 1_000_000n,
    nativeTokens: [],
    nftId: fill(32, 5),
    unlockConditions: [{ type: 0, address: ed(1) }],
    features: [],
    immutableFeatures: [],
    ...over,
  };
}
const treasury = (amount: bigint): TreasuryOutput => ({ type: 2, amount });

const NAMES: Record<number, string> = {
  2: "treasuryOutput",
  3: "basicOutput",
  4: "aliasOutput",
  5: "foundryOutput",
  6: "nftOutput",
};

/** Both decoders reject the same malformed output with the same code and field. */
function rejectsBoth(output: Output, code: CodecErrorCode, field: string): void {
  expectCodecError(() => decodeOutput(encodeOutput(output)), code, field);
  const json = JSON.parse(JSON.stringify(outputToJson(output)));
  expectCodecError(() => outputFromJson(json, NAMES[output.type]!), code, field);
}

/** Both decoders accept the output and return it unchanged; its JSON text is its JSON, byte for byte. */
function roundTrips(output: Output): void {
  assert.deepEqual(decodeOutput(encodeOutput(output)), output);
  assert.deepEqual(outputFromJson(JSON.parse(JSON.stringify(outputToJson(output))), "output"), output);
  assert.equal(outputJsonText(output), JSON.stringify(outputToJson(output)));
}

// ---------------------------------------------------------------- round trips

describe("outputs: round trips", () => {
  it("basic output with every unlock condition and feature", () => {
    const o = basic({
      nativeTokens: [
        { id: tokenId(1), amount: 5n },
        { id: tokenId(2), amount: (1n << 256n) - 1n },
      ],
      unlockConditions: [
        { type: 0, address: ed(1) },
        { type: 1, returnAddress: alias(2), amount: 42600n },
        { type: 2, unixTime: 1 },
        { type: 3, returnAddress: nft(3), unixTime: 0xffffffff },
      ],
      features: [
        { type: 0, address: ed(4) },
        { type: 2, data: fill(8192, 0xaa) },
        { type: 3, tag: fill(64, 0xbb) },
      ],
    });
    roundTrips(o);
    const json = outputToJson(o) as unknown as Record<string, unknown>;
    assert.deepEqual(json.nativeTokens, [
      { id: toHex(tokenId(1)), amount: "0x5" },
      { id: toHex(tokenId(2)), amount: `0x${"f".repeat(64)}` },
    ]);
    assert.deepEqual((json.unlockConditions as unknown[])[1], {
      type: 1,
      returnAddress: { type: 8, aliasId: toHex(fill(32, 2)) },
      amount: "42600",
    });
  });

  it("minimal basic output: JSON leaves empty lists out, bytes as TIP-18 lays them out", () => {
    const o = basic({ amount: 0x0102030405060708n });
    assert.deepEqual(outputToJson(o), {
      type: 3,
      amount: "72623859790382856",
      unlockConditions: [{ type: 0, address: { type: 0, pubKeyHash: toHex(fill(32, 1)) } }],
    });
    assert.equal(toHex(encodeOutput(o)), `0x03${"0807060504030201"}00${"01"}00${"00"}${"01".repeat(32)}00`);
    roundTrips(o);
  });

  it("JSON accepts explicit empty lists and empty state metadata", () => {
    const json = {
      type: 4,
      amount: "1",
      nativeTokens: [],
      aliasId: toHex(fill(32, 0)),
      stateIndex: 0,
      stateMetadata: "0x",
      foundryCounter: 0,
      unlockConditions: [
        { type: 4, address: { type: 0, pubKeyHash: toHex(fill(32, 1)) } },
        { type: 5, address: { type: 0, pubKeyHash: toHex(fill(32, 2)) } },
      ],
      features: [],
      immutableFeatures: [],
    };
    const o = outputFromJson(json, "aliasOutput") as AliasOutput;
    assert.equal(o.stateMetadata.length, 0);
    assert.equal(o.features.length, 0);
  });

  it("alias, foundry, NFT and treasury outputs", () => {
    roundTrips(
      aliasOutput({
        stateMetadata: fill(8192, 1),
        features: [
          { type: 0, address: nft(1) },
          { type: 2, data: fill(1, 2) },
        ],
        immutableFeatures: [
          { type: 1, address: alias(3) },
          { type: 2, data: fill(3, 4) },
        ],
      }),
    );
    roundTrips(
      foundry({
        nativeTokens: [{ id: tokenId(3), amount: 90n }],
        features: [{ type: 2, data: fill(10, 1) }],
        immutableFeatures: [{ type: 2, data: fill(10, 2) }],
      }),
    );
    roundTrips(
      nftOutput({
        unlockConditions: [
          { type: 0, address: alias(1) },
          { type: 2, unixTime: 5 },
        ],
        features: [{ type: 3, tag: fill(1, 9) }],
        immutableFeatures: [{ type: 1, address: ed(8) }],
      }),
    );
    roundTrips(treasury(123n));
    assert.equal(toHex(encodeOutput(treasury(1n))), "0x020100000000000000");
  });

  it("JSON text with another type code and fields after the amount (the core/v3 form)", () => {
    const o = nftOutput({ nativeTokens: [{ id: tokenId(4), amount: 0x10n }] });
    const { type: _type, amount, ...rest } = outputToJson(o) as unknown as Record<string, unknown>;
    assert.equal(outputJsonText(o, 4, ',"mana":"0"'), JSON.stringify({ type: 4, amount, mana: "0", ...rest }));
    assert.equal(outputJsonText(treasury(7n), 9, ',"x":1'), '{"type":9,"amount":"7","x":1}');
    for (const plain of [basic(), aliasOutput(), foundry(), nftOutput()]) {
      assert.equal(outputJsonText(plain), JSON.stringify(outputToJson(plain)));
    }
  });

  it("foundry ID is alias address || serial number || token scheme type", () => {
    const id = foundryId(foundry({ serialNumber: 0x01020304 }));
    assert.equal(toHex(id), `0x08${"09".repeat(32)}0403020100`);
  });
});

// ---------------------------------------------------------------- structural rejections

describe("outputs: structural rules, binary and JSON alike", () => {
  const C = CodecErrorCode;
  const uc = (...ucs: UnlockCondition[]): UnlockCondition[] => ucs;
  const ft = (...fs: Feature[]): Feature[] => fs;

  it("unknown output type", () => {
    expectCodecError(() => decodeOutput(fromHex("0x07", "t")), C.UnknownType, "output.type");
    expectCodecError(() => outputFromJson({ type: 1, amount: "1" }, "o"), C.UnknownType, "o.type");
    expectCodecError(() => outputFromJson([], "o"), C.InvalidJson, "o");
  });

  it("every truncation of a valid output fails as Truncated", () => {
    const bytes = encodeOutput(
      nftOutput({
        nativeTokens: [{ id: tokenId(1), amount: 1n }],
        unlockConditions: uc({ type: 0, address: ed(1) }, { type: 3, returnAddress: ed(2), unixTime: 9 }),
        features: ft({ type: 2, data: fill(5, 1) }),
        immutableFeatures: ft({ type: 1, address: ed(3) }),
      }),
    );
    for (let n = 0; n < bytes.length; n++) {
      assert.throws(
        () => decodeOutput(bytes.subarray(0, n)),
        (e: unknown) => isCodecError(e) && e.code === C.Truncated,
        `prefix of ${n} bytes`,
      );
    }
    expectCodecError(() => decodeOutput(bytes.subarray(0, 9)), C.Truncated, "nftOutput.nativeTokens.count");
    expectCodecError(() => decodeOutput(bytes.subarray(0, 100)), C.Truncated, "nftOutput.nftId");
  });

  it("trailing bytes", () => {
    const bytes = encodeOutput(basic());
    const longer = new Uint8Array(bytes.length + 1);
    longer.set(bytes);
    expectCodecError(() => decodeOutput(longer), C.TrailingBytes, "basicOutput");
  });

  it("unknown unlock condition, feature, address and token scheme types", () => {
    const good = outputToJson(basic()) as unknown as Record<string, unknown>;
    const bytes = encodeOutput(basic());
    // unlock condition type byte sits after type(1) amount(8) nativeTokens(1) count(1)
    const badUc = bytes.slice();
    badUc[11] = 7;
    expectCodecError(() => decodeOutput(badUc), C.UnknownType, "basicOutput.unlockConditions[0].type");
    expectCodecError(
      () => outputFromJson({ ...good, unlockConditions: [{ type: 7, address: { type: 0 } }] }, "basicOutput"),
      C.UnknownType,
      "basicOutput.unlockConditions[0].type",
    );
    const badAddr = bytes.slice();
    badAddr[12] = 1;
    expectCodecError(() => decodeOutput(badAddr), C.UnknownType, "basicOutput.unlockConditions[0].address.type");
    expectCodecError(
      () =>
        outputFromJson(
          { ...good, unlockConditions: [{ type: 0, address: { type: 1, pubKeyHash: toHex(fill(32, 0)) } }] },
          "basicOutput",
        ),
      C.UnknownType,
      "basicOutput.unlockConditions[0].address.type",
    );
    const withFeature = encodeOutput(basic({ features: ft({ type: 3, tag: fill(1, 1) }) }));
    withFeature[withFeature.length - 3] = 4;
    expectCodecError(() => decodeOutput(withFeature), C.UnknownType, "basicOutput.features[0].type");
    expectCodecError(
      () => outputFromJson({ ...good, features: [{ type: 4, tag: "0x01" }] }, "basicOutput"),
      C.UnknownType,
      "basicOutput.features[0].type",
    );
    const f = encodeOutput(foundry());
    f[14] = 1; // type(1) amount(8) nativeTokens(1) serialNumber(4), then the token scheme type
    expectCodecError(() => decodeOutput(f), C.UnknownType, "foundryOutput.tokenScheme.type");
    const fj = outputToJson(foundry()) as unknown as Record<string, Record<string, unknown>>;
    expectCodecError(
      () => outputFromJson({ ...fj, tokenScheme: { ...fj.tokenScheme, type: 1 } }, "foundryOutput"),
      C.UnknownType,
      "foundryOutput.tokenScheme.type",
    );
  });

  it("unlock conditions not allowed for the output kind", () => {
    rejectsBoth(
      basic({ unlockConditions: uc({ type: 0, address: ed(1) }, { type: 4, address: ed(2) }) }),
      C.SyntacticRule,
      "basicOutput.unlockConditions[1].type",
    );
    rejectsBoth(
      aliasOutput({ unlockConditions: uc({ type: 0, address: ed(1) }, { type: 5, address: ed(2) }) }),
      C.SyntacticRule,
      "aliasOutput.unlockConditions[0].type",
    );
    rejectsBoth(
      foundry({ unlockConditions: uc({ type: 0, address: alias(1) }) }),
      C.SyntacticRule,
      "foundryOutput.unlockConditions[0].type",
    );
    rejectsBoth(
      nftOutput({ unlockConditions: uc({ type: 0, address: ed(1) }, { type: 6, address: alias(1) }) }),
      C.SyntacticRule,
      "nftOutput.unlockConditions[1].type",
    );
  });

  it("unlock conditions unsorted or repeated", () => {
    rejectsBoth(
      basic({
        unlockConditions: uc(
          { type: 0, address: ed(1) },
          { type: 3, returnAddress: ed(2), unixTime: 1 },
          { type: 2, unixTime: 1 },
        ),
      }),
      C.NotSortedOrUnique,
      "basicOutput.unlockConditions[2].type",
    );
    rejectsBoth(
      basic({ unlockConditions: uc({ type: 0, address: ed(1) }, { type: 0, address: ed(2) }) }),
      C.NotSortedOrUnique,
      "basicOutput.unlockConditions[1].type",
    );
    rejectsBoth(
      aliasOutput({ unlockConditions: uc({ type: 5, address: ed(1) }, { type: 4, address: ed(2) }) }),
      C.NotSortedOrUnique,
      "aliasOutput.unlockConditions[1].type",
    );
  });

  it("unlock condition counts and mandatory conditions", () => {
    rejectsBoth(basic({ unlockConditions: [] }), C.CountOutOfRange, "basicOutput.unlockConditions");
    rejectsBoth(
      basic({
        unlockConditions: uc(
          { type: 0, address: ed(1) },
          { type: 1, returnAddress: ed(1), amount: 1n },
          { type: 2, unixTime: 1 },
          { type: 3, returnAddress: ed(1), unixTime: 1 },
          { type: 3, returnAddress: ed(1), unixTime: 2 },
        ),
      }),
      C.CountOutOfRange,
      "basicOutput.unlockConditions",
    );
    rejectsBoth(
      basic({ unlockConditions: uc({ type: 2, unixTime: 5 }) }),
      C.SyntacticRule,
      "basicOutput.unlockConditions",
    );
    rejectsBoth(
      nftOutput({ unlockConditions: uc({ type: 1, returnAddress: ed(1), amount: 1n }, { type: 2, unixTime: 5 }) }),
      C.SyntacticRule,
      "nftOutput.unlockConditions",
    );
    rejectsBoth(
      aliasOutput({ unlockConditions: uc({ type: 4, address: ed(1) }) }),
      C.CountOutOfRange,
      "aliasOutput.unlockConditions",
    );
    rejectsBoth(foundry({ unlockConditions: [] }), C.CountOutOfRange, "foundryOutput.unlockConditions");
  });

  it("immutable alias address unlock condition holds an alias address only", () => {
    rejectsBoth(
      foundry({ unlockConditions: uc({ type: 6, address: ed(1) as never }) }),
      C.SyntacticRule,
      "foundryOutput.unlockConditions[0].address.type",
    );
  });

  it("features and immutable features not allowed for the output kind", () => {
    rejectsBoth(basic({ features: ft({ type: 1, address: ed(1) }) }), C.SyntacticRule, "basicOutput.features[0].type");
    rejectsBoth(
      aliasOutput({ features: ft({ type: 3, tag: fill(1, 1) }) }),
      C.SyntacticRule,
      "aliasOutput.features[0].type",
    );
    rejectsBoth(
      aliasOutput({ immutableFeatures: ft({ type: 0, address: ed(1) }) }),
      C.SyntacticRule,
      "aliasOutput.immutableFeatures[0].type",
    );
    rejectsBoth(
      foundry({ features: ft({ type: 0, address: ed(1) }) }),
      C.SyntacticRule,
      "foundryOutput.features[0].type",
    );
    rejectsBoth(
      foundry({ immutableFeatures: ft({ type: 1, address: ed(1) }) }),
      C.SyntacticRule,
      "foundryOutput.immutableFeatures[0].type",
    );
    rejectsBoth(
      nftOutput({ features: ft({ type: 1, address: ed(1) }) }),
      C.SyntacticRule,
      "nftOutput.features[0].type",
    );
    rejectsBoth(
      nftOutput({ immutableFeatures: ft({ type: 3, tag: fill(1, 1) }) }),
      C.SyntacticRule,
      "nftOutput.immutableFeatures[0].type",
    );
  });

  it("features unsorted, repeated, or too many", () => {
    rejectsBoth(
      basic({ features: ft({ type: 3, tag: fill(1, 1) }, { type: 2, data: fill(1, 1) }) }),
      C.NotSortedOrUnique,
      "basicOutput.features[1].type",
    );
    rejectsBoth(
      nftOutput({ immutableFeatures: ft({ type: 2, data: fill(1, 1) }, { type: 2, data: fill(1, 2) }) }),
      C.NotSortedOrUnique,
      "nftOutput.immutableFeatures[1].type",
    );
    rejectsBoth(
      foundry({ features: ft({ type: 2, data: fill(1, 1) }, { type: 2, data: fill(1, 1) }) }),
      C.CountOutOfRange,
      "foundryOutput.features",
    );
  });

  it("metadata 1..8192 bytes, tag 1..64 bytes, state metadata at most 8192 bytes", () => {
    rejectsBoth(
      basic({ features: ft({ type: 2, data: fill(0, 0) }) }),
      C.CountOutOfRange,
      "basicOutput.features[0].data",
    );
    rejectsBoth(
      basic({ features: ft({ type: 2, data: fill(8193, 0) }) }),
      C.CountOutOfRange,
      "basicOutput.features[0].data",
    );
    rejectsBoth(
      basic({ features: ft({ type: 3, tag: fill(0, 0) }) }),
      C.CountOutOfRange,
      "basicOutput.features[0].tag",
    );
    rejectsBoth(
      basic({ features: ft({ type: 3, tag: fill(65, 0) }) }),
      C.CountOutOfRange,
      "basicOutput.features[0].tag",
    );
    rejectsBoth(aliasOutput({ stateMetadata: fill(8193, 0) }), C.CountOutOfRange, "aliasOutput.stateMetadata");
    roundTrips(aliasOutput({ stateMetadata: fill(8192, 0) }));
  });

  it("native tokens: at most 64, sorted by token ID, unique", () => {
    const many = Array.from({ length: 65 }, (_, i) => ({ id: tokenId(i), amount: 1n }));
    rejectsBoth(basic({ nativeTokens: many }), C.CountOutOfRange, "basicOutput.nativeTokens");
    roundTrips(basic({ nativeTokens: many.slice(0, 64) }));
    rejectsBoth(
      basic({
        nativeTokens: [
          { id: tokenId(2), amount: 1n },
          { id: tokenId(1), amount: 1n },
        ],
      }),
      C.NotSortedOrUnique,
      "basicOutput.nativeTokens[1].id",
    );
    rejectsBoth(
      aliasOutput({
        nativeTokens: [
          { id: tokenId(2), amount: 1n },
          { id: tokenId(2), amount: 2n },
        ],
      }),
      C.NotSortedOrUnique,
      "aliasOutput.nativeTokens[1].id",
    );
  });

  it("JSON-only shape errors", () => {
    const good = outputToJson(basic({ nativeTokens: [{ id: tokenId(1), amount: 1n }] })) as unknown as Record<
      string,
      unknown
    >;
    expectCodecError(() => outputFromJson({ ...good, extra: 1 }, "o"), C.InvalidJson, "o.extra");
    expectCodecError(() => outputFromJson({ ...good, amount: 5 }, "o"), C.InvalidJson, "o.amount");
    expectCodecError(
      () => outputFromJson({ ...good, amount: "18446744073709551616" }, "o"),
      C.ValueOutOfRange,
      "o.amount",
    );
    expectCodecError(
      () => outputFromJson({ ...good, nativeTokens: [{ id: toHex(tokenId(1)), amount: `0x1${"0".repeat(64)}` }] }, "o"),
      C.InvalidJson,
      "o.nativeTokens[0].amount",
    );
    expectCodecError(
      () => outputFromJson({ ...good, nativeTokens: [{ id: toHex(fill(37, 1)), amount: "0x1" }] }, "o"),
      C.InvalidHex,
      "o.nativeTokens[0].id",
    );
    const { unlockConditions: _, ...noUcs } = good;
    expectCodecError(() => outputFromJson(noUcs, "o"), C.InvalidJson, "o.unlockConditions");
    expectCodecError(
      () => outputFromJson({ ...good, unlockConditions: [{ type: 2, unixTime: 2 ** 32 }] }, "o"),
      C.ValueOutOfRange,
      "o.unlockConditions[0].unixTime",
    );
  });
});

// ---------------------------------------------------------------- validateOutput

describe("validateOutput: TIP-18 syntactic rules", () => {
  const C = CodecErrorCode;
  const valid = (o: Output): void => validateOutput(o, PARAMS, "out");
  const invalid = (o: Output, code: CodecErrorCode, field: string): void =>
    expectCodecError(() => validateOutput(o, PARAMS, "out"), code, field);

  it("amount is non-zero and at most the token supply", () => {
    valid(basic({ amount: PARAMS.tokenSupply }));
    invalid(basic({ amount: 0n }), C.SyntacticRule, "out.amount");
    invalid(basic({ amount: PARAMS.tokenSupply + 1n }), C.SyntacticRule, "out.amount");
  });

  it("amount covers the storage deposit", () => {
    valid(basic({ amount: 42600n }));
    invalid(basic({ amount: 42599n }), C.StorageDeposit, "out.amount");
    valid(aliasOutput({ amount: 50300n }));
    invalid(aliasOutput({ amount: 50299n }), C.StorageDeposit, "out.amount");
  });

  it("native token amounts are non-zero", () => {
    valid(basic({ nativeTokens: [{ id: tokenId(1), amount: 1n }] }));
    invalid(
      basic({
        nativeTokens: [
          { id: tokenId(1), amount: 1n },
          { id: tokenId(2), amount: 0n },
        ],
      }),
      C.SyntacticRule,
      "out.nativeTokens[1].amount",
    );
  });

  it("timelock and expiration unix times are non-zero", () => {
    valid(
      basic({
        unlockConditions: [
          { type: 0, address: ed(1) },
          { type: 2, unixTime: 1 },
        ],
      }),
    );
    invalid(
      basic({
        unlockConditions: [
          { type: 0, address: ed(1) },
          { type: 2, unixTime: 0 },
        ],
      }),
      C.SyntacticRule,
      "out.unlockConditions[1].unixTime",
    );
    valid(
      nftOutput({
        unlockConditions: [
          { type: 0, address: ed(1) },
          { type: 3, returnAddress: ed(2), unixTime: 1 },
        ],
      }),
    );
    invalid(
      nftOutput({
        unlockConditions: [
          { type: 0, address: ed(1) },
          { type: 3, returnAddress: ed(2), unixTime: 0 },
        ],
      }),
      C.SyntacticRule,
      "out.unlockConditions[1].unixTime",
    );
  });

  it("storage deposit return: minimum deposit ≤ return amount ≤ amount", () => {
    const sdr = (amount: bigint, returnAmount: bigint): BasicOutput =>
      basic({
        amount,
        unlockConditions: [
          { type: 0, address: ed(1) },
          { type: 1, returnAddress: nft(2), amount: returnAmount },
        ],
      });
    valid(sdr(100_000n, 42600n));
    valid(sdr(100_000n, 100_000n));
    invalid(sdr(100_000n, 42599n), C.StorageDeposit, "out.unlockConditions[1].amount");
    invalid(sdr(100_000n, 100_001n), C.StorageDeposit, "out.unlockConditions[1].amount");
    invalid(
      nftOutput({
        unlockConditions: [
          { type: 0, address: ed(1) },
          { type: 1, returnAddress: ed(2), amount: 1n },
        ],
      }),
      C.StorageDeposit,
      "out.unlockConditions[1].amount",
    );
  });

  it("alias: a zero alias ID has state index 0 and foundry counter 0", () => {
    valid(aliasOutput({ aliasId: fill(32, 0), stateIndex: 0, foundryCounter: 0 }));
    invalid(aliasOutput({ aliasId: fill(32, 0), stateIndex: 1, foundryCounter: 0 }), C.SyntacticRule, "out.stateIndex");
    invalid(
      aliasOutput({ aliasId: fill(32, 0), stateIndex: 0, foundryCounter: 1 }),
      C.SyntacticRule,
      "out.foundryCounter",
    );
  });

  it("alias: state controller and governor are not the alias itself", () => {
    valid(
      aliasOutput({
        unlockConditions: [
          { type: 4, address: alias(8) },
          { type: 5, address: nft(7) },
        ],
      }),
    );
    invalid(
      aliasOutput({
        unlockConditions: [
          { type: 4, address: alias(7) },
          { type: 5, address: ed(2) },
        ],
      }),
      C.SyntacticRule,
      "out.unlockConditions[0].address",
    );
    invalid(
      aliasOutput({
        unlockConditions: [
          { type: 4, address: ed(1) },
          { type: 5, address: alias(7) },
        ],
      }),
      C.SyntacticRule,
      "out.unlockConditions[1].address",
    );
  });

  it("NFT: the owner is not the NFT itself", () => {
    valid(nftOutput({ unlockConditions: [{ type: 0, address: nft(6) }] }));
    valid(nftOutput({ unlockConditions: [{ type: 0, address: alias(5) }] }));
    invalid(
      nftOutput({ unlockConditions: [{ type: 0, address: nft(5) }] }),
      C.SyntacticRule,
      "out.unlockConditions[0].address",
    );
  });

  it("foundry: simple token scheme supply rules", () => {
    const scheme = (minted: bigint, melted: bigint, max: bigint): FoundryOutput =>
      foundry({ tokenScheme: { type: 0, mintedTokens: minted, meltedTokens: melted, maximumSupply: max } });
    valid(scheme(0n, 0n, 1n));
    valid(scheme(1010n, 10n, 1000n));
    invalid(scheme(5n, 6n, 100n), C.SyntacticRule, "out.tokenScheme.meltedTokens");
    invalid(scheme(1011n, 10n, 1000n), C.SyntacticRule, "out.tokenScheme.mintedTokens");
    invalid(scheme(0n, 0n, 0n), C.SyntacticRule, "out.tokenScheme.maximumSupply");
  });

  it("treasury: amount at most the token supply", () => {
    valid(treasury(0n));
    valid(treasury(PARAMS.tokenSupply));
    invalid(treasury(PARAMS.tokenSupply + 1n), C.SyntacticRule, "out.amount");
  });
});

// ---------------------------------------------------------------- storage deposit

describe("storage deposit (TIP-19)", () => {
  it("offset is 34 key bytes and 40 data bytes", () => {
    assert.equal(storageDepositOffset(RENT), 380n);
    assert.equal(storageDepositOffset({ vByteCost: 1, vByteFactorData: 2, vByteFactorKey: 3 }), 34n * 3n + 40n * 2n);
  });

  it("minimal outputs under {vByteCost 100, factorData 1, factorKey 10}", () => {
    // basic: 1 type + 8 amount + 1 tokens + 1 count + (1 + 33) address condition + 1 features = 46 bytes
    assert.equal(encodeOutput(basic()).length, 46);
    assert.equal(minStorageDeposit(basic(), RENT), (46n + 340n + 40n) * 100n);
    assert.equal(minStorageDeposit(basic(), RENT), 42600n);
    assert.equal(minStorageDepositForReturn(ed(1), RENT), 42600n);
    assert.equal(minStorageDepositForReturn(alias(1), RENT), 42600n);
    // alias 123 bytes, foundry 148, NFT 79, treasury 9
    assert.equal(minStorageDeposit(aliasOutput(), RENT), 50300n);
    assert.equal(minStorageDeposit(foundry(), RENT), 52800n);
    assert.equal(minStorageDeposit(nftOutput(), RENT), 45900n);
    assert.equal(minStorageDeposit(treasury(1n), RENT), 38900n);
  });

  it("grows by vByteCost × factorData per byte of data", () => {
    const withTag = basic({ features: [{ type: 3, tag: fill(10, 1) }] });
    // the tag feature adds 1 type + 1 length + 10 bytes
    assert.equal(minStorageDeposit(withTag, RENT), 42600n + 12n * 100n);
    assert.equal(minStorageDeposit(basic(), { vByteCost: 250, vByteFactorData: 1, vByteFactorKey: 10 }), 426n * 250n);
  });
});
