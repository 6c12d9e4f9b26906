/**
 * The codec module (codec.ts), loaded the first time a page needs it: the dashboard's other
 * pages never download it. A failed load (the node unreachable a moment) is tried again at the
 * next call.
 */
let loading: Promise<typeof import("./codec")> | undefined;

export function loadCodec(): Promise<typeof import("./codec")> {
  loading ??= import("./codec").catch((e: unknown) => {
    loading = undefined;
    throw new Error(`The page's hashing module did not load: ${e instanceof Error ? e.message : String(e)}`);
  });
  return loading;
}
