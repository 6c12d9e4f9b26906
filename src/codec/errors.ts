import { errorGuard, LedgerNodeError } from "../util/ledgerNodeError.js";

/**
 * Codec errors. Every decode or syntactic failure is a `CodecError` carrying a string code
 * and the label of the field it failed on (e.g. "basicOutput.amount"), so the API can answer
 * 400 with a precise `details` reason and tests can assert the code, never a message.
 */
export const CodecErrorCode = {
  /** The input ended before the field could be read. */
  Truncated: "CODEC_TRUNCATED",
  /** Bytes were left after a complete object was read. */
  TrailingBytes: "CODEC_TRAILING_BYTES",
  /** A type discriminator names no known type in that position. */
  UnknownType: "CODEC_UNKNOWN_TYPE",
  /** A count or length is outside the bounds the TIP allows. */
  CountOutOfRange: "CODEC_COUNT_OUT_OF_RANGE",
  /** A value is outside its allowed range (e.g. zero amount, uint256 overflow). */
  ValueOutOfRange: "CODEC_VALUE_OUT_OF_RANGE",
  /** Elements that must be sorted or unique are not. */
  NotSortedOrUnique: "CODEC_NOT_SORTED_OR_UNIQUE",
  /** A JSON field is missing, of the wrong JSON type, or not parseable. */
  InvalidJson: "CODEC_INVALID_JSON",
  /** A hex string is not 0x-prefixed, has odd length, bad digits, or the wrong byte length. */
  InvalidHex: "CODEC_INVALID_HEX",
  /** A syntactic rule of a TIP is broken (a feature not allowed on that output kind, ...). */
  SyntacticRule: "CODEC_SYNTACTIC_RULE",
  /** The output does not hold the storage deposit TIP-19 requires. */
  StorageDeposit: "CODEC_STORAGE_DEPOSIT",
  /** A bech32 string is malformed or carries the wrong human-readable part. */
  InvalidBech32: "CODEC_INVALID_BECH32",
} as const;
export type CodecErrorCode = (typeof CodecErrorCode)[keyof typeof CodecErrorCode];

/** A codec error: `data.field` is the dotted path of the field, e.g. "block.payload.essence.outputs[2].amount". */
export type CodecError = LedgerNodeError<CodecErrorCode, { field: string }>;
export const isCodecError = errorGuard<CodecError>(CodecErrorCode);

/** The error for `field`: its message names the field first. */
export function codecError(code: CodecErrorCode, field: string, reason: string): CodecError {
  return new LedgerNodeError(code, `${field}: ${reason}`, { field });
}
