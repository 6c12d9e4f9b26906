import { CodecErrorCode, codecError } from "./errors.js";
import { expectObject, expectU8, expectU256Hex, u256ToHex } from "./json.js";
import type { ReadStream } from "./readStream.js";
import { type TokenScheme, TokenSchemeType } from "./types.js";
import type { WriteStream } from "./writeStream.js";

/**
 * Foundry token schemes (TIP-18 Foundry Output). Only the Simple Token Scheme (type 0) exists:
 * minted, melted and maximum supply, each a uint256. Its value rules (melted ≤ minted, ...) are
 * checked by `validateOutput`.
 */

/** TIP-25 JSON form; the uint256 values are 0x-hex without leading zeros. */
export interface SimpleTokenSchemeJson {
  type: 0;
  mintedTokens: string;
  meltedTokens: string;
  maximumSupply: string;
}
/** TIP-25 JSON form of any token scheme (only the simple one exists). */
export type TokenSchemeJson = SimpleTokenSchemeJson;

/** u8 type, then minted, melted and maximum supply as uint256 little-endian. */
export function serializeTokenScheme(w: WriteStream, scheme: TokenScheme): void {
  w.u8(scheme.type);
  w.u256(scheme.mintedTokens);
  w.u256(scheme.meltedTokens);
  w.u256(scheme.maximumSupply);
}

function unknownScheme(type: number, field: string): never {
  throw codecError(CodecErrorCode.UnknownType, `${field}.type`, `unknown token scheme type ${type}`);
}

/** A type other than 0 fails with UnknownType on `${field}.type`. */
export function deserializeTokenScheme(r: ReadStream, field: string): TokenScheme {
  const type = r.u8(`${field}.type`);
  if (type !== TokenSchemeType.Simple) unknownScheme(type, field);
  return {
    type,
    mintedTokens: r.u256(`${field}.mintedTokens`),
    meltedTokens: r.u256(`${field}.meltedTokens`),
    maximumSupply: r.u256(`${field}.maximumSupply`),
  };
}

/** uint256 values as 0x-hex without leading zeros. */
export function tokenSchemeToJson(scheme: TokenScheme): TokenSchemeJson {
  return {
    type: scheme.type,
    mintedTokens: u256ToHex(scheme.mintedTokens),
    meltedTokens: u256ToHex(scheme.meltedTokens),
    maximumSupply: u256ToHex(scheme.maximumSupply),
  };
}

/** Rejects the same things as the binary decoder, plus unknown keys. */
export function tokenSchemeFromJson(json: unknown, field: string): TokenScheme {
  const head = expectObject(json, field, ["type"], ["mintedTokens", "meltedTokens", "maximumSupply"]);
  const type = expectU8(head.type, `${field}.type`);
  if (type !== TokenSchemeType.Simple) unknownScheme(type, field);
  const o = expectObject(json, field, ["type", "mintedTokens", "meltedTokens", "maximumSupply"]);
  return {
    type,
    mintedTokens: expectU256Hex(o.mintedTokens, `${field}.mintedTokens`),
    meltedTokens: expectU256Hex(o.meltedTokens, `${field}.meltedTokens`),
    maximumSupply: expectU256Hex(o.maximumSupply, `${field}.maximumSupply`),
  };
}
