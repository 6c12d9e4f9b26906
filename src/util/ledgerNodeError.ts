/**
 * The one error class below the API (Lodestar's `LodestarError<T>`): every layer throws it with
 * a string code from its own enum (`src/<layer>/errors.ts`, one comment per code) and, where a
 * caller needs more than the message, typed data. Callers and tests branch on the code, never
 * on the message; the API maps every code to a status in one table (`src/api/errors.ts`).
 */
export class LedgerNodeError<C extends string = string, D = undefined> extends Error {
  constructor(
    readonly code: C,
    message: string,
    /** What a caller needs beyond the message (e.g. the field a codec error is about). */
    readonly data: D = undefined as D,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "LedgerNodeError";
  }
}

/** A code enum: its values are the codes (`StorageErrorCode`, `SnapshotErrorCode`, ...). */
type CodeEnum = Record<string, string>;

/** Whether `e` is an error with a code of `codes` (and, when given, exactly `code`). */
export function isLedgerNodeError<E extends CodeEnum>(
  e: unknown,
  codes: E,
  code?: E[keyof E],
): e is LedgerNodeError<E[keyof E], unknown> {
  if (!(e instanceof LedgerNodeError)) return false;
  return code !== undefined ? e.code === code : Object.values(codes).includes(e.code);
}

/**
 * The guard of a layer's error type `Err`, whose codes are the values of `codes`: each
 * `src/<layer>/errors.ts` is its enum, its error type and
 * `export const isXError = errorGuard<XError>(XErrorCode)`. The guard answers whether `e` is an
 * `Err` (and, when given, of exactly `code`), e.g. `isCodecError(e, CodecErrorCode.Truncated)`.
 */
export function errorGuard<Err extends LedgerNodeError<string, unknown>>(
  codes: Record<string, Err["code"]>,
): (e: unknown, code?: Err["code"]) => e is Err {
  const all = new Set<string>(Object.values(codes));
  return (e, code): e is Err =>
    e instanceof LedgerNodeError && (code !== undefined ? e.code === code : all.has(e.code));
}
