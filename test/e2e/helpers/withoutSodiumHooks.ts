/** The resolve hook of withoutSodium.ts: `sodium-native` is not found. */
export async function resolve(
  specifier: string,
  context: unknown,
  next: (specifier: string, context: unknown) => Promise<unknown>,
): Promise<unknown> {
  if (specifier === "sodium-native") {
    throw Object.assign(new Error("Cannot find addon '.' (no binary for this platform, as a test makes it)"), {
      code: "ADDON_NOT_FOUND",
    });
  }
  return next(specifier, context);
}
