import { CodecErrorCode, codecError } from "./errors.js";
import { fromHex } from "./hex.js";

/**
 * Strict readers for TIP-25 JSON. Each names the field it reads; objects are checked for
 * unknown keys, so a typo in a submitted block is a 400 with a reason, not silently dropped.
 */

export type JsonObject = Record<string, unknown>;

const MAX_U64 = (1n << 64n) - 1n;
const MAX_U256 = (1n << 256n) - 1n;
const DECIMAL = /^(0|[1-9][0-9]*)$/;

function fail(field: string, reason: string): never {
  throw codecError(CodecErrorCode.InvalidJson, field, reason);
}

/** `json` must be a plain object whose keys are all in `required` or `optional`. */
export function expectObject(
  json: unknown,
  field: string,
  required: readonly string[],
  optional: readonly string[] = [],
): JsonObject {
  if (typeof json !== "object" || json === null || Array.isArray(json)) fail(field, "expected an object");
  const obj = json as JsonObject;
  for (const key of required) if (obj[key] === undefined) fail(`${field}.${key}`, "is required");
  for (const key of Object.keys(obj)) {
    if (!required.includes(key) && !optional.includes(key)) fail(`${field}.${key}`, "unknown field");
  }
  return obj;
}

/** An integer in [min, max] given as a JSON number. */
export function expectInt(json: unknown, field: string, min: number, max: number): number {
  if (typeof json !== "number" || !Number.isInteger(json)) fail(field, "expected an integer");
  if (json < min || json > max) {
    throw codecError(CodecErrorCode.ValueOutOfRange, field, `must be in [${min}, ${max}], got ${json}`);
  }
  return json;
}

export const expectU8 = (json: unknown, field: string): number => expectInt(json, field, 0, 0xff);
export const expectU16 = (json: unknown, field: string): number => expectInt(json, field, 0, 0xffff);
export const expectU32 = (json: unknown, field: string): number => expectInt(json, field, 0, 0xffffffff);

/** A u64 as a decimal string (TIP-25 amounts, nonce, networkId). */
export function expectU64String(json: unknown, field: string): bigint {
  if (typeof json !== "string" || !DECIMAL.test(json)) fail(field, "expected a decimal string");
  const v = BigInt(json);
  if (v > MAX_U64) throw codecError(CodecErrorCode.ValueOutOfRange, field, "exceeds u64");
  return v;
}

/** A uint256 as 0x-prefixed hex of at most 64 digits (TIP-25 native token amounts, token scheme). */
export function expectU256Hex(json: unknown, field: string): bigint {
  if (typeof json !== "string" || !/^0x[0-9a-fA-F]{1,64}$/.test(json))
    fail(field, "expected 0x-prefixed hex of 1..64 digits");
  const v = BigInt(json);
  if (v > MAX_U256) throw codecError(CodecErrorCode.ValueOutOfRange, field, "exceeds uint256");
  return v;
}

/** uint256 to TIP-25 hex: 0x-prefixed, no leading zeros ("0x0" for zero). */
export function u256ToHex(v: bigint): string {
  return `0x${v.toString(16)}`;
}

export function expectArray(json: unknown, field: string): unknown[] {
  if (!Array.isArray(json)) fail(field, "expected an array");
  return json;
}

export function expectString(json: unknown, field: string): string {
  if (typeof json !== "string") fail(field, "expected a string");
  return json;
}

export function expectBool(json: unknown, field: string): boolean {
  if (typeof json !== "boolean") fail(field, "expected a boolean");
  return json;
}

/** 0x-prefixed hex with an exact byte length (or any length when omitted). */
export function expectHex(json: unknown, field: string, length?: number): Uint8Array {
  return fromHex(json, field, length);
}
