import { encodePayload } from "../codec/payload.js";
import { encodeProtocolParameters } from "../codec/protocolParameters.js";
import {
  MilestoneOptionType,
  type MilestonePayload,
  type ProtocolParameters,
  type ProtocolParamsMilestoneOption,
} from "../codec/types.js";
import { WriteStream } from "../codec/writeStream.js";
import { EMPTY_VALUE, encodeOutputRecord } from "../storage/index.js";

/**
 * The TIP-35 local snapshot file format, version 2, little-endian throughout.
 *
 * Full:  version u8 ‖ type u8 (0) ‖ genesis milestone index u32 ‖ target milestone index u32 ‖
 *        target milestone timestamp u32 ‖ target milestone ID [32] ‖ ledger milestone index u32 ‖
 *        treasury output milestone ID [32] ‖ treasury output amount u64 ‖
 *        protocol parameters milestone option length u16 ‖ option ‖ outputs count u64 ‖
 *        milestone diffs count u32 ‖ SEPs count u16 ‖ outputs ‖ milestone diffs ‖ SEPs [32]…
 * Delta: version u8 ‖ type u8 (1) ‖ target milestone index u32 ‖ target milestone timestamp u32 ‖
 *        full snapshot target milestone ID [32] ‖ SEP file offset u64 ‖ milestone diffs count u32 ‖
 *        SEPs count u16 ‖ milestone diffs ‖ SEPs [32]…
 * Output: output ID [34] ‖ block ID [32] ‖ milestone index booked u32 ‖ milestone timestamp
 *        booked u32 ‖ output length u32 ‖ output bytes (TIP-18).
 * Consumed output: output ‖ target (spending) transaction ID [32].
 * Milestone diff: diff length u32 (counting itself, as Hornet writes it) ‖ milestone payload
 *        length u32 ‖ milestone payload (TIP-29, type included) ‖ treasury input (milestone ID
 *        [32] ‖ amount u64, only when the milestone carries a receipt) ‖ created count u32 ‖
 *        outputs ‖ consumed count u32 ‖ consumed outputs.
 *
 * In a full snapshot the outputs are the ledger at the ledger milestone index; the diffs with an
 * index above the target roll it back to the target, newest first. Diffs at or below the target
 * are extra (Hornet writes them for protocol parameter changes) and are never applied. A delta's
 * diffs run forward from the full snapshot's target + 1 to its own target.
 */

export const SNAPSHOT_VERSION = 2;

export enum SnapshotType {
  Full = 0,
  Delta = 1,
}

export const OUTPUT_ID_LENGTH = 34;
export const BLOCK_ID_LENGTH = 32;
export const MILESTONE_ID_LENGTH = 32;
export const TRANSACTION_ID_LENGTH = 32;
/** Output ID, block ID, booked index, booked timestamp, output length. */
export const OUTPUT_ENTRY_FIXED_LENGTH = OUTPUT_ID_LENGTH + BLOCK_ID_LENGTH + 4 + 4 + 4;
/** Byte offsets of the full header's fixed fields. */
export const FULL_HEADER = {
  version: 0,
  type: 1,
  genesisMilestoneIndex: 2,
  targetMilestoneIndex: 6,
  targetMilestoneTimestamp: 10,
  targetMilestoneId: 14,
  ledgerMilestoneIndex: 46,
  treasuryOutputMilestoneId: 50,
  treasuryOutputAmount: 82,
  protocolParamsOptionLength: 90,
  protocolParamsOption: 92,
} as const;
/** Byte offsets of the delta header's fields; it is 56 bytes long. */
export const DELTA_HEADER = {
  version: 0,
  type: 1,
  targetMilestoneIndex: 2,
  targetMilestoneTimestamp: 6,
  fullSnapshotTargetMilestoneId: 10,
  sepFileOffset: 42,
  milestoneDiffCount: 50,
  sepCount: 54,
  length: 56,
} as const;
/** The SEP count is a u16. */
export const MAX_SEP_COUNT = 0xffff;

/** The protocol parameters in force, as the full header carries them (a TIP-29 milestone option). */
export interface SnapshotProtocolParameters {
  /** The milestone option as stored in the file (type 1). */
  option: ProtocolParamsMilestoneOption;
  /** The option's `params` decoded (TIP-22/32). */
  parameters: ProtocolParameters;
}

export interface FullSnapshotHeader {
  type: SnapshotType.Full;
  version: number;
  genesisMilestoneIndex: number;
  targetMilestoneIndex: number;
  targetMilestoneTimestamp: number;
  targetMilestoneId: Uint8Array;
  ledgerMilestoneIndex: number;
  treasuryOutputMilestoneId: Uint8Array;
  treasuryOutputAmount: bigint;
  protocolParameters: SnapshotProtocolParameters;
  outputCount: number;
  milestoneDiffCount: number;
  sepCount: number;
}

export interface DeltaSnapshotHeader {
  type: SnapshotType.Delta;
  version: number;
  targetMilestoneIndex: number;
  targetMilestoneTimestamp: number;
  fullSnapshotTargetMilestoneId: Uint8Array;
  sepFileOffset: number;
  milestoneDiffCount: number;
  sepCount: number;
}

export type SnapshotHeader = FullSnapshotHeader | DeltaSnapshotHeader;

/** One output with where and when it was booked. */
export interface SnapshotOutput {
  outputId: Uint8Array;
  blockId: Uint8Array;
  bookedIndex: number;
  bookedTimestamp: number;
  /** The serialized output (TIP-18). */
  outputBytes: Uint8Array;
}

/** A consumed output and the transaction that spent it. */
export interface SnapshotSpent {
  output: SnapshotOutput;
  transactionId: Uint8Array;
}

/** Treasury input of a milestone with a receipt (TIP-34). */
export interface TreasuryInput {
  milestoneId: Uint8Array;
  amount: bigint;
}

/** What one milestone created and consumed, with its payload. */
export interface MilestoneDiff {
  milestone: MilestonePayload;
  /** The payload bytes as they appear in the file (type included). */
  milestoneBytes: Uint8Array;
  treasuryInput?: TreasuryInput;
  created: SnapshotOutput[];
  consumed: SnapshotSpent[];
}

/** The protocol parameters milestone option bytes: type ‖ target index ‖ version ‖ (u16) params. */
export function encodeProtocolParamsOption(option: ProtocolParamsMilestoneOption): Uint8Array {
  return new WriteStream(8 + option.params.length)
    .u8(MilestoneOptionType.ProtocolParams)
    .u32(option.targetMilestoneIndex)
    .u8(option.protocolVersion)
    .u16(option.params.length)
    .bytes(option.params)
    .finish();
}

/** The option announcing `parameters` from `targetMilestoneIndex` on. */
export function protocolParamsOption(targetMilestoneIndex: number, parameters: ProtocolParameters) {
  const option: ProtocolParamsMilestoneOption = {
    type: MilestoneOptionType.ProtocolParams,
    targetMilestoneIndex,
    protocolVersion: parameters.protocolVersion,
    params: encodeProtocolParameters(parameters),
  };
  return { option, parameters };
}

/**
 * The full header with the three counts as given (the writer patches them at the end, at the
 * offsets `fullHeaderCountOffsets` names).
 */
export function encodeFullHeader(h: Omit<FullSnapshotHeader, "type" | "version">): Uint8Array {
  const option = encodeProtocolParamsOption(h.protocolParameters.option);
  return new WriteStream(120 + option.length)
    .u8(SNAPSHOT_VERSION)
    .u8(SnapshotType.Full)
    .u32(h.genesisMilestoneIndex)
    .u32(h.targetMilestoneIndex)
    .u32(h.targetMilestoneTimestamp)
    .bytes(h.targetMilestoneId)
    .u32(h.ledgerMilestoneIndex)
    .bytes(h.treasuryOutputMilestoneId)
    .u64(h.treasuryOutputAmount)
    .u16(option.length)
    .bytes(option)
    .u64(BigInt(h.outputCount))
    .u32(h.milestoneDiffCount)
    .u16(h.sepCount)
    .finish();
}

/** Offsets of the outputs, diffs and SEPs counts in a full header whose option is `optionLength` bytes. */
export function fullHeaderCountOffsets(optionLength: number) {
  const outputs = FULL_HEADER.protocolParamsOption + optionLength;
  return { outputs, milestoneDiffs: outputs + 8, seps: outputs + 12, end: outputs + 14 };
}

export function encodeDeltaHeader(h: Omit<DeltaSnapshotHeader, "type" | "version">): Uint8Array {
  return new WriteStream(DELTA_HEADER.length)
    .u8(SNAPSHOT_VERSION)
    .u8(SnapshotType.Delta)
    .u32(h.targetMilestoneIndex)
    .u32(h.targetMilestoneTimestamp)
    .bytes(h.fullSnapshotTargetMilestoneId)
    .u64(BigInt(h.sepFileOffset))
    .u32(h.milestoneDiffCount)
    .u16(h.sepCount)
    .finish();
}

/** Appends one output entry. */
export function writeSnapshotOutput(w: WriteStream, o: SnapshotOutput): void {
  w.bytes(o.outputId).bytes(o.blockId).u32(o.bookedIndex).u32(o.bookedTimestamp).u32(o.outputBytes.length);
  w.bytes(o.outputBytes);
}

/**
 * The `Output` bucket record of a snapshot output, unspent: a snapshot carries no creating
 * transactions, so the proof of its ID takes the genesis form (codec/outputIdProof.ts).
 */
export function outputRecordOf(o: SnapshotOutput): Uint8Array {
  const { blockId, bookedIndex, bookedTimestamp, outputBytes } = o;
  return encodeOutputRecord({ blockId, bookedIndex, bookedTimestamp, proof: EMPTY_VALUE, outputBytes });
}

/**
 * The amount of a serialized output: every Stardust output (treasury, basic, alias, foundry,
 * NFT) starts with its type byte and then its u64 amount (TIP-18).
 */
export function amountOfOutputBytes(outputBytes: Uint8Array): bigint {
  return new DataView(outputBytes.buffer, outputBytes.byteOffset + 1, 8).getBigUint64(0, true);
}

/** The serialized milestone diff, its own length first. */
export function encodeMilestoneDiff(d: MilestoneDiff): Uint8Array {
  const payload = d.milestoneBytes.length > 0 ? d.milestoneBytes : encodePayload(d.milestone);
  const w = new WriteStream(256 + payload.length);
  w.u32(0).u32(payload.length).bytes(payload);
  if (d.treasuryInput) w.bytes(d.treasuryInput.milestoneId).u64(d.treasuryInput.amount);
  w.u32(d.created.length);
  for (const o of d.created) writeSnapshotOutput(w, o);
  w.u32(d.consumed.length);
  for (const s of d.consumed) {
    writeSnapshotOutput(w, s.output);
    w.bytes(s.transactionId);
  }
  w.setU32At(0, w.length);
  return w.finish();
}

/** Whether the milestone carries a receipt, so its diff carries a treasury input. */
export function hasReceipt(milestone: MilestonePayload): boolean {
  return milestone.options.some((o) => o.type === MilestoneOptionType.Receipt);
}
