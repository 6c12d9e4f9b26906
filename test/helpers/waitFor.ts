/**
 * Polls `fn` every `everyMs` until it returns a value other than `undefined` or `false`, and
 * answers that value. An error thrown by `fn` counts as "not yet" (a node that is starting or
 * restarting refuses connections); the last one is named in the timeout's message.
 */
export async function waitFor<T>(
  fn: () => T | undefined | false | Promise<T | undefined | false>,
  ms: number,
  what: string,
  everyMs = 50,
): Promise<T> {
  const until = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined && v !== false) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() >= until) break;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`timed out after ${ms} ms waiting for ${what}${last ? ` (last error: ${last})` : ""}`);
}
