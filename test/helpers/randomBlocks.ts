import { encodeBlock, MAX_BLOCK_LENGTH } from "../../src/codec/block.js";
import { compareBytes } from "../../src/codec/hex.js";
import { computeMilestoneId, networkIdFromName } from "../../src/codec/ids.js";
import { MAX_MIGRATED_FUNDS_COUNT } from "../../src/codec/milestoneOptions.js";
import { encodeOutput } from "../../src/codec/outputs/output.js";
import { encodeProtocolParameters } from "../../src/codec/protocolParameters.js";
import { MAX_MILESTONE_METADATA_LENGTH, MIN_MIGRATED_FUNDS_DEPOSIT } from "../../src/codec/syntacticMilestone.js";
import { MAX_TAG_LENGTH } from "../../src/codec/taggedData.js";
import {
  AddressType,
  type Block,
  type Ed25519Signature,
  EssenceType,
  InputType,
  type MigratedFundsEntry,
  type MilestoneOption,
  MilestoneOptionType,
  type MilestonePayload,
  type Output,
  OutputType,
  PayloadType,
  type ProtocolParameters,
  type ReceiptMilestoneOption,
  SignatureType,
  type TaggedDataPayload,
  type TransactionPayload,
  type Unlock,
  UnlockType,
  type UtxoInput,
} from "../../src/codec/types.js";
import { type Ed25519KeyPair, ed25519Sign } from "../../src/crypto/ed25519.js";
import type { Rng } from "./random.js";
import { DEV_OUTPUT_PARAMS, randomOutput } from "./randomOutputs.js";

/**
 * Seeded generators of VALID blocks and payloads: every object returned decodes from its own
 * bytes and passes `validateBlockSyntax` (or the payload's own syntactic check) under
 * `DEV_PARAMS`. Lengths, counts and kinds are random with their bounds hit now and then, while
 * the whole block stays within 32768 bytes.
 */

/** Dev network protocol parameters (docs/decisions.md, The dev network). */
export const DEV_PARAMS: ProtocolParameters = {
  protocolVersion: 2,
  networkName: "dev",
  bech32Hrp: "tst",
  minPowScore: 100,
  belowMaxDepth: 15,
  rentStructure: DEV_OUTPUT_PARAMS.rentStructure,
  tokenSupply: DEV_OUTPUT_PARAMS.tokenSupply,
};

const MAX_U32 = 0xffffffff;
/** Block bytes outside the payload with 8 parents: version, parents, payload length, nonce. */
const BLOCK_OVERHEAD = 1 + 1 + 8 * 32 + 4 + 8;

export type BlockKind = "none" | "taggedData" | "transaction" | "milestone";
export const BLOCK_KINDS: readonly BlockKind[] = ["none", "taggedData", "transaction", "milestone"];

export interface RandomBlockOptions {
  params?: ProtocolParameters;
  /**
   * Avoid what @iota/iota.js@2.0.0-rc.4 cannot serialize although the TIPs allow it: an empty
   * tagged data tag (it writes the length as a u32), a 64-byte tag (its length check counts the
   * "0x" prefix), empty protocol parameters bytes (its hex
   * writer rejects ""), and a payload-less block or a small milestone with a single parent
   * (its minimum lengths assume two parents). Its decoder reads the first three correctly.
   */
  iotaCompatible?: boolean;
}

// ---------------------------------------------------------------- parts

function u64(rng: Rng): bigint {
  return rng.bool(0.1) ? rng.pick([0n, (1n << 64n) - 1n]) : rng.bigBits(64);
}

/** min..8 distinct block IDs in ascending order. */
export function randomParents(rng: Rng, min = 1): Uint8Array[] {
  const parents: Uint8Array[] = [];
  const n = rng.bool(0.1) ? 8 : rng.int(min, 8);
  while (parents.length < n) parents.push(rng.bytes(32));
  return parents.sort(compareBytes).filter((p, i, all) => i === 0 || compareBytes(all[i - 1]!, p) !== 0);
}

export function randomSignature(rng: Rng): Ed25519Signature {
  return { type: SignatureType.Ed25519, publicKey: rng.bytes(32), signature: rng.bytes(64) };
}

export function randomTaggedData(rng: Rng, maxLength = 4096, options: RandomBlockOptions = {}): TaggedDataPayload {
  const tag = options.iotaCompatible
    ? rng.bytes(rng.length(1, MAX_TAG_LENGTH - 1))
    : rng.bytes(rng.length(0, MAX_TAG_LENGTH));
  const room = Math.max(0, maxLength - 4 - 1 - tag.length - 4);
  return { type: PayloadType.TaggedData, tag, data: rng.bytes(rng.length(0, room)) };
}

/**
 * Unlocks for `n` inputs: a signature first, then signatures, references to an earlier
 * signature unlock, or alias/NFT unlocks pointing at any earlier unlock.
 */
export function randomUnlocks(rng: Rng, n: number): Unlock[] {
  const unlocks: Unlock[] = [];
  const signatureAt: number[] = [];
  for (let i = 0; i < n; i++) {
    const r = rng.float();
    if (i === 0 || r < 0.35) {
      signatureAt.push(i);
      unlocks.push({ type: UnlockType.Signature, signature: randomSignature(rng) });
    } else if (r < 0.7) {
      unlocks.push({ type: UnlockType.Reference, reference: rng.pick(signatureAt) });
    } else {
      unlocks.push({ type: rng.bool() ? UnlockType.Alias : UnlockType.Nft, reference: rng.int(0, i - 1) });
    }
  }
  return unlocks;
}

function randomInputs(rng: Rng, n: number): UtxoInput[] {
  const inputs: UtxoInput[] = [];
  for (let i = 0; i < n; i++) {
    // Random 32-byte transaction IDs never collide in practice, so inputs are unique.
    inputs.push({ type: InputType.Utxo, transactionId: rng.bytes(32), transactionOutputIndex: rng.int(0, 127) });
  }
  return inputs;
}

// ---------------------------------------------------------------- transactions

/**
 * A syntactically valid transaction of at most `maxLength` serialized bytes: 1..128 inputs with
 * matching unlocks, 1..128 outputs from randomOutputs whose amounts sum within the supply and
 * whose native tokens stay within 64 distinct IDs, optionally a tagged data payload.
 */
export function randomTransaction(
  rng: Rng,
  maxLength = MAX_BLOCK_LENGTH - BLOCK_OVERHEAD,
  options: RandomBlockOptions = {},
): TransactionPayload {
  const params = options.params ?? DEV_PARAMS;
  const inputCount = rng.length(1, 128);
  const inputs = randomInputs(rng, inputCount);
  const unlocks = randomUnlocks(rng, inputCount);
  // type, essence head, inputs, commitment, counts, payload length, unlocks (≤ 97 bytes each)
  let budget = maxLength - (4 + 1 + 8 + 2 + inputCount * 35 + 32 + 2 + 4 + 2);
  for (const u of unlocks) budget -= u.type === UnlockType.Signature ? 98 : 3;
  let payload: TaggedDataPayload | undefined;
  if (rng.bool(0.3)) {
    payload = randomTaggedData(rng, Math.min(2048, Math.max(0, budget - 200)), options);
    budget -= 4 + 1 + payload.tag.length + 4 + payload.data.length;
  }
  const outputCount = rng.length(1, 128);
  const maxAmount = params.tokenSupply / BigInt(outputCount);
  const outputs: Output[] = [];
  const tokenIds = new Set<string>();
  for (let attempt = 0; outputs.length < outputCount && attempt < outputCount * 3; attempt++) {
    const o = randomOutput(rng, { params, maxAmount, maxNativeTokens: 64 - tokenIds.size });
    const size = encodeOutput(o).length;
    if (size > budget) continue;
    budget -= size;
    outputs.push(o);
    if (o.type !== OutputType.Treasury) for (const t of o.nativeTokens) tokenIds.add(Buffer.from(t.id).toString("hex"));
  }
  if (outputs.length === 0) {
    // The budget was too tight for the outputs drawn: a bare basic output always fits.
    outputs.push(randomOutput(rng, { params, maxAmount, maxNativeTokens: 0, kinds: [OutputType.Basic] }));
  }
  const essence: TransactionPayload["essence"] = {
    type: EssenceType.Regular,
    networkId: networkIdFromName(params.networkName),
    inputs,
    inputsCommitment: rng.bytes(32),
    outputs,
  };
  if (payload !== undefined) essence.payload = payload;
  return { type: PayloadType.Transaction, essence, unlocks };
}

// ---------------------------------------------------------------- milestones

export function randomProtocolParameters(rng: Rng): ProtocolParameters {
  const ascii = (min: number, max: number): string =>
    String.fromCharCode(...Array.from({ length: rng.length(min, max) }, () => rng.int(0x20, 0x7e)));
  return {
    protocolVersion: rng.int(0, 255),
    networkName: ascii(1, 255),
    bech32Hrp: ascii(1, 83),
    minPowScore: rng.bool(0.1) ? MAX_U32 : rng.int(0, 5000),
    belowMaxDepth: rng.int(0, 255),
    rentStructure: {
      vByteCost: rng.int(0, MAX_U32),
      vByteFactorData: rng.int(0, 255),
      vByteFactorKey: rng.int(0, 255),
    },
    tokenSupply: u64(rng),
  };
}

function randomReceipt(rng: Rng, maxFunds: number, params: ProtocolParameters): ReceiptMilestoneOption {
  const count = Math.max(1, Math.min(maxFunds, rng.length(1, MAX_MIGRATED_FUNDS_COUNT)));
  const hashes: Uint8Array[] = [];
  while (hashes.length < count) hashes.push(rng.bytes(49));
  hashes.sort(compareBytes);
  const maxDeposit = params.tokenSupply / BigInt(count);
  const funds: MigratedFundsEntry[] = hashes.map((tailTransactionHash) => ({
    tailTransactionHash,
    address: { type: AddressType.Ed25519, pubKeyHash: rng.bytes(32) },
    deposit: rng.bool(0.1) ? MIN_MIGRATED_FUNDS_DEPOSIT : rng.bigRange(MIN_MIGRATED_FUNDS_DEPOSIT, maxDeposit),
  }));
  return {
    type: MilestoneOptionType.Receipt,
    migratedAt: rng.int(0, MAX_U32),
    final: rng.bool(),
    funds,
    transaction: {
      type: PayloadType.TreasuryTransaction,
      input: { type: InputType.Treasury, milestoneId: rng.bytes(32) },
      output: { type: OutputType.Treasury, amount: rng.bigRange(0n, params.tokenSupply) },
    },
  };
}

export interface RandomMilestoneOptions extends RandomBlockOptions {
  /** Options to include: "random" (default) draws none, receipt, parameters or both. */
  options?: "none" | "receipt" | "protocolParams" | "both" | "random";
  /** Sign with these keys (sorted by public key) instead of random signature bytes. */
  signers?: readonly Ed25519KeyPair[];
  /** Parents to use (the enclosing block's); random when absent. */
  parents?: Uint8Array[];
}

/** A syntactically valid milestone of at most `maxLength` serialized bytes. */
export function randomMilestone(
  rng: Rng,
  maxLength = MAX_BLOCK_LENGTH - BLOCK_OVERHEAD,
  options: RandomMilestoneOptions = {},
): MilestonePayload {
  const params = options.params ?? DEV_PARAMS;
  const index = rng.bool(0.1) ? rng.pick([1, MAX_U32 - 30]) : rng.int(1, 10_000_000);
  const parents = options.parents ?? randomParents(rng, options.iotaCompatible ? 2 : 1);
  // type, index, timestamp, version, previous ID, parents, roots, metadata length, options count, signatures count
  let budget = maxLength - (4 + 4 + 4 + 1 + 32 + 1 + 32 * parents.length + 64 + 2 + 1 + 1);
  const which = options.options ?? "random";
  const pick = which === "random" ? rng.pick(["none", "receipt", "protocolParams", "both"] as const) : which;
  const milestoneOptions: MilestoneOption[] = [];
  if (pick === "receipt" || pick === "both") {
    // room for at least one signature; each funds entry is 90 bytes
    const maxFunds = Math.floor((budget - 98 - 4 - 4 - 1 - 2 - 4 - 4 - 33 - 9) / 90);
    const receipt = randomReceipt(rng, maxFunds, params);
    milestoneOptions.push(receipt);
    budget -= 1 + 4 + 1 + 2 + receipt.funds.length * 90 + 4 + 4 + 33 + 9;
  }
  if (pick === "protocolParams" || pick === "both") {
    const raw = rng.bool(0.2);
    const params2 = raw
      ? rng.bytes(
          Math.min(
            rng.length(options.iotaCompatible ? 1 : 0, MAX_MILESTONE_METADATA_LENGTH),
            Math.max(1, budget - 200),
          ),
        )
      : encodeProtocolParameters(randomProtocolParameters(rng));
    milestoneOptions.push({
      type: MilestoneOptionType.ProtocolParams,
      targetMilestoneIndex: index + rng.int(1, 30),
      protocolVersion: rng.int(0, 255),
      params: params2,
    });
    budget -= 1 + 4 + 1 + 2 + params2.length;
  }
  const metadata = rng.bytes(Math.min(rng.length(0, MAX_MILESTONE_METADATA_LENGTH), Math.max(0, budget - 98 * 4)));
  budget -= metadata.length;
  const essence = {
    type: PayloadType.Milestone,
    index,
    timestamp: rng.int(0, MAX_U32),
    protocolVersion: params.protocolVersion,
    previousMilestoneId: index === 1 ? new Uint8Array(32) : rng.bytes(32),
    parents,
    inclusionMerkleRoot: rng.bytes(32),
    appliedMerkleRoot: rng.bytes(32),
    metadata,
    options: milestoneOptions,
  } as const;
  let signatures: Ed25519Signature[];
  if (options.signers !== undefined) {
    const message = computeMilestoneId(essence);
    signatures = options.signers.map((k) => ({
      type: SignatureType.Ed25519,
      publicKey: k.publicKey,
      signature: ed25519Sign(k, message),
    }));
  } else {
    const count = Math.max(1, Math.min(rng.length(1, 255), Math.floor(budget / 97)));
    signatures = Array.from({ length: count }, () => randomSignature(rng));
  }
  signatures.sort((a, b) => compareBytes(a.publicKey, b.publicKey));
  return { ...essence, signatures };
}

// ---------------------------------------------------------------- blocks

/** A valid block of the given payload kind (random kind when absent). */
export function randomBlock(rng: Rng, kind?: BlockKind, options: RandomBlockOptions = {}): Block {
  const params = options.params ?? DEV_PARAMS;
  const k = kind ?? rng.pick(BLOCK_KINDS);
  // iota.js rc.4 refuses blocks under 50 bytes and milestones under 265 bytes, which is what
  // a payload-less block or a small milestone with a single parent is.
  const parents = randomParents(rng, (k === "none" || k === "milestone") && options.iotaCompatible ? 2 : 1);
  const room = MAX_BLOCK_LENGTH - (1 + 1 + 32 * parents.length + 4 + 8);
  const block: Block = { protocolVersion: params.protocolVersion, parents, nonce: u64(rng) };
  switch (k) {
    case "taggedData":
      block.payload = randomTaggedData(rng, rng.bool(0.05) ? room : Math.min(room, 4096), options);
      break;
    case "transaction":
      block.payload = randomTransaction(rng, room, options);
      break;
    case "milestone":
      block.payload = randomMilestone(rng, room, { ...options, parents });
      block.nonce = 0n;
      break;
    default:
      break;
  }
  const length = encodeBlock(block).length;
  if (length > MAX_BLOCK_LENGTH) throw new Error(`random ${k} block is ${length} bytes (generator budget bug)`);
  return block;
}
