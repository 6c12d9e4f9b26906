import assert from "node:assert/strict";
import { type CodecErrorCode, isCodecError } from "../../../src/codec/errors.js";

/** Asserts that `fn` throws a CodecError of `code` naming `field`. */
export function expectCodecError(fn: () => unknown, code: CodecErrorCode, field: string): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(isCodecError(e), `expected a CodecError, got ${String(e)}`);
    assert.equal(e.code, code, `code (field ${e.data.field}: ${e.message})`);
    assert.equal(e.data.field, field, e.message);
    return true;
  });
}
