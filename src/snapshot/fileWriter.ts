import { createHash, randomBytes } from "node:crypto";
import { createReadStream } from "node:fs";
import { type FileHandle, mkdir, open, rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { syncDirectory } from "../util/syncDirectory.js";
import { isSnapshotError, type SnapshotError, SnapshotErrorCode } from "./errors.js";

/**
 * Writes a file the crash-safe way: everything goes to a temporary name in the same directory,
 * buffered in large chunks; fixed-size header fields are patched in place at the end; then the
 * file is fsynced, renamed over the final name and the directory fsynced. A crash at any point
 * leaves either the previous file or the complete new one under the final name, never a file
 * that looks complete but is not. `abort` removes the temporary file.
 *
 * Beside the file goes `<name>.sha256` (the `sha256sum` format), written after the rename: a
 * reader that finds it checks every byte, which the TIP-35 format itself cannot do.
 */

const CHUNK = 1 << 20;

export const CHECKSUM_SUFFIX = ".sha256";

export class SnapshotFileWriter {
  private buf: Buffer = Buffer.allocUnsafe(CHUNK);
  /** The buffer of the last finished write, for reuse. */
  private spare: Buffer | undefined;
  private inFlight: Promise<void> = Promise.resolve();
  private used = 0;
  private flushed = 0;
  private done = false;

  private constructor(
    readonly finalPath: string,
    readonly tempPath: string,
    private readonly fh: FileHandle,
  ) {}

  /** Opens a fresh temporary file beside `finalPath` (creating the directory if needed). */
  static async create(finalPath: string): Promise<SnapshotFileWriter> {
    const tempPath = join(
      dirname(finalPath),
      `.${basename(finalPath)}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`,
    );
    try {
      await mkdir(dirname(finalPath), { recursive: true });
      return new SnapshotFileWriter(finalPath, tempPath, await open(tempPath, "wx"));
    } catch (e) {
      throw writeFailed(`cannot create ${tempPath}`, e);
    }
  }

  /** Bytes written so far (the offset the next write lands at). */
  get position(): number {
    return this.flushed + this.used;
  }

  /** Appends bytes (copied into the buffer; flushed when it fills). */
  async write(bytes: Uint8Array): Promise<void> {
    const pending = this.append(bytes);
    if (pending) await pending;
  }

  /**
   * Appends bytes; returns a promise only when the buffer had to be flushed first (the hot
   * path of millions of small entries stays synchronous).
   */
  append(bytes: Uint8Array): Promise<void> | undefined {
    if (bytes.length <= this.buf.length - this.used) {
      this.buf.set(bytes, this.used);
      this.used += bytes.length;
      return undefined;
    }
    return this.flush().then(async () => {
      if (bytes.length > this.buf.length) {
        await this.writeAll(bytes, this.flushed);
        this.flushed += bytes.length;
        return;
      }
      this.buf.set(bytes, this.used);
      this.used += bytes.length;
    });
  }

  /**
   * Appends one TIP-35 output entry made from an `Output` record (storage/records.ts) and the
   * output it holds: the ID, the record's first 40 bytes (block ID ‖ booked index ‖ booked
   * timestamp, the entry's own layout), the output length, the output. Returns a promise only
   * when the buffer had to be flushed first.
   */
  appendOutputEntry(outputId: Uint8Array, record: Uint8Array, output: Uint8Array): Promise<void> | undefined {
    const size = 34 + 40 + 4 + output.length;
    if (size > this.buf.length - this.used) {
      return this.flush().then(() => {
        this.appendOutputEntry(outputId, record, output);
      });
    }
    const at = this.used;
    this.buf.set(outputId, at);
    this.buf.set(record.subarray(0, 40), at + 34);
    this.buf.writeUInt32LE(output.length, at + 74);
    this.buf.set(output, at + 78);
    this.used += size;
    return undefined;
  }

  /** Overwrites bytes already written at `offset` (header counts known only at the end). */
  async patch(offset: number, bytes: Uint8Array): Promise<void> {
    await this.settle();
    await this.writeAll(bytes, offset);
  }

  /**
   * Starts writing the filled buffer and continues in a fresh one (double buffering: the disk
   * write overlaps filling the next buffer); a write in flight is awaited first, so writes land
   * in order.
   */
  private async flush(): Promise<void> {
    await this.inFlight;
    if (this.used === 0) return;
    const chunk = this.buf.subarray(0, this.used);
    const at = this.flushed;
    this.flushed += this.used;
    this.buf = this.spare ?? Buffer.allocUnsafe(CHUNK);
    this.spare = undefined;
    this.used = 0;
    this.inFlight = this.writeAll(chunk, at).then(() => {
      this.spare = Buffer.from(chunk.buffer, chunk.byteOffset, CHUNK);
    });
    // a failure is reported where the write is awaited next (flush, settle, abort)
    this.inFlight.catch(() => {});
  }

  /** Waits for the write in flight (its failure surfaces here). */
  private async settle(): Promise<void> {
    await this.flush();
    await this.inFlight;
  }

  private async writeAll(bytes: Uint8Array, position: number): Promise<void> {
    let off = 0;
    while (off < bytes.length) {
      const { bytesWritten } = await this.fh.write(bytes, off, bytes.length - off, position + off);
      off += bytesWritten;
    }
  }

  /**
   * Flushes, fsyncs, closes and renames the file into place, then writes its checksum beside it.
   * Returns the SHA-256 of the file. Any failure removes the temporary file (WriteFailed).
   */
  async commit(): Promise<string> {
    try {
      await this.settle();
      await this.fh.sync();
      await this.fh.close();
      this.done = true;
      const digest = await sha256OfFile(this.tempPath);
      // an old checksum must never describe the new file, even for a moment
      await rm(this.finalPath + CHECKSUM_SUFFIX, { force: true });
      await rename(this.tempPath, this.finalPath);
      await syncDirectory(dirname(this.finalPath));
      await writeChecksum(this.finalPath, digest);
      return digest;
    } catch (e) {
      await this.abort();
      throw writeFailed(`cannot write ${this.finalPath}`, e);
    }
  }

  /** Closes and removes the temporary file; safe to call more than once. */
  async abort(): Promise<void> {
    if (!this.done) {
      this.done = true;
      await this.inFlight.catch(() => {});
      await this.fh.close().catch(() => {});
    }
    await rm(this.tempPath, { force: true }).catch(() => {});
  }
}

function writeFailed(what: string, e: unknown): SnapshotError {
  if (isSnapshotError(e)) return e;
  return new LedgerNodeError(SnapshotErrorCode.WriteFailed, `${what}: ${(e as Error).message}`, undefined, {
    cause: e,
  });
}

/** SHA-256 of a whole file, hex. */
export async function sha256OfFile(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path, { highWaterMark: CHUNK })) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** `<file>.sha256` in the `sha256sum` format, written to a temporary name and renamed. */
async function writeChecksum(path: string, digest: string): Promise<void> {
  const target = path + CHECKSUM_SUFFIX;
  const temp = `${target}.${process.pid}.tmp`;
  await writeFile(temp, `${digest}  ${basename(path)}\n`);
  await rename(temp, target);
}
