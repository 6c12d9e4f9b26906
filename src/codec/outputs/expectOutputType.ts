import { CodecErrorCode, codecError } from "../errors.js";

/** Fails unless `type` is the output type `expected` (TIP-18), naming `${field}.type` and the kind. */
export function expectOutputType(type: number, expected: number, kind: string, field: string): void {
  if (type !== expected) {
    throw codecError(
      CodecErrorCode.UnknownType,
      `${field}.type`,
      `expected ${kind} output type ${expected}, got ${type}`,
    );
  }
}
