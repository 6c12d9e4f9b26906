import { type FileHandle, open } from "node:fs/promises";

/**
 * Makes a rename into `dir` durable: the directory's entry is fsynced, best effort (a no-op
 * where directories cannot be opened or fsynced, as on Windows; the rename then stands as the
 * file system keeps it).
 */
export async function syncDirectory(dir: string): Promise<void> {
  let fh: FileHandle | undefined;
  try {
    fh = await open(dir, "r");
    await fh.sync();
  } catch {
    // best effort: not every platform lets a directory be fsynced
  } finally {
    await fh?.close().catch(() => {});
  }
}
