import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CodecErrorCode, isCodecError } from "../../../src/codec/errors.js";
import { networkIdFromName } from "../../../src/codec/ids.js";
import {
  checkNativeTokenCount,
  validateBlockSyntax,
  validateMilestoneSyntax,
  validateTaggedDataSyntax,
  validateTransactionSyntax,
  validateUnlocksSyntax,
} from "../../../src/codec/syntactic.js";
import type {
  BasicOutput,
  Block,
  MilestonePayload,
  NativeToken,
  ProtocolParamsMilestoneOption,
  ReceiptMilestoneOption,
  TransactionPayload,
  Unlock,
} from "../../../src/codec/types.js";
import { ed25519KeyPairFromSeed } from "../../../src/crypto/ed25519.js";
import { Rng } from "../../helpers/random.js";
import { BLOCK_KINDS, DEV_PARAMS, randomBlock, randomMilestone } from "../../helpers/randomBlocks.js";

function expectRule(fn: () => unknown, field: string, code: CodecErrorCode = CodecErrorCode.SyntacticRule): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(isCodecError(e), `expected a CodecError, got ${String(e)}`);
    assert.equal(e.code, code, `code (field ${e.data.field}: ${e.message})`);
    assert.equal(e.data.field, field);
    return true;
  });
}

const P = DEV_PARAMS;
const filled = (n: number, b: number): Uint8Array => new Uint8Array(n).fill(b);
const sig = (b: number): Unlock => ({
  type: 0,
  signature: { type: 0, publicKey: filled(32, b), signature: filled(64, b) },
});

function basic(amount = 1_000_000n, nativeTokens: NativeToken[] = []): BasicOutput {
  return {
    type: 3,
    amount,
    nativeTokens,
    unlockConditions: [{ type: 0, address: { type: 0, pubKeyHash: filled(32, 0xaa) } }],
    features: [],
  };
}

function tx(): TransactionPayload {
  return {
    type: 6,
    essence: {
      type: 1,
      networkId: networkIdFromName(P.networkName),
      inputs: [
        { type: 0, transactionId: filled(32, 1), transactionOutputIndex: 0 },
        { type: 0, transactionId: filled(32, 1), transactionOutputIndex: 127 },
        { type: 0, transactionId: filled(32, 2), transactionOutputIndex: 0 },
      ],
      inputsCommitment: filled(32, 9),
      outputs: [basic()],
      payload: { type: 5, tag: filled(64, 1), data: Uint8Array.of(1) },
    },
    unlocks: [sig(1), { type: 1, reference: 0 }, { type: 2, reference: 1 }],
  };
}

function txBlock(t = tx()): Block {
  return { protocolVersion: 2, parents: [filled(32, 1)], payload: t, nonce: 5n };
}

function milestone(): MilestonePayload {
  return {
    type: 7,
    index: 10,
    timestamp: 1,
    protocolVersion: 2,
    previousMilestoneId: filled(32, 1),
    parents: [filled(32, 2)],
    inclusionMerkleRoot: filled(32, 3),
    appliedMerkleRoot: filled(32, 4),
    metadata: filled(8192, 1),
    options: [
      {
        type: 0,
        migratedAt: 1,
        final: false,
        funds: [
          { tailTransactionHash: filled(49, 1), address: { type: 0, pubKeyHash: filled(32, 1) }, deposit: 1_000_000n },
        ],
        transaction: {
          type: 4,
          input: { type: 1, milestoneId: filled(32, 5) },
          output: { type: 2, amount: P.tokenSupply },
        },
      },
      { type: 1, targetMilestoneIndex: 40, protocolVersion: 3, params: filled(8192, 0) },
    ],
    signatures: [{ type: 0, publicKey: filled(32, 6), signature: filled(64, 7) }],
  };
}

describe("syntactic validation: block (TIP-24)", () => {
  it("accepts random valid blocks of every kind", () => {
    for (let i = 0; i < 40; i++) validateBlockSyntax(randomBlock(new Rng(4000 + i), BLOCK_KINDS[i % 4]), P);
  });

  it("block length ≤ 32768", () => {
    const data = new Uint8Array(32768 - 46 - 9);
    const block: Block = {
      protocolVersion: 2,
      parents: [filled(32, 1)],
      payload: { type: 5, tag: new Uint8Array(0), data },
      nonce: 0n,
    };
    validateBlockSyntax(block, P);
    block.payload = { type: 5, tag: new Uint8Array(0), data: new Uint8Array(data.length + 1) };
    expectRule(() => validateBlockSyntax(block, P), "block");
    expectRule(() => validateBlockSyntax(txBlock(), P, { byteLength: 40000 }), "block");
  });

  it("protocol version equals the network's", () => {
    validateBlockSyntax(txBlock(), P);
    expectRule(() => validateBlockSyntax({ ...txBlock(), protocolVersion: 3 }, P), "block.protocolVersion");
  });

  it("parents: 1..8, sorted, unique", () => {
    validateBlockSyntax({ ...txBlock(), parents: [filled(32, 1), filled(32, 2)] }, P);
    expectRule(() => validateBlockSyntax({ ...txBlock(), parents: [] }, P), "block.parents");
    expectRule(
      () => validateBlockSyntax({ ...txBlock(), parents: [filled(32, 2), filled(32, 1)] }, P),
      "block.parents[1]",
    );
    expectRule(
      () => validateBlockSyntax({ ...txBlock(), parents: [filled(32, 2), filled(32, 2)] }, P),
      "block.parents[1]",
    );
  });

  it("payload kinds: tagged data, transaction, milestone only", () => {
    validateBlockSyntax({ ...txBlock(), payload: { type: 5, tag: new Uint8Array(0), data: new Uint8Array(0) } }, P);
    validateBlockSyntax({ ...txBlock(), payload: undefined }, P);
    const treasury = (milestone().options[0] as ReceiptMilestoneOption).transaction;
    expectRule(() => validateBlockSyntax({ ...txBlock(), payload: treasury }, P), "block.payload.type");
  });

  it("a milestone's parents are its block's and its block's nonce is 0", () => {
    const m = milestone();
    const block: Block = { protocolVersion: 2, parents: m.parents, payload: m, nonce: 0n };
    validateBlockSyntax(block, P);
    expectRule(() => validateBlockSyntax({ ...block, nonce: 1n }, P), "block.nonce");
    expectRule(() => validateBlockSyntax({ ...block, parents: [filled(32, 3)] }, P), "block.payload.parents");
  });
});

describe("syntactic validation: tagged data (TIP-23)", () => {
  it("tag ≤ 64 bytes", () => {
    validateTaggedDataSyntax({ type: 5, tag: filled(64, 1), data: new Uint8Array(0) });
    expectRule(() => validateTaggedDataSyntax({ type: 5, tag: filled(65, 1), data: new Uint8Array(0) }, "p"), "p.tag");
    const t = tx();
    t.essence.payload = { type: 5, tag: filled(65, 1), data: new Uint8Array(0) };
    expectRule(() => validateBlockSyntax(txBlock(t), P), "block.payload.essence.payload.tag");
  });
});

describe("syntactic validation: transaction (TIP-20)", () => {
  const check = (t: TransactionPayload): void => validateTransactionSyntax(t, P, "tx");

  it("accepts the base transaction (reference, alias chain, 64-byte tag, index 127)", () => {
    check(tx());
  });

  it("network ID matches the network name", () => {
    const t = tx();
    t.essence.networkId += 1n;
    expectRule(() => check(t), "tx.essence.networkId");
  });

  it("input output index < 128 and inputs unique", () => {
    const t = tx();
    t.essence.inputs[1]!.transactionOutputIndex = 128;
    expectRule(() => check(t), "tx.essence.inputs[1].transactionOutputIndex");
    const u = tx();
    u.essence.inputs[1]!.transactionOutputIndex = 0;
    expectRule(() => check(u), "tx.essence.inputs[1]");
  });

  it("input and output counts 1..128, no treasury output", () => {
    const t = tx();
    t.essence.outputs = [];
    expectRule(() => check(t), "tx.essence.outputs");
    const u = tx();
    u.essence.outputs = Array.from({ length: 129 }, () => basic());
    expectRule(() => check(u), "tx.essence.outputs");
    const v = tx();
    v.essence.inputs = [];
    expectRule(() => check(v), "tx.essence.inputs");
    const w = tx();
    w.essence.outputs = [{ type: 2, amount: 1n }];
    expectRule(() => check(w), "tx.essence.outputs[0].type");
  });

  it("each output valid on its own (outputs engineer's rules)", () => {
    const t = tx();
    t.essence.outputs = [basic(0n)];
    expectRule(() => check(t), "tx.essence.outputs[0].amount");
    const u = tx();
    u.essence.outputs = [basic(1n)];
    expectRule(() => check(u), "tx.essence.outputs[0].amount", CodecErrorCode.StorageDeposit);
  });

  it("amounts sum to at most the token supply", () => {
    const t = tx();
    t.essence.outputs = [basic(P.tokenSupply - 1_000_000n), basic(1_000_000n)];
    check(t);
    t.essence.outputs = [basic(P.tokenSupply), basic(1_000_000n)];
    expectRule(() => check(t), "tx.essence.outputs");
  });

  it("at most 64 distinct native tokens over the outputs", () => {
    const tokens = (from: number, n: number): NativeToken[] =>
      Array.from({ length: n }, (_, i) => ({ id: filled(38, from + i), amount: 1n }));
    const t = tx();
    t.essence.outputs = [basic(10_000_000n, tokens(0, 40)), basic(10_000_000n, tokens(16, 40))];
    check(t); // 56 distinct
    t.essence.outputs = [basic(10_000_000n, tokens(0, 40)), basic(10_000_000n, tokens(40, 25))];
    expectRule(() => check(t), "tx.essence.outputs");
    // the semantic variant counts consumed outputs too
    checkNativeTokenCount([[basic(1n, tokens(0, 32))], [basic(1n, tokens(16, 32))]], "x");
    expectRule(() => checkNativeTokenCount([[basic(1n, tokens(0, 33))], [basic(1n, tokens(33, 32))]], "x"), "x");
  });

  it("one unlock per input", () => {
    const t = tx();
    t.unlocks.pop();
    expectRule(() => check(t), "tx.unlocks");
  });

  it("unlocks: signatures unique, references backwards to a signature, alias/NFT backwards", () => {
    validateUnlocksSyntax(
      [sig(1), sig(2), { type: 1, reference: 1 }, { type: 3, reference: 2 }, { type: 2, reference: 3 }],
      "u",
    );
    expectRule(() => validateUnlocksSyntax([sig(1), sig(1)], "u"), "u[1].signature");
    expectRule(() => validateUnlocksSyntax([sig(1), { type: 1, reference: 1 }], "u"), "u[1].reference");
    expectRule(
      () => validateUnlocksSyntax([sig(1), { type: 2, reference: 0 }, { type: 1, reference: 1 }], "u"),
      "u[2].reference",
    );
    expectRule(() => validateUnlocksSyntax([sig(1), { type: 2, reference: 2 }, sig(2)], "u"), "u[1].reference");
    expectRule(() => validateUnlocksSyntax([sig(1), { type: 3, reference: 1 }], "u"), "u[1].reference");
  });
});

describe("syntactic validation: milestone (TIP-29, TIP-34)", () => {
  const check = (m: MilestonePayload, options = {}): void => validateMilestoneSyntax(m, P, "ms", options);

  it("accepts the base milestone and random ones", () => {
    check(milestone());
    for (let i = 0; i < 20; i++) check(randomMilestone(new Rng(6000 + i)));
  });

  it("index ≥ first milestone index; the first has a zero previous milestone ID", () => {
    expectRule(() => check({ ...milestone(), index: 0 }), "ms.index");
    check({ ...milestone(), index: 1, previousMilestoneId: new Uint8Array(32), options: [] });
    expectRule(() => check({ ...milestone(), index: 1, options: [] }), "ms.previousMilestoneId");
    check({ ...milestone(), index: 6, options: [] }, { firstMilestoneIndex: 5 });
    expectRule(() => check({ ...milestone(), index: 4, options: [] }, { firstMilestoneIndex: 5 }), "ms.index");
  });

  it("metadata ≤ 8192 bytes", () => {
    expectRule(() => check({ ...milestone(), metadata: filled(8193, 1) }), "ms.metadata");
  });

  it("protocol parameters option: index < target ≤ index + 30, params ≤ 8192 bytes", () => {
    const withParams = (o: Partial<ProtocolParamsMilestoneOption>): MilestonePayload => {
      const m = milestone();
      m.options[1] = { ...(m.options[1] as ProtocolParamsMilestoneOption), ...o };
      return m;
    };
    check(withParams({ targetMilestoneIndex: 11 }));
    expectRule(() => check(withParams({ targetMilestoneIndex: 10 })), "ms.options[1].targetMilestoneIndex");
    expectRule(() => check(withParams({ targetMilestoneIndex: 41 })), "ms.options[1].targetMilestoneIndex");
    expectRule(() => check(withParams({ params: filled(8193, 0) })), "ms.options[1].params");
  });

  it("options ascend by type", () => {
    const m = milestone();
    m.options.reverse();
    expectRule(() => check(m), "ms.options[1].type");
  });

  it("receipt: deposits ≥ 1 Mi, Ed25519 addresses, treasury output within the supply", () => {
    const m = milestone();
    const r = m.options[0] as ReceiptMilestoneOption;
    r.funds[0]!.deposit = 999_999n;
    expectRule(() => check(m), "ms.options[0].funds[0].deposit");
    r.funds[0]!.deposit = 1_000_000n;
    r.funds[0]!.address = { type: 16, nftId: filled(32, 1) };
    expectRule(() => check(m), "ms.options[0].funds[0].address.type");
    r.funds[0]!.address = { type: 0, pubKeyHash: filled(32, 1) };
    r.transaction.output.amount = P.tokenSupply + 1n;
    expectRule(() => check(m), "ms.options[0].transaction.output.amount");
  });

  it("signatures: 1..255, sorted by public key, unique", () => {
    expectRule(() => check({ ...milestone(), signatures: [] }), "ms.signatures");
    const two = [
      { type: 0 as const, publicKey: filled(32, 7), signature: filled(64, 7) },
      { type: 0 as const, publicKey: filled(32, 6), signature: filled(64, 7) },
    ];
    expectRule(() => check({ ...milestone(), signatures: two }), "ms.signatures[1].publicKey");
    check({ ...milestone(), signatures: two.reverse() });
  });

  it("with coordinator keys: threshold, applicable keys, valid signatures", () => {
    const keys = [1, 2, 3].map((b) => ed25519KeyPairFromSeed(filled(32, b)));
    const signed = randomMilestone(new Rng(1), undefined, { signers: keys.slice(0, 2) });
    const config = { threshold: 2, publicKeys: keys.map((k) => k.publicKey) };
    check(signed, { keys: config });
    expectRule(() => check(signed, { keys: { ...config, threshold: 3 } }), "ms.signatures");
    expectRule(
      () => check(signed, { keys: { threshold: 1, publicKeys: [signed.signatures[1]!.publicKey] } }),
      "ms.signatures",
    );
    const other = { threshold: 1, publicKeys: [keys[2]!.publicKey, signed.signatures[1]!.publicKey, filled(32, 0)] };
    expectRule(() => check(signed, { keys: other }), "ms.signatures[0].publicKey");
    const forged: MilestonePayload = { ...signed, signatures: signed.signatures.map((s) => ({ ...s })) };
    forged.signatures[1]!.signature = forged.signatures[1]!.signature.map((b, i) => (i === 0 ? b ^ 1 : b));
    expectRule(() => check(forged, { keys: config }), "ms.signatures[1].signature");
  });
});
