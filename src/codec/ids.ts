import { blake2b256 } from "../crypto/blake2b.js";
import { encodeBlock } from "./block.js";
import { CodecErrorCode, codecError } from "./errors.js";
import { fromHex, toHex } from "./hex.js";
import { milestoneEssenceBytes } from "./milestone.js";
import { encodeOutput } from "./outputs/output.js";
import { encodeTransaction } from "./transaction.js";
import { encodeTransactionEssence } from "./transactionEssence.js";
import {
  AddressType,
  type Block,
  InputType,
  type MilestoneEssence,
  type Output,
  type RegularTransactionEssence,
  type TransactionPayload,
  UnlockType,
  type UtxoInput,
} from "./types.js";

/**
 * Identifiers of the Stardust protocol, each a BLAKE2b-256 of some serialized object
 * (TIP-18/20/24/29), plus the hex forms used at the JSON edge.
 */

export { milestoneEssenceBytes };

export const ID_LENGTH = 32;
/** Output ID: transaction ID ‖ u16 LE output index (TIP-20). */
export const OUTPUT_ID_LENGTH = 34;
/** Foundry ID = native token ID: alias address (33) ‖ u32 serial number ‖ u8 token scheme type (TIP-18). */
export const FOUNDRY_ID_LENGTH = 38;

// ---------------------------------------------------------------- block, transaction, milestone

/** Block ID: BLAKE2b-256 of the whole serialized block (TIP-24). */
export function blockIdFromBytes(blockBytes: Uint8Array): Uint8Array {
  return blake2b256(blockBytes);
}

export function computeBlockId(block: Block): Uint8Array {
  return blake2b256(encodeBlock(block));
}

export function computeTransactionId(tx: TransactionPayload): Uint8Array {
  return blake2b256(encodeTransaction(tx));
}

/** What every signature unlock of a transaction signs: BLAKE2b-256 of the serialized essence (TIP-20). */
export function essenceSigningHash(essence: RegularTransactionEssence): Uint8Array {
  return blake2b256(encodeTransactionEssence(essence));
}

/**
 * Milestone ID: BLAKE2b-256 of the milestone essence, i.e. the payload without its type and
 * signatures (TIP-29). It is also the message each milestone signature signs.
 */
export function computeMilestoneId(milestone: MilestoneEssence): Uint8Array {
  return blake2b256(milestoneEssenceBytes(milestone));
}

/**
 * Inputs commitment (TIP-20): BLAKE2b-256 over the concatenated BLAKE2b-256 hashes of the
 * serialized consumed outputs, in input order.
 */
export function inputsCommitment(consumedOutputs: readonly Output[]): Uint8Array {
  return inputsCommitmentFromBytes(consumedOutputs.map(encodeOutput));
}

/** The same commitment from the consumed outputs' serialized bytes (the ledger stores them). */
export function inputsCommitmentFromBytes(consumedOutputBytes: readonly Uint8Array[]): Uint8Array {
  return blake2b256(...consumedOutputBytes.map((b) => blake2b256(b)));
}

/**
 * Transaction ID and essence signing hash straight from a transaction payload's bytes: the ID
 * is BLAKE2b-256 of the whole payload (TIP-20), the signing hash BLAKE2b-256 of the essence,
 * which runs from after the u32 payload type to before the unlocks (u16 count, then 98 bytes
 * per signature unlock and 3 per reference/alias/NFT unlock). Saves re-encoding a payload that
 * arrived as bytes.
 */
export function transactionHashesFromBytes(
  tx: TransactionPayload,
  payloadBytes: Uint8Array,
): { transactionId: Uint8Array; signingHash: Uint8Array } {
  let unlocksLength = 2;
  for (const u of tx.unlocks) unlocksLength += u.type === UnlockType.Signature ? 98 : 3;
  return {
    transactionId: blake2b256(payloadBytes),
    signingHash: blake2b256(payloadBytes.subarray(4, payloadBytes.length - unlocksLength)),
  };
}

// ---------------------------------------------------------------- network

const networkIds = new Map<string, bigint>();

/** Network ID (TIP-20): the first 8 bytes of BLAKE2b-256(network name) as a u64 little-endian. */
export function networkIdFromName(networkName: string): bigint {
  let id = networkIds.get(networkName);
  if (id === undefined) {
    const h = blake2b256(new TextEncoder().encode(networkName));
    id = new DataView(h.buffer, h.byteOffset, 8).getBigUint64(0, true);
    networkIds.set(networkName, id);
  }
  return id;
}

// ---------------------------------------------------------------- outputs and chain IDs

/** Output ID bytes: transaction ID ‖ output index as u16 LE. */
export function outputIdFromParts(transactionId: Uint8Array, outputIndex: number): Uint8Array {
  if (transactionId.length !== ID_LENGTH) {
    throw codecError(CodecErrorCode.ValueOutOfRange, "outputId.transactionId", "must be 32 bytes");
  }
  if (!Number.isInteger(outputIndex) || outputIndex < 0 || outputIndex > 0xffff) {
    throw codecError(CodecErrorCode.ValueOutOfRange, "outputId.outputIndex", "must be a u16");
  }
  const out = new Uint8Array(OUTPUT_ID_LENGTH);
  out.set(transactionId);
  out[32] = outputIndex & 0xff;
  out[33] = outputIndex >> 8;
  return out;
}

/** The output ID a UTXO input references. */
export function outputIdOfInput(input: UtxoInput): Uint8Array {
  return outputIdFromParts(input.transactionId, input.transactionOutputIndex);
}

/** Splits 34 output ID bytes into transaction ID and index. */
export function splitOutputId(id: Uint8Array): { transactionId: Uint8Array; outputIndex: number } {
  if (id.length !== OUTPUT_ID_LENGTH) throw codecError(CodecErrorCode.ValueOutOfRange, "outputId", "must be 34 bytes");
  return { transactionId: id.slice(0, ID_LENGTH), outputIndex: outputIndexOf(id) };
}

/** The output index of an output ID: the u16 LE after the transaction ID (TIP-20). */
export function outputIndexOf(id: Uint8Array): number {
  return id[ID_LENGTH]! | (id[ID_LENGTH + 1]! << 8);
}

/** The UTXO input that spends this output. */
export function utxoInputOfOutputId(id: Uint8Array): UtxoInput {
  const { transactionId, outputIndex } = splitOutputId(id);
  return { type: InputType.Utxo, transactionId, transactionOutputIndex: outputIndex };
}

/** 0x-hex of the 34 bytes, as the API shows output IDs. */
export function formatOutputId(transactionId: Uint8Array, outputIndex: number): string {
  return toHex(outputIdFromParts(transactionId, outputIndex));
}

/** Parses a 0x-hex output ID (34 bytes); failures are InvalidHex naming `field`. */
export function parseOutputId(hex: unknown, field = "outputId"): Uint8Array {
  return fromHex(hex, field, OUTPUT_ID_LENGTH);
}

/** Parses a 0x-hex 32-byte ID (block, transaction, milestone, alias, NFT ID). */
export function parseId(hex: unknown, field: string): Uint8Array {
  return fromHex(hex, field, ID_LENGTH);
}

export const parseBlockId = (hex: unknown, field = "blockId"): Uint8Array => parseId(hex, field);

/** Alias ID of an alias created with a zero ID: BLAKE2b-256 of the creating output's ID (TIP-18). */
export function aliasIdFromOutputId(id: Uint8Array): Uint8Array {
  return blake2b256(id);
}

/** NFT ID of an NFT created with a zero ID: BLAKE2b-256 of the creating output's ID (TIP-18). */
export function nftIdFromOutputId(id: Uint8Array): Uint8Array {
  return blake2b256(id);
}

/**
 * Foundry ID (TIP-18): the controlling alias address (type byte 8 ‖ alias ID) ‖ serial number
 * u32 LE ‖ token scheme type u8. The ID of the native token a foundry mints is the same 38 bytes.
 */
export function computeFoundryId(aliasId: Uint8Array, serialNumber: number, tokenSchemeType: number): Uint8Array {
  if (aliasId.length !== ID_LENGTH)
    throw codecError(CodecErrorCode.ValueOutOfRange, "foundryId.aliasId", "must be 32 bytes");
  const out = new Uint8Array(FOUNDRY_ID_LENGTH);
  out[0] = AddressType.Alias;
  out.set(aliasId, 1);
  new DataView(out.buffer).setUint32(33, serialNumber, true);
  out[37] = tokenSchemeType;
  return out;
}
