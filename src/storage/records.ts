import { CodecErrorCode, codecError } from "../codec/errors.js";
import { ReadStream } from "../codec/readStream.js";
import { WriteStream } from "../codec/writeStream.js";

/**
 * Byte layouts of the structured values in `buckets.ts`. Each record has an encode and a decode
 * function; decoding a value that does not match its layout throws (a CodecError naming the
 * record field), which callers surface as database corruption. Decoded byte fields are views of
 * the value read from the store (its own buffer), not copies.
 */

/** An empty byte field (an output record without a proof). */
export const EMPTY_VALUE = new Uint8Array(0);

/**
 * The value of a marker entry, whose key alone says it all (Unspent, Unreferenced, Child,
 * AddressUpdate): one zero byte, which no reader looks at. Not an empty value: classic-level
 * copies every key and value it is handed into a native buffer and frees the copy only when it
 * is not empty, so each empty value written leaked about 35 bytes (350 MB over the import of a
 * ledger of 10,000,000 outputs). Databases written before hold empty values there; both read
 * alike.
 */
export const MARKER_VALUE = Uint8Array.of(0);

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

/** The treasury output (TIP-34) in NodeState: the milestone that made it and its amount. */
export interface TreasuryRecord {
  milestoneId: Uint8Array;
  amount: bigint;
}

/** The treasury of a network without migration: no milestone made it, it holds nothing. */
export const EMPTY_TREASURY: TreasuryRecord = Object.freeze({ milestoneId: new Uint8Array(32), amount: 0n });

export function encodeTreasury(t: TreasuryRecord): Uint8Array {
  return new WriteStream(40).bytes(t.milestoneId).u64(t.amount).finish();
}

export function decodeTreasury(bytes: Uint8Array): TreasuryRecord {
  const r = new ReadStream(bytes);
  const t = { milestoneId: r.bytesN(32, "treasury.milestoneId").slice(), amount: r.u64("treasury.amount") };
  r.expectEnd("treasury");
  return t;
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

/** Spent part of an output record: which transaction spent the output, at which milestone. */
export interface SpentRecord {
  transactionId: Uint8Array;
  spentIndex: number;
  spentTimestamp: number;
}

/**
 * Output value (layout in buckets.ts): where and when an output was booked, its spending once a
 * milestone spent it, the proof of its ID and its bytes. Everything a read of one output shows
 * is in this one value, so each read is one point read (the core/v3 read is the hot one).
 */
export interface OutputRecord {
  blockId: Uint8Array;
  bookedIndex: number;
  bookedTimestamp: number;
  /** Set once a milestone spent the output. */
  spent?: SpentRecord;
  /**
   * transactionCommitment[32] ‖ the binary proof tree (codec/outputIdProof.ts), as booked with
   * its transaction; empty when no creating transaction is on record (genesis, snapshot import).
   */
  proof: Uint8Array;
  outputBytes: Uint8Array;
}

/** Offset of the spent flag: after blockId, bookedIndex and bookedTimestamp. */
const SPENT_FLAG_AT = 40;
const SPENT_LENGTH = 40;

export function encodeOutputRecord(o: OutputRecord): Uint8Array {
  const w = new WriteStream(43 + SPENT_LENGTH + o.proof.length + o.outputBytes.length)
    .bytes(o.blockId)
    .u32(o.bookedIndex)
    .u32(o.bookedTimestamp)
    .u8(o.spent ? 1 : 0);
  if (o.spent) w.bytes(o.spent.transactionId).u32(o.spent.spentIndex).u32(o.spent.spentTimestamp);
  return w.u16(o.proof.length).bytes(o.proof).bytes(o.outputBytes).finish();
}

export function decodeOutputRecord(bytes: Uint8Array): OutputRecord {
  const r = new ReadStream(bytes);
  const blockId = r.view(32, "outputRecord.blockId");
  const bookedIndex = r.u32("outputRecord.bookedIndex");
  const bookedTimestamp = r.u32("outputRecord.bookedTimestamp");
  const flag = r.u8("outputRecord.spent");
  let spent: SpentRecord | undefined;
  if (flag === 1) {
    spent = {
      transactionId: r.view(32, "outputRecord.spent.transactionId"),
      spentIndex: r.u32("outputRecord.spent.spentIndex"),
      spentTimestamp: r.u32("outputRecord.spent.spentTimestamp"),
    };
  } else if (flag !== 0) {
    throw codecError(CodecErrorCode.ValueOutOfRange, "outputRecord.spent", `spent flag ${flag}`);
  }
  const proof = r.view(r.u16("outputRecord.proofLength"), "outputRecord.proof");
  const outputBytes = r.view(r.remaining(), "outputRecord.output");
  return spent
    ? { blockId, bookedIndex, bookedTimestamp, spent, proof, outputBytes }
    : { blockId, bookedIndex, bookedTimestamp, proof, outputBytes };
}

/**
 * The stored record of an unspent output, spent by `s`: the same bytes with the spending
 * filled in (a milestone's batch writes it in place of the unspent one).
 */
export function spentOutputRecord(unspent: Uint8Array, s: SpentRecord): Uint8Array {
  if (unspent.length <= SPENT_FLAG_AT || unspent[SPENT_FLAG_AT] !== 0) {
    throw codecError(CodecErrorCode.ValueOutOfRange, "outputRecord.spent", "the record is not of an unspent output");
  }
  return new WriteStream(unspent.length + SPENT_LENGTH)
    .bytes(unspent.subarray(0, SPENT_FLAG_AT))
    .u8(1)
    .bytes(s.transactionId)
    .u32(s.spentIndex)
    .u32(s.spentTimestamp)
    .bytes(unspent.subarray(SPENT_FLAG_AT + 1))
    .finish();
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

/** TransactionBlock value: the block that included an applied transaction, and its output count. */
export interface TransactionBlockRecord {
  blockId: Uint8Array;
  outputCount: number;
}

export function encodeTransactionBlock(t: TransactionBlockRecord): Uint8Array {
  return new WriteStream(34).bytes(t.blockId).u16(t.outputCount).finish();
}

export function decodeTransactionBlock(bytes: Uint8Array): TransactionBlockRecord {
  const r = new ReadStream(bytes);
  const blockId = r.bytesN(32, "transactionBlock.blockId");
  const outputCount = r.u16("transactionBlock.outputCount");
  r.expectEnd("transactionBlock");
  return { blockId, outputCount };
}

/** MilestoneBlock value: a block a milestone referenced, and its payload's type (undefined: none). */
export interface MilestoneBlockRecord {
  blockId: Uint8Array;
  payloadType: number | undefined;
}

/** The stored payload type of a block without a payload. */
const NO_PAYLOAD = 0xffffffff;

export function encodeMilestoneBlock(m: MilestoneBlockRecord): Uint8Array {
  return new WriteStream(36)
    .bytes(m.blockId)
    .u32(m.payloadType ?? NO_PAYLOAD)
    .finish();
}

export function decodeMilestoneBlock(bytes: Uint8Array): MilestoneBlockRecord {
  const r = new ReadStream(bytes);
  const blockId = r.bytesN(32, "milestoneBlock.blockId");
  const type = r.u32("milestoneBlock.payloadType");
  r.expectEnd("milestoneBlock");
  return { blockId, payloadType: type === NO_PAYLOAD ? undefined : type };
}

/** AddressBalance value: total amount u64 ‖ unspent output count u32. */
export interface AddressBalanceRecord {
  total: bigint;
  count: number;
}

export function encodeAddressBalance(b: AddressBalanceRecord): Uint8Array {
  return new WriteStream(12).u64(b.total).u32(b.count).finish();
}

export function decodeAddressBalance(bytes: Uint8Array): AddressBalanceRecord {
  const r = new ReadStream(bytes);
  const v = { total: r.u64("addressBalance.total"), count: r.u32("addressBalance.count") };
  r.expectEnd("addressBalance");
  return v;
}

/**
 * Whose entry an AddressConditional entry is: the output's owner's (an output with a timelock,
 * an expiration or a storage deposit return), or its expiration return address's (an output
 * with an expiration, which that address alone unlocks once it has expired, TIP-18).
 */
export const ConditionalRole = { Owner: 0, ExpirationReturn: 1 } as const;
export type ConditionalRole = (typeof ConditionalRole)[keyof typeof ConditionalRole];

/**
 * AddressConditional value: amount u64 ‖ timelock u32 (0: none) ‖ storage deposit return
 * amount u64 (0: none) ‖ returnsToSelf u8 (1: the storage deposit return's address is the
 * address of the entry's key). The role and the expiration are in the key.
 */
export interface AddressConditionalRecord {
  amount: bigint;
  timelock: number;
  storageReturn: bigint;
  returnsToSelf: boolean;
}

export function encodeAddressConditional(c: AddressConditionalRecord): Uint8Array {
  return new WriteStream(21).u64(c.amount).u32(c.timelock).u64(c.storageReturn).bool(c.returnsToSelf).finish();
}

export function decodeAddressConditional(bytes: Uint8Array): AddressConditionalRecord {
  const r = new ReadStream(bytes);
  const c = {
    amount: r.u64("addressConditional.amount"),
    timelock: r.u32("addressConditional.timelock"),
    storageReturn: r.u64("addressConditional.storageReturn"),
    returnsToSelf: r.bool("addressConditional.returnsToSelf"),
  };
  r.expectEnd("addressConditional");
  return c;
}

/**
 * The value of an index's state marker (IndexerState, AddressBalanceState): version u32 ‖
 * ledgerIndex u32, the ledger the index reflects in the layout of that version.
 */
export interface IndexStateRecord {
  version: number;
  ledgerIndex: number;
}

export function encodeIndexState(s: IndexStateRecord): Uint8Array {
  return new WriteStream(8).u32(s.version).u32(s.ledgerIndex).finish();
}

/** Undefined when the value is not 8 bytes long (a layout older than versioned markers). */
export function decodeIndexState(bytes: Uint8Array, field: string): IndexStateRecord | undefined {
  if (bytes.length !== 8) return undefined;
  const r = new ReadStream(bytes);
  return { version: r.u32(`${field}.version`), ledgerIndex: r.u32(`${field}.ledgerIndex`) };
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
