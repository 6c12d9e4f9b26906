import { serializeAddressBytes } from "../codec/address.js";
import { aliasIdFromOutputId, computeFoundryId, nftIdFromOutputId } from "../codec/ids.js";
import { ReadStream } from "../codec/readStream.js";
import {
  type Address,
  type Feature,
  FeatureType,
  type Output,
  OutputType,
  type UnlockCondition,
  UnlockConditionType,
} from "../codec/types.js";
import { WriteStream } from "../codec/writeStream.js";

/**
 * What the indexer knows about one unspent output: everything inx-indexer's filters ask about,
 * so a listing decides each candidate from the index entry alone (one LevelDB iterator, one
 * consistent view) without reading the output itself.
 */

/** Output kinds the indexer serves (TIP-18 codes); treasury outputs are not indexed. */
export type IndexedOutputType = 3 | 4 | 5 | 6;

/** What an `IndexerField` entry's value is; the codes are part of the key layout, never reused. */
export const IndexedField = {
  /** Address unlock condition (basic, NFT). */
  Address: 0,
  /** State controller address unlock condition (alias). */
  StateController: 1,
  /** Governor address unlock condition (alias). */
  Governor: 2,
  /** Immutable alias address unlock condition (foundry). */
  ImmutableAlias: 3,
  /** Return address of a storage deposit return unlock condition. */
  StorageDepositReturn: 4,
  /** Return address of an expiration unlock condition. */
  ExpirationReturn: 5,
  /** Sender feature. */
  Sender: 6,
  /** Issuer immutable feature. */
  Issuer: 7,
  /** Tag feature (its raw bytes). */
  Tag: 8,
} as const;
export type IndexedField = (typeof IndexedField)[keyof typeof IndexedField];

export interface FieldValue {
  field: IndexedField;
  /** 33 serialized address bytes, or the tag's bytes. */
  value: Uint8Array;
}

export interface OutputFacts {
  /** Milestone index at which the output was booked. */
  bookedIndex: number;
  nativeTokenCount: number;
  /** Unix time of the expiration unlock condition, when there is one. */
  expirationTime?: number;
  /** Unix time of the timelock unlock condition, when there is one. */
  timelockTime?: number;
  /** Every field value the output carries, in `IndexedField` order. */
  fields: FieldValue[];
}

/** An output with the booking facts the indexer keys it by. */
export interface IndexableOutput {
  outputId: Uint8Array;
  output: Output;
  bookedIndex: number;
  /** Booking milestone timestamp: inx-indexer's `created_at`. */
  bookedTimestamp: number;
}

const addressField = (field: IndexedField, address: Address): FieldValue => ({
  field,
  value: serializeAddressBytes(address),
});

function unlockConditionFields(conditions: readonly UnlockCondition[]): FieldValue[] {
  const out: FieldValue[] = [];
  for (const uc of conditions) {
    switch (uc.type) {
      case UnlockConditionType.Address:
        out.push(addressField(IndexedField.Address, uc.address));
        break;
      case UnlockConditionType.StateControllerAddress:
        out.push(addressField(IndexedField.StateController, uc.address));
        break;
      case UnlockConditionType.GovernorAddress:
        out.push(addressField(IndexedField.Governor, uc.address));
        break;
      case UnlockConditionType.ImmutableAliasAddress:
        out.push(addressField(IndexedField.ImmutableAlias, uc.address));
        break;
      case UnlockConditionType.StorageDepositReturn:
        out.push(addressField(IndexedField.StorageDepositReturn, uc.returnAddress));
        break;
      case UnlockConditionType.Expiration:
        out.push(addressField(IndexedField.ExpirationReturn, uc.returnAddress));
        break;
    }
  }
  return out;
}

function featureFields(features: readonly Feature[], immutableFeatures: readonly Feature[]): FieldValue[] {
  const out: FieldValue[] = [];
  for (const f of features) {
    if (f.type === FeatureType.Sender) out.push(addressField(IndexedField.Sender, f.address));
    if (f.type === FeatureType.Tag) out.push({ field: IndexedField.Tag, value: f.tag });
  }
  // TIP-18: the issuer feature is an immutable feature (alias, NFT)
  for (const f of immutableFeatures) {
    if (f.type === FeatureType.Issuer) out.push(addressField(IndexedField.Issuer, f.address));
  }
  return out;
}

/** The facts of an indexed output kind; undefined for a treasury output. */
export function outputFacts(o: IndexableOutput): OutputFacts | undefined {
  const output = o.output;
  if (output.type === OutputType.Treasury) return undefined;
  const immutable = output.type === OutputType.Basic ? [] : output.immutableFeatures;
  const fields = [...unlockConditionFields(output.unlockConditions), ...featureFields(output.features, immutable)];
  fields.sort((a, b) => a.field - b.field);
  const facts: OutputFacts = { bookedIndex: o.bookedIndex, nativeTokenCount: output.nativeTokens.length, fields };
  for (const uc of output.unlockConditions) {
    if (uc.type === UnlockConditionType.Expiration) facts.expirationTime = uc.unixTime;
    if (uc.type === UnlockConditionType.Timelock) facts.timelockTime = uc.unixTime;
  }
  return facts;
}

/**
 * The chain ID an alias, NFT or foundry output is looked up by: the alias/NFT ID (BLAKE2b-256 of
 * the output ID for one created with a zero ID, TIP-18) or the foundry ID.
 */
export function chainIdOf(o: IndexableOutput): Uint8Array | undefined {
  const output = o.output;
  switch (output.type) {
    case OutputType.Alias:
      return output.aliasId.every((b) => b === 0) ? aliasIdFromOutputId(o.outputId) : output.aliasId;
    case OutputType.Nft:
      return output.nftId.every((b) => b === 0) ? nftIdFromOutputId(o.outputId) : output.nftId;
    case OutputType.Foundry: {
      const uc = output.unlockConditions.find((u) => u.type === UnlockConditionType.ImmutableAliasAddress);
      if (uc?.type !== UnlockConditionType.ImmutableAliasAddress) return undefined;
      return computeFoundryId(uc.address.aliasId, output.serialNumber, output.tokenScheme.type);
    }
    default:
      return undefined;
  }
}

// ---------------------------------------------------------------- record

const HAS_EXPIRATION = 1;
const HAS_TIMELOCK = 2;

/**
 * OutputFacts value: bookedIndex u32 ‖ nativeTokenCount u8 ‖ flags u8 (bit 0 expiration, bit 1
 * timelock) ‖ [expirationTime u32] ‖ [timelockTime u32] ‖ field count u8 ‖ (field u8 ‖ len u8 ‖
 * value)…, integers little-endian like every value of the database.
 */
export function encodeOutputFacts(f: OutputFacts): Uint8Array {
  const w = new WriteStream(64);
  w.u32(f.bookedIndex).u8(f.nativeTokenCount);
  w.u8((f.expirationTime !== undefined ? HAS_EXPIRATION : 0) | (f.timelockTime !== undefined ? HAS_TIMELOCK : 0));
  if (f.expirationTime !== undefined) w.u32(f.expirationTime);
  if (f.timelockTime !== undefined) w.u32(f.timelockTime);
  w.u8(f.fields.length);
  for (const { field, value } of f.fields) w.u8(field).u8(value.length).bytes(value);
  return w.finish();
}

export function decodeOutputFacts(bytes: Uint8Array): OutputFacts {
  const r = new ReadStream(bytes);
  const bookedIndex = r.u32("outputFacts.bookedIndex");
  const nativeTokenCount = r.u8("outputFacts.nativeTokenCount");
  const flags = r.u8("outputFacts.flags");
  const facts: OutputFacts = { bookedIndex, nativeTokenCount, fields: [] };
  if (flags & HAS_EXPIRATION) facts.expirationTime = r.u32("outputFacts.expirationTime");
  if (flags & HAS_TIMELOCK) facts.timelockTime = r.u32("outputFacts.timelockTime");
  const n = r.u8("outputFacts.fieldCount");
  for (let i = 0; i < n; i++) {
    const field = r.u8(`outputFacts.fields[${i}].field`) as IndexedField;
    const len = r.u8(`outputFacts.fields[${i}].length`);
    facts.fields.push({ field, value: r.bytesN(len, `outputFacts.fields[${i}].value`) });
  }
  r.expectEnd("outputFacts");
  return facts;
}
