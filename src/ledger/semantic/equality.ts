import { addressEquals } from "../../codec/address.js";
import { bytesEqual } from "../../codec/hex.js";
import { type Feature, FeatureType, type NativeToken } from "../../codec/types.js";

/** Value equality of two features. */
export function featureEquals(a: Feature, b: Feature): boolean {
  switch (a.type) {
    case FeatureType.Sender:
    case FeatureType.Issuer:
      return b.type === a.type && addressEquals(a.address, b.address);
    case FeatureType.Metadata:
      return b.type === FeatureType.Metadata && bytesEqual(a.data, b.data);
    case FeatureType.Tag:
      return b.type === FeatureType.Tag && bytesEqual(a.tag, b.tag);
  }
}

/** Equality of two feature lists (both sorted by type, as syntactic rules require). */
export function featuresEqual(a: readonly Feature[], b: readonly Feature[]): boolean {
  return a.length === b.length && a.every((f, i) => featureEquals(f, b[i]!));
}

/** The feature of `type` is present in both lists with the same value, or absent from both. */
export function featureUnchanged(type: Feature["type"], a: readonly Feature[], b: readonly Feature[]): boolean {
  const x = a.find((f) => f.type === type);
  const y = b.find((f) => f.type === type);
  return x === undefined || y === undefined ? x === y : featureEquals(x, y);
}

/** Equality of two native token lists (both sorted by token ID). */
export function nativeTokensEqual(a: readonly NativeToken[], b: readonly NativeToken[]): boolean {
  return a.length === b.length && a.every((t, i) => bytesEqual(t.id, b[i]!.id) && t.amount === b[i]!.amount);
}
