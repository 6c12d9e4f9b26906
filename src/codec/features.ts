import { type AddressJson, addressFromJson, addressToJson, deserializeAddress, serializeAddress } from "./address.js";
import { CodecErrorCode, codecError } from "./errors.js";
import { toHex } from "./hex.js";
import { expectArray, expectHex, expectObject, expectU8 } from "./json.js";
import type { ReadStream } from "./readStream.js";
import { type Feature, FeatureType } from "./types.js";
import { checkTypedListCount, checkTypedListElement, type TypedListRules } from "./unlockConditions.js";
import type { WriteStream } from "./writeStream.js";

/**
 * Features and immutable features (TIP-18 "Features"). Like unlock conditions, each output kind
 * admits a fixed set of types, each at most once, sorted ascending by type code. The length
 * bounds of metadata and tag are structural and checked while decoding.
 */

/** `Max Metadata Length` (TIP-22/TIP-32); also bounds an alias output's state metadata. */
export const MAX_METADATA_LENGTH = 8192;
/** `Max Tag Length` (TIP-18 Tag Feature). */
export const MAX_TAG_LENGTH = 64;

const rules = (owner: string, allowed: number[]): TypedListRules => ({ owner, allowed, required: [] });

/** TIP-18 Basic Output features: Sender, Metadata, Tag. */
export const BASIC_FEATURES = rules("basic output", [FeatureType.Sender, FeatureType.Metadata, FeatureType.Tag]);
/** TIP-18 Alias Output features: Sender, Metadata. */
export const ALIAS_FEATURES = rules("alias output", [FeatureType.Sender, FeatureType.Metadata]);
/** TIP-18 Alias Output immutable features: Issuer, Metadata. */
export const ALIAS_IMMUTABLE_FEATURES = rules("alias output's immutable features", [
  FeatureType.Issuer,
  FeatureType.Metadata,
]);
/** TIP-18 Foundry Output features: Metadata. */
export const FOUNDRY_FEATURES = rules("foundry output", [FeatureType.Metadata]);
/** TIP-18 Foundry Output immutable features: Metadata. */
export const FOUNDRY_IMMUTABLE_FEATURES = rules("foundry output's immutable features", [FeatureType.Metadata]);
/** TIP-18 NFT Output features: Sender, Metadata, Tag. */
export const NFT_FEATURES = rules("NFT output", [FeatureType.Sender, FeatureType.Metadata, FeatureType.Tag]);
/** TIP-18 NFT Output immutable features: Issuer, Metadata. */
export const NFT_IMMUTABLE_FEATURES = rules("NFT output's immutable features", [
  FeatureType.Issuer,
  FeatureType.Metadata,
]);

const isFeatureType = (t: number): boolean => t >= 0 && t <= FeatureType.Tag;

function checkLength(length: number, max: number, field: string): void {
  if (length < 1 || length > max) {
    throw codecError(CodecErrorCode.CountOutOfRange, field, `length must be in [1, ${max}], got ${length}`);
  }
}

// ---------------------------------------------------------------- binary

/** Type byte, then an address, (u16)metadata or (u8)tag. */
export function serializeFeature(w: WriteStream, feature: Feature): void {
  w.u8(feature.type);
  switch (feature.type) {
    case FeatureType.Sender:
    case FeatureType.Issuer:
      serializeAddress(w, feature.address);
      return;
    case FeatureType.Metadata:
      w.u16(feature.data.length);
      w.bytes(feature.data);
      return;
    case FeatureType.Tag:
      w.u8(feature.tag.length);
      w.bytes(feature.tag);
      return;
  }
}

/** u8 count, then each feature; writes as given, the decoder enforces the rules. */
export function serializeFeatures(w: WriteStream, features: Feature[]): void {
  w.u8(features.length);
  for (const f of features) serializeFeature(w, f);
}

function deserializeFeatureBody(r: ReadStream, type: number, field: string): Feature {
  switch (type) {
    case FeatureType.Sender:
      return { type, address: deserializeAddress(r, `${field}.address`) };
    case FeatureType.Issuer:
      return { type, address: deserializeAddress(r, `${field}.address`) };
    case FeatureType.Metadata: {
      const length = r.u16(`${field}.data.length`);
      checkLength(length, MAX_METADATA_LENGTH, `${field}.data`);
      return { type, data: r.bytesN(length, `${field}.data`) };
    }
    case FeatureType.Tag: {
      const length = r.u8(`${field}.tag.length`);
      checkLength(length, MAX_TAG_LENGTH, `${field}.tag`);
      return { type, tag: r.bytesN(length, `${field}.tag`) };
    }
    default:
      throw codecError(CodecErrorCode.UnknownType, `${field}.type`, `unknown feature type ${type}`);
  }
}

/** Reads a feature list under `rules`; `field` is the list's path, e.g. "aliasOutput.immutableFeatures". */
export function deserializeFeatures(r: ReadStream, field: string, rules: TypedListRules): Feature[] {
  const count = r.u8(`${field}.count`);
  checkTypedListCount(count, rules, field);
  const out: Feature[] = [];
  for (let i = 0; i < count; i++) {
    const f = `${field}[${i}]`;
    const type = r.u8(`${f}.type`);
    checkTypedListElement(type, out[i - 1]?.type, rules, isFeatureType, "feature", `${f}.type`);
    out.push(deserializeFeatureBody(r, type, f));
  }
  return out;
}

// ---------------------------------------------------------------- JSON

/** TIP-25 JSON form of a feature. */
export type FeatureJson =
  | { type: 0; address: AddressJson }
  | { type: 1; address: AddressJson }
  | { type: 2; data: string }
  | { type: 3; tag: string };

/** Metadata and tag bytes as 0x-hex, addresses as TIP-25 objects. */
export function featureToJson(feature: Feature): FeatureJson {
  switch (feature.type) {
    case FeatureType.Sender:
    case FeatureType.Issuer:
      return { type: feature.type, address: addressToJson(feature.address) };
    case FeatureType.Metadata:
      return { type: feature.type, data: toHex(feature.data) };
    case FeatureType.Tag:
      return { type: feature.type, tag: toHex(feature.tag) };
  }
}

/** Maps `featureToJson` over a list. */
export function featuresToJson(features: Feature[]): FeatureJson[] {
  return features.map(featureToJson);
}

function featureBodyFromJson(json: unknown, type: number, field: string): Feature {
  switch (type) {
    case FeatureType.Sender:
    case FeatureType.Issuer: {
      const o = expectObject(json, field, ["type", "address"]);
      return { type, address: addressFromJson(o.address, `${field}.address`) };
    }
    case FeatureType.Metadata: {
      const o = expectObject(json, field, ["type", "data"]);
      const data = expectHex(o.data, `${field}.data`);
      checkLength(data.length, MAX_METADATA_LENGTH, `${field}.data`);
      return { type, data };
    }
    case FeatureType.Tag: {
      const o = expectObject(json, field, ["type", "tag"]);
      const tag = expectHex(o.tag, `${field}.tag`);
      checkLength(tag.length, MAX_TAG_LENGTH, `${field}.tag`);
      return { type, tag };
    }
    default:
      throw codecError(CodecErrorCode.UnknownType, `${field}.type`, `unknown feature type ${type}`);
  }
}

/** Reads an optional JSON feature list (missing means none) under the same rules as the binary form. */
export function featuresFromJson(json: unknown, field: string, rules: TypedListRules): Feature[] {
  if (json === undefined) return [];
  const items = expectArray(json, field);
  checkTypedListCount(items.length, rules, field);
  const out: Feature[] = [];
  for (let i = 0; i < items.length; i++) {
    const f = `${field}[${i}]`;
    const head = expectObject(items[i], f, ["type"], ["address", "data", "tag"]);
    const type = expectU8(head.type, `${f}.type`);
    checkTypedListElement(type, out[i - 1]?.type, rules, isFeatureType, "feature", `${f}.type`);
    out.push(featureBodyFromJson(items[i], type, f));
  }
  return out;
}

/** The feature of `type` in a list, if present. */
export function findFeature<T extends Feature["type"]>(
  features: readonly Feature[],
  type: T,
): Extract<Feature, { type: T }> | undefined {
  return features.find((f) => f.type === type) as Extract<Feature, { type: T }> | undefined;
}
