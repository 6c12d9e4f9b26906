import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CodecErrorCode } from "../../../src/codec/errors.js";
import { toHex } from "../../../src/codec/hex.js";
import { deserializeInput, inputFromJson, inputToJson, serializeInput } from "../../../src/codec/input.js";
import { encodeMilestone, milestoneFromJson, milestoneToJson } from "../../../src/codec/milestone.js";
import { decodePayload, encodePayload, payloadFromJson, payloadToJson } from "../../../src/codec/payload.js";
import {
  decodeProtocolParameters,
  encodeProtocolParameters,
  protocolParametersFromJson,
  protocolParametersToJson,
} from "../../../src/codec/protocolParameters.js";
import { ReadStream } from "../../../src/codec/readStream.js";
import { deserializeSignature, signatureFromJson } from "../../../src/codec/signature.js";
import { encodeTransaction, transactionFromJson, transactionToJson } from "../../../src/codec/transaction.js";
import type {
  BasicOutput,
  Input,
  MilestonePayload,
  ProtocolParameters,
  ReceiptMilestoneOption,
  TaggedDataPayload,
  TransactionPayload,
  Unlock,
} from "../../../src/codec/types.js";
import { deserializeUnlock, serializeUnlock, unlockFromJson, unlockToJson } from "../../../src/codec/unlock.js";
import { WriteStream } from "../../../src/codec/writeStream.js";
import { Rng } from "../../helpers/random.js";
import {
  DEV_PARAMS,
  randomMilestone,
  randomProtocolParameters,
  randomTaggedData,
  randomTransaction,
} from "../../helpers/randomBlocks.js";
import { expectCodecError } from "./expectCodecError.js";

/** JSON as it arrives over the wire (no bigint, no undefined), loosely typed so tests can edit it. */
// biome-ignore lint/suspicious/noExplicitAny: test fixtures are edited field by field
const wire = (x: unknown): Record<string, any> => JSON.parse(JSON.stringify(x));
const filled = (n: number, b: number): Uint8Array => new Uint8Array(n).fill(b);

const basic: BasicOutput = {
  type: 3,
  amount: 1_000_000n,
  nativeTokens: [],
  unlockConditions: [{ type: 0, address: { type: 0, pubKeyHash: filled(32, 0xaa) } }],
  features: [],
};

function baseTransaction(): TransactionPayload {
  return {
    type: 6,
    essence: {
      type: 1,
      networkId: 4594189162723137800n,
      inputs: [
        { type: 0, transactionId: filled(32, 1), transactionOutputIndex: 0 },
        { type: 0, transactionId: filled(32, 1), transactionOutputIndex: 1 },
      ],
      inputsCommitment: filled(32, 9),
      outputs: [basic],
      payload: { type: 5, tag: Uint8Array.of(1, 2), data: Uint8Array.of(3) },
    },
    unlocks: [
      { type: 0, signature: { type: 0, publicKey: filled(32, 5), signature: filled(64, 6) } },
      { type: 1, reference: 0 },
    ],
  };
}

/** Offsets in `encodeTransaction(baseTransaction())`. */
const INPUT0_TYPE = 4 + 1 + 8 + 2;
const UNLOCKS_LENGTH = 2 + 98 + 3;

function receipt(): ReceiptMilestoneOption {
  return {
    type: 0,
    migratedAt: 7,
    final: true,
    funds: [
      { tailTransactionHash: filled(49, 1), address: { type: 0, pubKeyHash: filled(32, 2) }, deposit: 1_000_000n },
      { tailTransactionHash: filled(49, 3), address: { type: 0, pubKeyHash: filled(32, 4) }, deposit: 2_000_000n },
    ],
    transaction: {
      type: 4,
      input: { type: 1, milestoneId: filled(32, 5) },
      output: { type: 2, amount: 3_000_000n },
    },
  };
}

function baseMilestone(): MilestonePayload {
  return {
    type: 7,
    index: 10,
    timestamp: 1_700_000_000,
    protocolVersion: 2,
    previousMilestoneId: filled(32, 1),
    parents: [filled(32, 2), filled(32, 3)],
    inclusionMerkleRoot: filled(32, 4),
    appliedMerkleRoot: filled(32, 5),
    metadata: Uint8Array.of(0xde, 0xad),
    options: [
      receipt(),
      { type: 1, targetMilestoneIndex: 12, protocolVersion: 3, params: encodeProtocolParameters(DEV_PARAMS) },
    ],
    signatures: [
      { type: 0, publicKey: filled(32, 6), signature: filled(64, 7) },
      { type: 0, publicKey: filled(32, 8), signature: filled(64, 9) },
    ],
  };
}

describe("inputs, signatures, unlocks", () => {
  it("round-trip UTXO and treasury inputs", () => {
    const inputs: Input[] = [
      { type: 0, transactionId: filled(32, 1), transactionOutputIndex: 0xffff },
      { type: 1, milestoneId: filled(32, 2) },
    ];
    for (const input of inputs) {
      const w = new WriteStream();
      serializeInput(w, input);
      const bytes = w.finish();
      assert.equal(bytes.length, input.type === 0 ? 35 : 33);
      assert.deepEqual(deserializeInput(new ReadStream(bytes), "input"), input);
      assert.deepEqual(inputFromJson(wire(inputToJson(input)), "input"), input);
    }
    expectCodecError(
      () => deserializeInput(new ReadStream(Uint8Array.of(2)), "input"),
      CodecErrorCode.UnknownType,
      "input.type",
    );
    expectCodecError(
      () => deserializeInput(new ReadStream(Uint8Array.of(0, 1, 2)), "input"),
      CodecErrorCode.Truncated,
      "input.transactionId",
    );
    expectCodecError(() => inputFromJson({ type: 3 }, "input"), CodecErrorCode.UnknownType, "input.type");
    expectCodecError(
      () => inputFromJson({ type: 0, transactionId: toHex(filled(32, 1)), transactionOutputIndex: 65536 }, "input"),
      CodecErrorCode.ValueOutOfRange,
      "input.transactionOutputIndex",
    );
  });

  it("round-trip every unlock kind and reject unknown unlock and signature types", () => {
    const unlocks: Unlock[] = [
      { type: 0, signature: { type: 0, publicKey: filled(32, 1), signature: filled(64, 2) } },
      { type: 1, reference: 0 },
      { type: 2, reference: 1 },
      { type: 3, reference: 0xffff },
    ];
    for (const u of unlocks) {
      const w = new WriteStream();
      serializeUnlock(w, u);
      assert.deepEqual(deserializeUnlock(new ReadStream(w.finish()), "unlock"), u);
      assert.deepEqual(unlockFromJson(wire(unlockToJson(u)), "unlock"), u);
    }
    expectCodecError(
      () => deserializeUnlock(new ReadStream(Uint8Array.of(4, 0, 0)), "u"),
      CodecErrorCode.UnknownType,
      "u.type",
    );
    expectCodecError(
      () => deserializeUnlock(new ReadStream(Uint8Array.of(0, 1)), "u"),
      CodecErrorCode.UnknownType,
      "u.signature.type",
    );
    expectCodecError(
      () => deserializeSignature(new ReadStream(Uint8Array.of(0)), "s"),
      CodecErrorCode.Truncated,
      "s.publicKey",
    );
    expectCodecError(
      () => unlockFromJson({ type: 1, reference: 0, extra: 1 }, "u"),
      CodecErrorCode.InvalidJson,
      "u.extra",
    );
    expectCodecError(
      () => signatureFromJson({ type: 0, publicKey: toHex(filled(31, 0)), signature: toHex(filled(64, 0)) }, "s"),
      CodecErrorCode.InvalidHex,
      "s.publicKey",
    );
  });
});

describe("tagged data payload", () => {
  it("round-trips, empty tag and data included, and lays out TIP-23", () => {
    const p: TaggedDataPayload = { type: 5, tag: new Uint8Array(0), data: new Uint8Array(0) };
    assert.equal(toHex(encodePayload(p)), "0x050000000000000000");
    assert.deepEqual(wire(payloadToJson(p)), { type: 5, tag: "0x", data: "0x" });
    assert.deepEqual(decodePayload(encodePayload(p)), p);
    for (const json of [{ type: 5 }, { type: 5, tag: "", data: "" }, { type: 5, tag: "0x", data: "0x" }]) {
      assert.deepEqual(payloadFromJson(json, "p"), p);
    }
    for (let i = 0; i < 20; i++) {
      const r = randomTaggedData(new Rng(i));
      assert.deepEqual(decodePayload(encodePayload(r)), r);
      assert.deepEqual(payloadFromJson(wire(payloadToJson(r)), "p"), r);
    }
  });

  it("accepts tags up to 255 bytes in the codec (64 is a syntactic rule) and rejects longer JSON tags", () => {
    const p: TaggedDataPayload = { type: 5, tag: filled(255, 1), data: new Uint8Array(0) };
    assert.deepEqual(decodePayload(encodePayload(p)), p);
    expectCodecError(
      () => payloadFromJson({ type: 5, tag: toHex(filled(256, 1)) }, "p"),
      CodecErrorCode.CountOutOfRange,
      "p.tag",
    );
  });

  it("rejects truncated data and a bad hex tag", () => {
    const bytes = encodePayload({ type: 5, tag: Uint8Array.of(1), data: Uint8Array.of(1, 2, 3) });
    expectCodecError(() => decodePayload(bytes.subarray(0, bytes.length - 1), "p"), CodecErrorCode.Truncated, "p.data");
    expectCodecError(() => payloadFromJson({ type: 5, tag: "0x1" }, "p"), CodecErrorCode.InvalidHex, "p.tag");
  });
});

describe("transaction payload", () => {
  it("round-trips binary and JSON (random and hand-made)", () => {
    const txs = [baseTransaction(), ...Array.from({ length: 10 }, (_, i) => randomTransaction(new Rng(500 + i)))];
    for (const tx of txs) {
      const bytes = encodeTransaction(tx);
      assert.deepEqual(decodePayload(bytes, "transaction"), tx);
      assert.deepEqual(transactionFromJson(wire(transactionToJson(tx)), "transaction"), tx);
    }
    const noPayload = baseTransaction();
    delete noPayload.essence.payload;
    const json = wire(transactionToJson(noPayload));
    assert.equal("payload" in json.essence, false);
    assert.deepEqual(transactionFromJson({ ...json, essence: { ...json.essence, payload: null } }, "tx"), noPayload);
  });

  it("rejects an unknown essence type, a treasury input, a treasury output (binary and JSON)", () => {
    const tx = baseTransaction();
    const bytes = encodeTransaction(tx);
    const patch = (at: number, v: number): Uint8Array => {
      const b = bytes.slice();
      b[at] = v;
      return b;
    };
    expectCodecError(() => decodePayload(patch(4, 2), "tx"), CodecErrorCode.UnknownType, "tx.essence.type");
    expectCodecError(
      () => decodePayload(patch(INPUT0_TYPE, 1), "tx"),
      CodecErrorCode.UnknownType,
      "tx.essence.inputs[0].type",
    );
    const json = wire(transactionToJson(tx));
    expectCodecError(
      () => transactionFromJson({ ...json, essence: { ...json.essence, type: 2 } }, "tx"),
      CodecErrorCode.UnknownType,
      "tx.essence.type",
    );
    const treasuryIn = { type: 1, milestoneId: toHex(filled(32, 1)) };
    expectCodecError(
      () =>
        transactionFromJson(
          { ...json, essence: { ...json.essence, inputs: [treasuryIn, json.essence.inputs[1]] } },
          "tx",
        ),
      CodecErrorCode.UnknownType,
      "tx.essence.inputs[0].type",
    );
    const withTreasury = baseTransaction();
    withTreasury.essence.outputs = [{ type: 2, amount: 5n }];
    expectCodecError(
      () => decodePayload(encodeTransaction(withTreasury), "tx"),
      CodecErrorCode.UnknownType,
      "tx.essence.outputs[0].type",
    );
    expectCodecError(
      () => transactionFromJson(wire(transactionToJson(withTreasury)), "tx"),
      CodecErrorCode.UnknownType,
      "tx.essence.outputs[0].type",
    );
  });

  it("rejects input and output counts outside 1..128 and duplicate inputs", () => {
    const cases: [(tx: TransactionPayload) => void, CodecErrorCode, string][] = [
      [
        (tx) => {
          tx.essence.inputs = [];
          tx.unlocks = [];
        },
        CodecErrorCode.CountOutOfRange,
        "tx.essence.inputs",
      ],
      [
        (tx) => {
          tx.essence.inputs = Array.from({ length: 129 }, (_, i) => ({
            type: 0,
            transactionId: filled(32, 1),
            transactionOutputIndex: i,
          }));
          tx.unlocks = [];
        },
        CodecErrorCode.CountOutOfRange,
        "tx.essence.inputs",
      ],
      [(tx) => (tx.essence.outputs = []), CodecErrorCode.CountOutOfRange, "tx.essence.outputs"],
      [
        (tx) => (tx.essence.outputs = Array.from({ length: 129 }, () => basic)),
        CodecErrorCode.CountOutOfRange,
        "tx.essence.outputs",
      ],
      [
        (tx) => (tx.essence.inputs[1]!.transactionOutputIndex = 0),
        CodecErrorCode.NotSortedOrUnique,
        "tx.essence.inputs[1]",
      ],
    ];
    for (const [change, code, field] of cases) {
      const tx = baseTransaction();
      change(tx);
      expectCodecError(() => decodePayload(encodeTransaction(tx), "tx"), code, field);
      expectCodecError(() => transactionFromJson(wire(transactionToJson(tx)), "tx"), code, field);
    }
  });

  it("requires exactly one unlock per input (binary and JSON)", () => {
    const tx = baseTransaction();
    tx.unlocks = tx.unlocks.slice(0, 1);
    expectCodecError(() => decodePayload(encodeTransaction(tx), "tx"), CodecErrorCode.CountOutOfRange, "tx.unlocks");
    expectCodecError(
      () => transactionFromJson(wire(transactionToJson(tx)), "tx"),
      CodecErrorCode.CountOutOfRange,
      "tx.unlocks",
    );
  });

  it("admits only tagged data in the essence, filling its frame exactly", () => {
    const tx = baseTransaction();
    const bytes = encodeTransaction(tx);
    const payloadAt = bytes.length - UNLOCKS_LENGTH - (4 + 1 + 2 + 4 + 1);
    const b = bytes.slice();
    new DataView(b.buffer).setUint32(payloadAt, 6, true);
    expectCodecError(() => decodePayload(b, "tx"), CodecErrorCode.UnknownType, "tx.essence.payload.type");
    const json = wire(transactionToJson(tx));
    expectCodecError(
      () => transactionFromJson({ ...json, essence: { ...json.essence, payload: { type: 7 } } }, "tx"),
      CodecErrorCode.UnknownType,
      "tx.essence.payload.type",
    );
    // frame one byte too long: the next byte (unlock count) ends up inside the frame
    const c = bytes.slice();
    new DataView(c.buffer).setUint32(payloadAt - 4, 13, true);
    expectCodecError(() => decodePayload(c, "tx"), CodecErrorCode.TrailingBytes, "tx.essence.payload");
  });

  it("rejects a truncated transaction and trailing bytes", () => {
    const bytes = encodeTransaction(baseTransaction());
    expectCodecError(
      () => decodePayload(bytes.subarray(0, bytes.length - 1), "tx"),
      CodecErrorCode.Truncated,
      "tx.unlocks[1].reference",
    );
    const longer = new Uint8Array(bytes.length + 1);
    longer.set(bytes);
    expectCodecError(() => decodePayload(longer, "tx"), CodecErrorCode.TrailingBytes, "tx");
  });
});

describe("milestone payload", () => {
  it("round-trips with both options, without options, and random ones", () => {
    const plainMs = { ...baseMilestone(), options: [], metadata: new Uint8Array(0) };
    const list = [baseMilestone(), plainMs, ...Array.from({ length: 20 }, (_, i) => randomMilestone(new Rng(700 + i)))];
    for (const m of list) {
      assert.deepEqual(decodePayload(encodeMilestone(m), "milestone"), m);
      assert.deepEqual(milestoneFromJson(wire(milestoneToJson(m)), "milestone"), m);
    }
    const json = wire(milestoneToJson(plainMs));
    assert.equal(json.metadata, "0x");
    assert.deepEqual(json.options, []);
    delete json.metadata;
    delete json.options;
    assert.deepEqual(milestoneFromJson(json, "milestone"), plainMs);
  });

  it("rejects bad signature lists (binary and JSON)", () => {
    const cases: [(m: MilestonePayload) => void, CodecErrorCode, string][] = [
      [(m) => (m.signatures = []), CodecErrorCode.CountOutOfRange, "ms.signatures"],
      [(m) => m.signatures.reverse(), CodecErrorCode.NotSortedOrUnique, "ms.signatures[1].publicKey"],
      [
        (m) => (m.signatures[1]!.publicKey = m.signatures[0]!.publicKey),
        CodecErrorCode.NotSortedOrUnique,
        "ms.signatures[1].publicKey",
      ],
      [(m) => (m.parents = []), CodecErrorCode.CountOutOfRange, "ms.parents"],
      [(m) => m.parents.reverse(), CodecErrorCode.NotSortedOrUnique, "ms.parents[1]"],
      [(m) => m.options.reverse(), CodecErrorCode.NotSortedOrUnique, "ms.options[1]"],
      [(m) => (m.options = [m.options[1]!, m.options[1]!]), CodecErrorCode.NotSortedOrUnique, "ms.options[1]"],
      [
        (m) => ((m.options[0] as ReceiptMilestoneOption).funds = []),
        CodecErrorCode.CountOutOfRange,
        "ms.options[0].funds",
      ],
      [
        (m) => (m.options[0] as ReceiptMilestoneOption).funds.reverse(),
        CodecErrorCode.NotSortedOrUnique,
        "ms.options[0].funds[1].tailTransactionHash",
      ],
      [
        (m) => ((m.options[0] as ReceiptMilestoneOption).funds[0]!.address = { type: 8, aliasId: filled(32, 1) }),
        CodecErrorCode.UnknownType,
        "ms.options[0].funds[0].address.type",
      ],
    ];
    for (const [change, code, field] of cases) {
      const m = baseMilestone();
      change(m);
      expectCodecError(() => decodePayload(encodeMilestone(m), "ms"), code, field);
      expectCodecError(() => milestoneFromJson(wire(milestoneToJson(m)), "ms"), code, field);
    }
  });

  it("rejects unknown option types, a non-boolean final byte and a non-treasury receipt payload", () => {
    const bytes = encodeMilestone(baseMilestone());
    // options start after type 4, index 4, timestamp 4, version 1, previous 32, parents 1+64, roots 64, metadata 2+2
    const optionsAt = 4 + 4 + 4 + 1 + 32 + 1 + 64 + 64 + 2 + 2;
    const unknownOption = bytes.slice();
    unknownOption[optionsAt + 1] = 9;
    expectCodecError(() => decodePayload(unknownOption, "ms"), CodecErrorCode.UnknownType, "ms.options[0].type");
    const badFinal = bytes.slice();
    badFinal[optionsAt + 1 + 1 + 4] = 2;
    expectCodecError(() => decodePayload(badFinal, "ms"), CodecErrorCode.ValueOutOfRange, "ms.options[0].final");
    // the receipt's framed payload starts after 1 + 4 + 1 + 2 + 2 * 90 bytes of the option
    const frameAt = optionsAt + 1 + 1 + 4 + 1 + 2 + 2 * 90;
    const notTreasury = bytes.slice();
    notTreasury[frameAt + 4] = 5;
    expectCodecError(
      () => decodePayload(notTreasury, "ms"),
      CodecErrorCode.UnknownType,
      "ms.options[0].transaction.type",
    );
    const notTreasuryOutput = bytes.slice();
    notTreasuryOutput[frameAt + 4 + 4 + 33] = 3;
    expectCodecError(
      () => decodePayload(notTreasuryOutput, "ms"),
      CodecErrorCode.UnknownType,
      "ms.options[0].transaction.output.type",
    );
    const json = wire(milestoneToJson(baseMilestone()));
    json.options[0].type = 9;
    expectCodecError(() => milestoneFromJson(json, "ms"), CodecErrorCode.UnknownType, "ms.options[0].type");
    const json2 = wire(milestoneToJson(baseMilestone()));
    json2.options[0].transaction.output = { type: 3, amount: "1" };
    expectCodecError(
      () => milestoneFromJson(json2, "ms"),
      CodecErrorCode.UnknownType,
      "ms.options[0].transaction.output.type",
    );
  });

  it("rejects trailing bytes in the milestone and a truncated signature", () => {
    const bytes = encodeMilestone(baseMilestone());
    expectCodecError(
      () => decodePayload(bytes.subarray(0, bytes.length - 3), "ms"),
      CodecErrorCode.Truncated,
      "ms.signatures[1].signature",
    );
    const longer = new Uint8Array(bytes.length + 2);
    longer.set(bytes);
    expectCodecError(() => decodePayload(longer, "ms"), CodecErrorCode.TrailingBytes, "ms");
  });
});

describe("treasury transaction payload", () => {
  it("round-trips on its own and is accepted only where allowed", () => {
    const t = receipt().transaction;
    const bytes = encodePayload(t);
    assert.equal(toHex(bytes.subarray(0, 5)), "0x0400000001");
    assert.deepEqual(decodePayload(bytes), t);
    assert.deepEqual(payloadFromJson(wire(payloadToJson(t)), "p", [4]), t);
    expectCodecError(() => payloadFromJson(wire(payloadToJson(t)), "p"), CodecErrorCode.UnknownType, "p.type");
    const badInput = bytes.slice();
    badInput[4] = 0;
    expectCodecError(() => decodePayload(badInput, "p"), CodecErrorCode.UnknownType, "p.input.type");
  });
});

describe("protocol parameters", () => {
  it("lays out the dev parameters and round-trips random ones, binary and JSON", () => {
    const bytes = encodeProtocolParameters(DEV_PARAMS);
    assert.equal(
      toHex(bytes),
      `0x02${"03"}${toHex(new TextEncoder().encode("dev")).slice(2)}03${toHex(new TextEncoder().encode("tst")).slice(2)}` +
        "64000000" +
        "0f" +
        "64000000010a" +
        "c15d2dd3f7df0900",
    );
    assert.deepEqual(wire(protocolParametersToJson(DEV_PARAMS)), {
      version: 2,
      networkName: "dev",
      bech32Hrp: "tst",
      minPowScore: 100,
      belowMaxDepth: 15,
      rentStructure: { vByteCost: 100, vByteFactorData: 1, vByteFactorKey: 10 },
      tokenSupply: "2779530283277761",
    });
    for (let i = 0; i < 50; i++) {
      const p = randomProtocolParameters(new Rng(i));
      assert.deepEqual(decodeProtocolParameters(encodeProtocolParameters(p)), p);
      assert.deepEqual(protocolParametersFromJson(wire(protocolParametersToJson(p)), "p"), p);
    }
  });

  it("rejects empty or non-ASCII strings, trailing bytes and unknown JSON keys", () => {
    const bytes = encodeProtocolParameters(DEV_PARAMS);
    const emptyName = Uint8Array.of(2, 0, ...bytes.subarray(5));
    expectCodecError(() => decodeProtocolParameters(emptyName, "p"), CodecErrorCode.CountOutOfRange, "p.networkName");
    const nonAscii = bytes.slice();
    nonAscii[2] = 0xc3;
    expectCodecError(() => decodeProtocolParameters(nonAscii, "p"), CodecErrorCode.ValueOutOfRange, "p.networkName");
    expectCodecError(
      () => decodeProtocolParameters(Uint8Array.of(...bytes, 0), "p"),
      CodecErrorCode.TrailingBytes,
      "p",
    );
    expectCodecError(
      () => decodeProtocolParameters(bytes.subarray(0, 16), "p"),
      CodecErrorCode.Truncated,
      "p.rentStructure.vByteCost",
    );
    const json = wire(protocolParametersToJson(DEV_PARAMS));
    expectCodecError(() => protocolParametersFromJson({ ...json, x: 1 }, "p"), CodecErrorCode.InvalidJson, "p.x");
    expectCodecError(
      () => protocolParametersFromJson({ ...json, networkName: "" }, "p"),
      CodecErrorCode.CountOutOfRange,
      "p.networkName",
    );
    expectCodecError(
      () => protocolParametersFromJson({ ...json, bech32Hrp: "é" }, "p"),
      CodecErrorCode.ValueOutOfRange,
      "p.bech32Hrp",
    );
    expectCodecError(
      () => protocolParametersFromJson({ ...json, tokenSupply: 5 }, "p"),
      CodecErrorCode.InvalidJson,
      "p.tokenSupply",
    );
    const params: ProtocolParameters = { ...DEV_PARAMS, networkName: "x".repeat(256) };
    expectCodecError(
      () => encodeProtocolParameters(params),
      CodecErrorCode.CountOutOfRange,
      "protocolParameters.networkName",
    );
  });
});
