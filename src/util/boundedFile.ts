import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { open } from "node:fs/promises";

/**
 * Reading a file an operator names (a key, a config, a network file) without trusting it to be
 * one: opened non-blocking, so a FIFO does not wait for a writer; refused when it is no regular
 * file (a directory, a device such as /dev/zero) or larger than `maxBytes`, before its content
 * is read. A refusal is the caller's error, built by `refuse` from the reason in words (the
 * caller names the file); the system's own (a missing file) pass through.
 */

/** A file of settings (`--config`, a network file, `network.json`): a few KB; more is not one. */
export const MAX_SETTINGS_FILE_BYTES = 1024 * 1024;

/** A regular file of at most `maxBytes`, as UTF-8 text. */
export async function readBoundedFile(
  path: string,
  maxBytes: number,
  refuse: (reason: string) => Error,
): Promise<string> {
  const fh = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const st = await fh.stat();
    checkRegular(st.isFile(), st.size, maxBytes, refuse);
    const buf = Buffer.alloc(maxBytes + 1);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    if (bytesRead > maxBytes) throw refuse(`more than ${maxBytes} bytes`);
    return buf.subarray(0, bytesRead).toString("utf8");
  } finally {
    await fh.close();
  }
}

/** `readBoundedFile`, synchronously (the command-line parser reads its config file so). */
export function readBoundedFileSync(path: string, maxBytes: number, refuse: (reason: string) => Error): string {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const st = fstatSync(fd);
    checkRegular(st.isFile(), st.size, maxBytes, refuse);
    const buf = Buffer.alloc(maxBytes + 1);
    const bytesRead = readSync(fd, buf, 0, buf.length, 0);
    if (bytesRead > maxBytes) throw refuse(`more than ${maxBytes} bytes`);
    return buf.subarray(0, bytesRead).toString("utf8");
  } finally {
    closeSync(fd);
  }
}

function checkRegular(isFile: boolean, size: number, maxBytes: number, refuse: (reason: string) => Error): void {
  if (!isFile) throw refuse("not a regular file");
  if (size > maxBytes) throw refuse(`${size} bytes, at most ${maxBytes} are read`);
}
