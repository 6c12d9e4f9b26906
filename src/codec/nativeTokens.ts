import { CodecErrorCode, codecError } from "./errors.js";
import { compareBytes, toHex } from "./hex.js";
import { expectArray, expectHex, expectObject, expectU256Hex, u256ToHex } from "./json.js";
import type { ReadStream } from "./readStream.js";
import type { NativeToken } from "./types.js";
import type { WriteStream } from "./writeStream.js";

/**
 * The native token list every non-treasury output carries (TIP-18 "Native Tokens in Outputs"):
 * a u8 count, then per token its 38-byte token ID (the foundry ID) and a uint256 amount.
 */

/** `Max Native Tokens Count` (TIP-22/TIP-32). */
export const MAX_NATIVE_TOKEN_COUNT = 64;
/** A token ID is a foundry ID: alias address (33) + serial number (4) + token scheme type (1). */
export const NATIVE_TOKEN_ID_LENGTH = 38;

/** TIP-25 JSON form: `id` 0x-hex, `amount` 0x-hex uint256 without leading zeros. */
export interface NativeTokenJson {
  id: string;
  amount: string;
}

function checkCount(count: number, field: string): void {
  if (count > MAX_NATIVE_TOKEN_COUNT) {
    throw codecError(
      CodecErrorCode.CountOutOfRange,
      field,
      `at most ${MAX_NATIVE_TOKEN_COUNT} native tokens, got ${count}`,
    );
  }
}

/** TIP-18: native tokens are sorted by token ID and unique, so each ID must exceed the previous. */
function checkOrder(tokens: NativeToken[], i: number, field: string): void {
  if (i > 0 && compareBytes(tokens[i - 1]!.id, tokens[i]!.id) >= 0) {
    throw codecError(
      CodecErrorCode.NotSortedOrUnique,
      `${field}[${i}].id`,
      "native tokens must be sorted by token ID and unique",
    );
  }
}

/** Writes as given; ordering and count are the decoder's to enforce. */
export function serializeNativeTokens(w: WriteStream, tokens: NativeToken[]): void {
  w.u8(tokens.length);
  for (const t of tokens) {
    w.bytes(t.id);
    w.u256(t.amount);
  }
}

/** Reads the list; `field` is the list's own path, e.g. "basicOutput.nativeTokens". */
export function deserializeNativeTokens(r: ReadStream, field: string): NativeToken[] {
  const count = r.u8(`${field}.count`);
  checkCount(count, field);
  const tokens: NativeToken[] = [];
  for (let i = 0; i < count; i++) {
    const id = r.bytesN(NATIVE_TOKEN_ID_LENGTH, `${field}[${i}].id`);
    const amount = r.u256(`${field}[${i}].amount`);
    tokens.push({ id, amount });
    checkOrder(tokens, i, field);
  }
  return tokens;
}

/** Amounts as 0x-hex without leading zeros, as nodes answer them. */
export function nativeTokensToJson(tokens: NativeToken[]): NativeTokenJson[] {
  return tokens.map((t) => ({ id: toHex(t.id), amount: u256ToHex(t.amount) }));
}

/** Reads an optional JSON list (missing means none) with the same rules as the binary form. */
export function nativeTokensFromJson(json: unknown, field: string): NativeToken[] {
  if (json === undefined) return [];
  const items = expectArray(json, field);
  checkCount(items.length, field);
  const tokens: NativeToken[] = [];
  for (let i = 0; i < items.length; i++) {
    const f = `${field}[${i}]`;
    const obj = expectObject(items[i], f, ["id", "amount"]);
    tokens.push({
      id: expectHex(obj.id, `${f}.id`, NATIVE_TOKEN_ID_LENGTH),
      amount: expectU256Hex(obj.amount, `${f}.amount`),
    });
    checkOrder(tokens, i, field);
  }
  return tokens;
}
