import { ReadStream } from "../codec/readStream.js";
import { WriteStream } from "../codec/writeStream.js";

/**
 * Byte layouts of the structured values in `buckets.ts`. Each record has an encode and a decode
 * function; decoding a value that does not match its layout throws (a CodecError naming the
 * record field), which callers surface as database corruption. Decoded byte fields are views of
 * the value read from the store (its own buffer), not copies.
 */

/** The value of marker keys, whose key alone says it all (Unreferenced, Unspent, Child…). */
export const EMPTY_VALUE = new Uint8Array(0);

/** Ledger inclusion state of a referenced block (TIP-25 `ledgerInclusionState`). */
export const InclusionState = { NoTransaction: 0, Included: 1, Conflicting: 2 } as const;
export type InclusionState = (typeof InclusionState)[keyof typeof InclusionState];

/**
 * BlockMetadata value: flags u8 (bit 0 solid, bit 1 carries a milestone payload) ‖
 * referencedByMilestoneIndex u32 (0 = not referenced yet) ‖ whiteFlagIndex u32 ‖
 * inclusionState u8 ‖ conflictReason u8 ‖ arrivalTime u32 (unix seconds).
 */
export interface BlockMetadataRecord {
  solid: boolean;
  milestone: boolean;
  referencedByMilestoneIndex: number;
  whiteFlagIndex: number;
  inclusionState: InclusionState;
  conflictReason: number;
  arrivalTime: number;
}

export function encodeBlockMetadata(m: BlockMetadataRecord): Uint8Array {
  return new WriteStream(15)
    .u8((m.solid ? 1 : 0) | (m.milestone ? 2 : 0))
    .u32(m.referencedByMilestoneIndex)
    .u32(m.whiteFlagIndex)
    .u8(m.inclusionState)
    .u8(m.conflictReason)
    .u32(m.arrivalTime)
    .finish();
}

export function decodeBlockMetadata(bytes: Uint8Array): BlockMetadataRecord {
  const r = new ReadStream(bytes);
  const flags = r.u8("blockMetadata.flags");
  const m: BlockMetadataRecord = {
    solid: (flags & 1) !== 0,
    milestone: (flags & 2) !== 0,
    referencedByMilestoneIndex: r.u32("blockMetadata.referencedByMilestoneIndex"),
    whiteFlagIndex: r.u32("blockMetadata.whiteFlagIndex"),
    inclusionState: r.u8("blockMetadata.inclusionState") as InclusionState,
    conflictReason: r.u8("blockMetadata.conflictReason"),
    arrivalTime: r.u32("blockMetadata.arrivalTime"),
  };
  r.expectEnd("blockMetadata");
  return m;
}

/** MilestoneByIndex value. */
export interface MilestoneRecord {
  milestoneId: Uint8Array;
  blockId: Uint8Array;
  timestamp: number;
}

export function encodeMilestoneRecord(m: MilestoneRecord): Uint8Array {
  return new WriteStream(68).bytes(m.milestoneId).bytes(m.blockId).u32(m.timestamp).finish();
}

export function decodeMilestoneRecord(bytes: Uint8Array): MilestoneRecord {
  const r = new ReadStream(bytes);
  const m = {
    milestoneId: r.view(32, "milestone.milestoneId"),
    blockId: r.view(32, "milestone.blockId"),
    timestamp: r.u32("milestone.timestamp"),
  };
  r.expectEnd("milestone");
  return m;
}

/** Output value: where and when an output was booked, and its bytes. */
export interface OutputRecord {
  blockId: Uint8Array;
  bookedIndex: number;
  bookedTimestamp: number;
  outputBytes: Uint8Array;
}

export function encodeOutputRecord(o: OutputRecord): Uint8Array {
  return new WriteStream(40 + o.outputBytes.length)
    .bytes(o.blockId)
    .u32(o.bookedIndex)
    .u32(o.bookedTimestamp)
    .bytes(o.outputBytes)
    .finish();
}

export function decodeOutputRecord(bytes: Uint8Array): OutputRecord {
  const r = new ReadStream(bytes);
  const blockId = r.view(32, "outputRecord.blockId");
  const bookedIndex = r.u32("outputRecord.bookedIndex");
  const bookedTimestamp = r.u32("outputRecord.bookedTimestamp");
  return { blockId, bookedIndex, bookedTimestamp, outputBytes: r.view(r.remaining(), "outputRecord.output") };
}

/** Spent value: which transaction spent an output, at which milestone. */
export interface SpentRecord {
  transactionId: Uint8Array;
  spentIndex: number;
  spentTimestamp: number;
}

export function encodeSpentRecord(s: SpentRecord): Uint8Array {
  return new WriteStream(40).bytes(s.transactionId).u32(s.spentIndex).u32(s.spentTimestamp).finish();
}

export function decodeSpentRecord(bytes: Uint8Array): SpentRecord {
  const r = new ReadStream(bytes);
  const s = {
    transactionId: r.view(32, "spent.transactionId"),
    spentIndex: r.u32("spent.spentIndex"),
    spentTimestamp: r.u32("spent.spentTimestamp"),
  };
  r.expectEnd("spent");
  return s;
}

/** LedgerDiff value: the output IDs a milestone created and consumed, in white-flag order. */
export interface LedgerDiffRecord {
  created: Uint8Array[];
  consumed: Uint8Array[];
}

export function encodeLedgerDiff(d: LedgerDiffRecord): Uint8Array {
  const w = new WriteStream(8 + 34 * (d.created.length + d.consumed.length));
  w.u32(d.created.length);
  for (const id of d.created) w.bytes(id);
  w.u32(d.consumed.length);
  for (const id of d.consumed) w.bytes(id);
  return w.finish();
}

export function decodeLedgerDiff(bytes: Uint8Array): LedgerDiffRecord {
  const r = new ReadStream(bytes);
  const read = (label: string) => {
    const n = r.u32(`${label}.count`);
    const ids = new Array<Uint8Array>(n);
    for (let i = 0; i < n; i++) ids[i] = r.view(34, label);
    return ids;
  };
  const d = { created: read("ledgerDiff.created"), consumed: read("ledgerDiff.consumed") };
  r.expectEnd("ledgerDiff");
  return d;
}

/** TransactionOutputs value: what the TIP-45-style output ID proof needs after siblings are spent. */
export interface TransactionOutputsRecord {
  transactionCommitment: Uint8Array;
  leafHashes: Uint8Array[];
}

export function encodeTransactionOutputs(t: TransactionOutputsRecord): Uint8Array {
  const w = new WriteStream(34 + 32 * t.leafHashes.length).bytes(t.transactionCommitment).u16(t.leafHashes.length);
  for (const h of t.leafHashes) w.bytes(h);
  return w.finish();
}

export function decodeTransactionOutputs(bytes: Uint8Array): TransactionOutputsRecord {
  const r = new ReadStream(bytes);
  const transactionCommitment = r.view(32, "transactionOutputs.transactionCommitment");
  const n = r.u16("transactionOutputs.count");
  const leafHashes = new Array<Uint8Array>(n);
  for (let i = 0; i < n; i++) leafHashes[i] = r.view(32, "transactionOutputs.leafHashes");
  r.expectEnd("transactionOutputs");
  return { transactionCommitment, leafHashes };
}

/** u32 LE helpers for single-number values (NodeState entries, MilestoneById, SolidEntryPoint). */
export function encodeU32(v: number): Uint8Array {
  return new WriteStream(4).u32(v).finish();
}

export function decodeU32(bytes: Uint8Array, field: string): number {
  const r = new ReadStream(bytes);
  const v = r.u32(field);
  r.expectEnd(field);
  return v;
}
