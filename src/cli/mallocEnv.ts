/**
 * The glibc malloc settings the node is launched with (`npm start`, `npm run bench`, the tests'
 * node processes), as environment variables: glibc reads them once, before the first
 * allocation, so a running process cannot set them for itself (docs/performance.md, "Memory
 * while growing").
 *
 * - `MALLOC_ARENA_MAX=2`: by default every thread that allocates (LevelDB's compaction thread,
 *   libuv's four workers, V8's platform threads, the verify worker) may get an arena of its
 *   own, up to eight per core, and memory freed in one serves only the threads on it; at
 *   150,000 blocks of bench scale the threads' arenas held 187 MB.
 * - `MALLOC_MMAP_THRESHOLD_=131072`: allocations of 128 KiB and more (a milestone's LevelDB
 *   batch as it grows, large Buffers) get pages of their own, handed back to the system when
 *   freed. Without it glibc raises the threshold to the largest such block freed (up to
 *   32 MiB), after which these blocks come from the arena and the holes they leave between
 *   long-lived small allocations keep it from shrinking. Setting it also fixes the threshold
 *   at which free memory at an arena's top is returned (128 KiB).
 *
 * A variable the operator set already is left as it is. Other C libraries (musl) ignore both.
 */
export const MALLOC_ENV: Readonly<Record<string, string>> = {
  MALLOC_ARENA_MAX: "2",
  MALLOC_MMAP_THRESHOLD_: "131072",
};

/** `env` with the malloc settings added where it does not set them already. */
export function withMallocEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...MALLOC_ENV, ...env };
}

/** Whether this process runs on glibc, the C library the settings are for. */
export function onGlibc(): boolean {
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  return report?.header?.glibcVersionRuntime !== undefined;
}

/** Whether this process was launched with every malloc setting (by us or by the operator). */
export function mallocEnvApplied(env: NodeJS.ProcessEnv = process.env): boolean {
  return Object.keys(MALLOC_ENV).every((name) => env[name] !== undefined);
}
