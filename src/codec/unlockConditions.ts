import { type AddressJson, addressFromJson, addressToJson, deserializeAddress, serializeAddress } from "./address.js";
import { CodecErrorCode, codecError } from "./errors.js";
import { expectArray, expectObject, expectU8, expectU32, expectU64String } from "./json.js";
import type { ReadStream } from "./readStream.js";
import { type Address, AddressType, type AliasAddress, type UnlockCondition, UnlockConditionType } from "./types.js";
import type { WriteStream } from "./writeStream.js";

/**
 * Unlock conditions (TIP-18 "Unlock Conditions"). Each output kind admits a fixed set of types,
 * each at most once, sorted ascending by type code; some are mandatory. Those structural rules
 * are checked while decoding (binary and JSON alike); value rules (non-zero unix times, return
 * amounts) belong to `validateOutput`.
 */

/**
 * Which element types a typed list (unlock conditions, features, immutable features) admits for
 * one output kind, and which must be present. `allowed` is ascending, so its length is also the
 * list's maximum count.
 */
export interface TypedListRules {
  /** Human name of the list's owner for error reasons, e.g. "basic output". */
  readonly owner: string;
  readonly allowed: readonly number[];
  readonly required: readonly number[];
}

/** TIP-18 Basic Output: Address (mandatory), Storage Deposit Return, Timelock, Expiration. */
export const BASIC_UNLOCK_CONDITIONS: TypedListRules = {
  owner: "basic output",
  allowed: [
    UnlockConditionType.Address,
    UnlockConditionType.StorageDepositReturn,
    UnlockConditionType.Timelock,
    UnlockConditionType.Expiration,
  ],
  required: [UnlockConditionType.Address],
};
/** TIP-18 Alias Output: exactly a State Controller Address and a Governor Address condition. */
export const ALIAS_UNLOCK_CONDITIONS: TypedListRules = {
  owner: "alias output",
  allowed: [UnlockConditionType.StateControllerAddress, UnlockConditionType.GovernorAddress],
  required: [UnlockConditionType.StateControllerAddress, UnlockConditionType.GovernorAddress],
};
/** TIP-18 Foundry Output: exactly one Immutable Alias Address condition. */
export const FOUNDRY_UNLOCK_CONDITIONS: TypedListRules = {
  owner: "foundry output",
  allowed: [UnlockConditionType.ImmutableAliasAddress],
  required: [UnlockConditionType.ImmutableAliasAddress],
};
/** TIP-18 NFT Output: the same set as a basic output. */
export const NFT_UNLOCK_CONDITIONS: TypedListRules = { ...BASIC_UNLOCK_CONDITIONS, owner: "NFT output" };

/** Fails unless the list's count fits the rules: at least the mandatory types, at most all allowed ones. */
export function checkTypedListCount(count: number, rules: TypedListRules, field: string): void {
  if (count < rules.required.length || count > rules.allowed.length) {
    throw codecError(
      CodecErrorCode.CountOutOfRange,
      field,
      `a ${rules.owner} holds ${rules.required.length}..${rules.allowed.length} entries here, got ${count}`,
    );
  }
}

/**
 * Checks a list element's type against the rules: known at all (`known`), allowed for this
 * output kind, and strictly greater than the previous element's type (sorted, each at most once).
 */
export function checkTypedListElement(
  type: number,
  previous: number | undefined,
  rules: TypedListRules,
  known: (type: number) => boolean,
  what: string,
  field: string,
): void {
  if (!known(type)) throw codecError(CodecErrorCode.UnknownType, field, `unknown ${what} type ${type}`);
  if (!rules.allowed.includes(type)) {
    throw codecError(CodecErrorCode.SyntacticRule, field, `${what} type ${type} is not allowed in a ${rules.owner}`);
  }
  if (previous !== undefined && type <= previous) {
    throw codecError(
      CodecErrorCode.NotSortedOrUnique,
      field,
      `${what}s must be sorted ascending by type, each at most once (type ${type} after ${previous})`,
    );
  }
}

/** Fails when a mandatory type is missing from a complete list. */
export function checkTypedListRequired(
  list: readonly { type: number }[],
  rules: TypedListRules,
  what: string,
  field: string,
): void {
  for (const req of rules.required) {
    if (!list.some((e) => e.type === req)) {
      throw codecError(CodecErrorCode.SyntacticRule, field, `a ${rules.owner} requires a ${what} of type ${req}`);
    }
  }
}

const isUnlockConditionType = (t: number): boolean => t >= 0 && t <= UnlockConditionType.ImmutableAliasAddress;

// ---------------------------------------------------------------- binary

/** Type byte, then the fields in TIP-18 order. */
export function serializeUnlockCondition(w: WriteStream, uc: UnlockCondition): void {
  w.u8(uc.type);
  switch (uc.type) {
    case UnlockConditionType.Address:
    case UnlockConditionType.StateControllerAddress:
    case UnlockConditionType.GovernorAddress:
    case UnlockConditionType.ImmutableAliasAddress:
      serializeAddress(w, uc.address);
      return;
    case UnlockConditionType.StorageDepositReturn:
      serializeAddress(w, uc.returnAddress);
      w.u64(uc.amount);
      return;
    case UnlockConditionType.Timelock:
      w.u32(uc.unixTime);
      return;
    case UnlockConditionType.Expiration:
      serializeAddress(w, uc.returnAddress);
      w.u32(uc.unixTime);
      return;
  }
}

/** u8 count, then each condition; writes as given, the decoder enforces the rules. */
export function serializeUnlockConditions(w: WriteStream, ucs: UnlockCondition[]): void {
  w.u8(ucs.length);
  for (const uc of ucs) serializeUnlockCondition(w, uc);
}

/** TIP-18: the Immutable Alias Address condition holds an alias address only. */
function expectAliasAddress(address: Address, field: string): AliasAddress {
  if (address.type !== AddressType.Alias) {
    throw codecError(
      CodecErrorCode.SyntacticRule,
      `${field}.type`,
      `an immutable alias address unlock condition needs an alias address, got type ${address.type}`,
    );
  }
  return address;
}

/** Reads the body of an unlock condition whose type byte was already read and checked. */
function deserializeUnlockConditionBody(r: ReadStream, type: number, field: string): UnlockCondition {
  switch (type) {
    case UnlockConditionType.Address:
      return { type, address: deserializeAddress(r, `${field}.address`) };
    case UnlockConditionType.StorageDepositReturn: {
      const returnAddress = deserializeAddress(r, `${field}.returnAddress`);
      return { type, returnAddress, amount: r.u64(`${field}.amount`) };
    }
    case UnlockConditionType.Timelock:
      return { type, unixTime: r.u32(`${field}.unixTime`) };
    case UnlockConditionType.Expiration: {
      const returnAddress = deserializeAddress(r, `${field}.returnAddress`);
      return { type, returnAddress, unixTime: r.u32(`${field}.unixTime`) };
    }
    case UnlockConditionType.StateControllerAddress:
      return { type, address: deserializeAddress(r, `${field}.address`) };
    case UnlockConditionType.GovernorAddress:
      return { type, address: deserializeAddress(r, `${field}.address`) };
    case UnlockConditionType.ImmutableAliasAddress:
      return { type, address: expectAliasAddress(deserializeAddress(r, `${field}.address`), `${field}.address`) };
    default:
      throw codecError(CodecErrorCode.UnknownType, `${field}.type`, `unknown unlock condition type ${type}`);
  }
}

/** Reads an unlock condition list under `rules`; `field` is the list's path, e.g. "nftOutput.unlockConditions". */
export function deserializeUnlockConditions(r: ReadStream, field: string, rules: TypedListRules): UnlockCondition[] {
  const count = r.u8(`${field}.count`);
  checkTypedListCount(count, rules, field);
  const out: UnlockCondition[] = [];
  for (let i = 0; i < count; i++) {
    const f = `${field}[${i}]`;
    const type = r.u8(`${f}.type`);
    checkTypedListElement(type, out[i - 1]?.type, rules, isUnlockConditionType, "unlock condition", `${f}.type`);
    out.push(deserializeUnlockConditionBody(r, type, f));
  }
  checkTypedListRequired(out, rules, "unlock condition", field);
  return out;
}

// ---------------------------------------------------------------- JSON

/** TIP-25 JSON form of an unlock condition. */
export type UnlockConditionJson =
  | { type: 0; address: AddressJson }
  | { type: 1; returnAddress: AddressJson; amount: string }
  | { type: 2; unixTime: number }
  | { type: 3; returnAddress: AddressJson; unixTime: number }
  | { type: 4; address: AddressJson }
  | { type: 5; address: AddressJson }
  | { type: 6; address: AddressJson };

/** u64 amounts as decimal strings, unix times as numbers, addresses as TIP-25 objects. */
export function unlockConditionToJson(uc: UnlockCondition): UnlockConditionJson {
  switch (uc.type) {
    case UnlockConditionType.Address:
    case UnlockConditionType.StateControllerAddress:
    case UnlockConditionType.GovernorAddress:
    case UnlockConditionType.ImmutableAliasAddress:
      return { type: uc.type, address: addressToJson(uc.address) };
    case UnlockConditionType.StorageDepositReturn:
      return { type: uc.type, returnAddress: addressToJson(uc.returnAddress), amount: uc.amount.toString() };
    case UnlockConditionType.Timelock:
      return { type: uc.type, unixTime: uc.unixTime };
    case UnlockConditionType.Expiration:
      return { type: uc.type, returnAddress: addressToJson(uc.returnAddress), unixTime: uc.unixTime };
  }
}

/** Maps `unlockConditionToJson` over a list. */
export function unlockConditionsToJson(ucs: UnlockCondition[]): UnlockConditionJson[] {
  return ucs.map(unlockConditionToJson);
}

/** Reads the body of a JSON unlock condition whose `type` was already checked. */
function unlockConditionBodyFromJson(json: unknown, type: number, field: string): UnlockCondition {
  switch (type) {
    case UnlockConditionType.Address:
    case UnlockConditionType.StateControllerAddress:
    case UnlockConditionType.GovernorAddress: {
      const o = expectObject(json, field, ["type", "address"]);
      return { type, address: addressFromJson(o.address, `${field}.address`) };
    }
    case UnlockConditionType.ImmutableAliasAddress: {
      const o = expectObject(json, field, ["type", "address"]);
      const address = expectAliasAddress(addressFromJson(o.address, `${field}.address`), `${field}.address`);
      return { type, address };
    }
    case UnlockConditionType.StorageDepositReturn: {
      const o = expectObject(json, field, ["type", "returnAddress", "amount"]);
      const returnAddress = addressFromJson(o.returnAddress, `${field}.returnAddress`);
      return { type, returnAddress, amount: expectU64String(o.amount, `${field}.amount`) };
    }
    case UnlockConditionType.Timelock: {
      const o = expectObject(json, field, ["type", "unixTime"]);
      return { type, unixTime: expectU32(o.unixTime, `${field}.unixTime`) };
    }
    case UnlockConditionType.Expiration: {
      const o = expectObject(json, field, ["type", "returnAddress", "unixTime"]);
      const returnAddress = addressFromJson(o.returnAddress, `${field}.returnAddress`);
      return { type, returnAddress, unixTime: expectU32(o.unixTime, `${field}.unixTime`) };
    }
    default:
      throw codecError(CodecErrorCode.UnknownType, `${field}.type`, `unknown unlock condition type ${type}`);
  }
}

/** Reads a JSON unlock condition list under the same rules as the binary form. */
export function unlockConditionsFromJson(json: unknown, field: string, rules: TypedListRules): UnlockCondition[] {
  const items = expectArray(json, field);
  checkTypedListCount(items.length, rules, field);
  const out: UnlockCondition[] = [];
  for (let i = 0; i < items.length; i++) {
    const f = `${field}[${i}]`;
    const head = expectObject(items[i], f, ["type"], ["address", "returnAddress", "amount", "unixTime"]);
    const type = expectU8(head.type, `${f}.type`);
    checkTypedListElement(type, out[i - 1]?.type, rules, isUnlockConditionType, "unlock condition", `${f}.type`);
    out.push(unlockConditionBodyFromJson(items[i], type, f));
  }
  checkTypedListRequired(out, rules, "unlock condition", field);
  return out;
}

/** The unlock condition of `type` in a list, if present. */
export function findUnlockCondition<T extends UnlockCondition["type"]>(
  ucs: readonly UnlockCondition[],
  type: T,
): Extract<UnlockCondition, { type: T }> | undefined {
  return ucs.find((u) => u.type === type) as Extract<UnlockCondition, { type: T }> | undefined;
}
