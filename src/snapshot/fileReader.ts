import { createHash, type Hash } from "node:crypto";
import { type FileHandle, open, readFile } from "node:fs/promises";
import { MAX_BLOCK_LENGTH } from "../codec/block.js";
import { isCodecError } from "../codec/errors.js";
import { decodeOutput } from "../codec/outputs/output.js";
import { decodePayload } from "../codec/payload.js";
import { decodeProtocolParameters } from "../codec/protocolParameters.js";
import { MilestoneOptionType, type MilestonePayload, PayloadType } from "../codec/types.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { type SnapshotError, SnapshotErrorCode } from "./errors.js";
import { CHECKSUM_SUFFIX } from "./fileWriter.js";
import {
  BLOCK_ID_LENGTH,
  DELTA_HEADER,
  type DeltaSnapshotHeader,
  type FullSnapshotHeader,
  hasReceipt,
  MILESTONE_ID_LENGTH,
  type MilestoneDiff,
  OUTPUT_ENTRY_FIXED_LENGTH,
  OUTPUT_ID_LENGTH,
  SNAPSHOT_VERSION,
  type SnapshotHeader,
  type SnapshotOutput,
  type SnapshotSpent,
  SnapshotType,
  TRANSACTION_ID_LENGTH,
} from "./format.js";

/**
 * A streaming TIP-35 reader: the file is read in 1 MiB chunks and handed out item by item
 * (header, outputs, milestone diffs, SEPs) to a visitor, so a file of any size is read in
 * bounded memory. Every way a file can be damaged ends in a `SnapshotError`: the file ends
 * inside a field (Truncated), a field holds an impossible value or an output or milestone does
 * not decode (Corrupted, naming the item), another format version (UnsupportedVersion) or type
 * (WrongType), bytes after the last SEP (Corrupted).
 */

const CHUNK = 1 << 20;
/** Bytes of a slab output entries are copied into (about 500 outputs of a generated ledger). */
const SLAB_BYTES = 64 * 1024;
/** Smallest output entry: the fixed part and an output of at least one byte. */
const MIN_OUTPUT_ENTRY = OUTPUT_ENTRY_FIXED_LENGTH + 1;
/** Smallest milestone diff: its length, the payload length, both counts. */
const MIN_DIFF = 16;

type Awaitable = void | Promise<void>;

export interface SnapshotVisitor {
  header?(header: SnapshotHeader): Awaitable;
  output?(output: SnapshotOutput, position: number): Awaitable;
  diff?(diff: MilestoneDiff, position: number): Awaitable;
  sep?(blockId: Uint8Array, position: number): Awaitable;
}

export interface ReadSnapshotOptions {
  /** The snapshot type the caller needs; the other type fails with WrongType. */
  expectedType?: SnapshotType;
  /** Decode each output (TIP-18 codec) to prove it well-formed; default true. */
  decodeOutputs?: boolean;
  /** Called after each chunk with the bytes read so far and the file size. */
  onProgress?: (bytesRead: number, fileSize: number) => void;
}

export interface SnapshotReadResult {
  header: SnapshotHeader;
  fileSize: number;
  /** SHA-256 of the whole file, hex. */
  sha256: string;
}

/** Buffered little-endian reads over a file handle; fields are labelled for errors. */
class FileSource {
  private buf = Buffer.allocUnsafe(CHUNK);
  private start = 0;
  private end = 0;
  /** File offset of `buf[start]`. */
  private offset = 0;
  private readonly hash: Hash = createHash("sha256");
  /** Where `entry` cuts its copies from. */
  private slab = new Uint8Array(0);
  private slabAt = 0;

  constructor(
    private readonly fh: FileHandle,
    readonly size: number,
    private readonly onProgress?: (bytesRead: number, fileSize: number) => void,
  ) {}

  /** File offset of the next byte to be read. */
  get position(): number {
    return this.offset;
  }

  get remaining(): number {
    return this.size - this.offset;
  }

  /** Bytes read in and not consumed yet. */
  get buffered(): number {
    return this.end - this.start;
  }

  /** Makes `n` bytes available; the file ending first is Truncated, naming `field`. */
  async need(n: number, field: string): Promise<void> {
    if (this.end - this.start >= n) return;
    if (this.offset + n > this.size) {
      throw new LedgerNodeError(
        SnapshotErrorCode.Truncated,
        `the file ends inside ${field}: ${n} bytes needed at offset ${this.offset}, the file has ${this.size}`,
      );
    }
    const have = this.end - this.start;
    if (n > this.buf.length) {
      const bigger = Buffer.allocUnsafe(Math.max(n, this.buf.length * 2));
      this.buf.copy(bigger, 0, this.start, this.end);
      this.buf = bigger;
    } else if (have > 0) this.buf.copy(this.buf, 0, this.start, this.end);
    this.start = 0;
    this.end = have;
    while (this.end < n) {
      const filePos = this.offset + this.end;
      const { bytesRead } = await this.fh.read(this.buf, this.end, this.buf.length - this.end, filePos);
      if (bytesRead === 0) {
        throw new LedgerNodeError(SnapshotErrorCode.Truncated, `the file ends inside ${field} at offset ${filePos}`);
      }
      this.hash.update(this.buf.subarray(this.end, this.end + bytesRead));
      this.end += bytesRead;
      this.onProgress?.(this.offset + this.end, this.size);
    }
  }

  private advance(n: number): number {
    const at = this.start;
    this.start += n;
    this.offset += n;
    return at;
  }

  u8(): number {
    return this.buf[this.advance(1)]!;
  }

  u16(): number {
    return this.buf.readUInt16LE(this.advance(2));
  }

  u32(): number {
    return this.buf.readUInt32LE(this.advance(4));
  }

  u64(): bigint {
    return this.buf.readBigUInt64LE(this.advance(8));
  }

  /** A copy of the next `n` bytes (items outlive the buffer). */
  bytes(n: number): Uint8Array {
    const at = this.advance(n);
    const out = new Uint8Array(n);
    this.buf.copy(out, 0, at, at + n);
    return out;
  }

  /**
   * An output entry of `length` output bytes (`need` must cover it), copied without its length
   * field: output ID ‖ block ID ‖ booked index ‖ booked timestamp ‖ output. The copies are cut
   * from slabs of SLAB_BYTES, not each an array of its own: an array of more than 64 bytes has
   * its memory outside V8's heap, allocated and tracked one by one (`entry` went from 7.8 % to
   * 3.5 % of a 1,000,000-output load's profile; docs/performance.md, "Loading a large ledger").
   */
  entry(length: number): Uint8Array {
    const at = this.advance(OUTPUT_ENTRY_FIXED_LENGTH + length);
    const n = OUTPUT_ENTRY_FIXED_LENGTH - 4 + length;
    if (this.slabAt + n > this.slab.length) {
      this.slab = new Uint8Array(Math.max(SLAB_BYTES, n));
      this.slabAt = 0;
    }
    const out = this.slab.subarray(this.slabAt, this.slabAt + n);
    this.slabAt += n;
    this.buf.copy(out, 0, at, at + OUTPUT_ENTRY_FIXED_LENGTH - 4);
    this.buf.copy(
      out,
      OUTPUT_ENTRY_FIXED_LENGTH - 4,
      at + OUTPUT_ENTRY_FIXED_LENGTH,
      at + OUTPUT_ENTRY_FIXED_LENGTH + length,
    );
    return out;
  }

  /** A u32 `ahead` bytes past the read position, not consumed (`need` must cover it). */
  peekU32(ahead: number): number {
    return this.buf.readUInt32LE(this.start + ahead);
  }

  /** Reads what is left of the file into the hash and returns the digest. */
  async finish(): Promise<string> {
    return this.hash.digest("hex");
  }
}

function corrupted(reason: string, cause?: unknown): SnapshotError {
  return new LedgerNodeError(
    SnapshotErrorCode.Corrupted,
    reason,
    undefined,
    cause === undefined ? undefined : { cause },
  );
}

/** Reads a whole snapshot file, handing each item to `visitor`. */
export async function readSnapshot(
  path: string,
  visitor: SnapshotVisitor = {},
  options: ReadSnapshotOptions = {},
): Promise<SnapshotReadResult> {
  return withSnapshotFile(path, async (fh, size) => {
    const src = new FileSource(fh, size, options.onProgress);
    const header = await readHeader(src);
    if (options.expectedType !== undefined && header.type !== options.expectedType) {
      const names = ["full", "delta"];
      throw new LedgerNodeError(
        SnapshotErrorCode.WrongType,
        `${path} is a ${names[header.type]} snapshot, a ${names[options.expectedType]} snapshot was expected`,
      );
    }
    if (visitor.header) await visitor.header(header);
    const decode = options.decodeOutputs ?? true;

    if (header.type === SnapshotType.Full) {
      if (header.outputCount * MIN_OUTPUT_ENTRY > src.remaining) {
        throw new LedgerNodeError(
          SnapshotErrorCode.Truncated,
          `the header promises ${header.outputCount} outputs, only ${src.remaining} bytes follow it`,
        );
      }
      for (let i = 0; i < header.outputCount; i++) {
        const read = readOutput(src, `outputs[${i}]`, decode);
        const o = read instanceof Promise ? await read : read;
        const r = visitor.output?.(o, i);
        if (r) await r;
      }
    }
    if (header.milestoneDiffCount * MIN_DIFF > src.remaining) {
      throw new LedgerNodeError(
        SnapshotErrorCode.Truncated,
        `the header promises ${header.milestoneDiffCount} milestone diffs, only ${src.remaining} bytes follow`,
      );
    }
    for (let i = 0; i < header.milestoneDiffCount; i++) {
      const d = await readMilestoneDiff(src, `milestoneDiffs[${i}]`, decode);
      const r = visitor.diff?.(d, i);
      if (r) await r;
    }
    if (header.type === SnapshotType.Delta && src.position !== header.sepFileOffset) {
      throw corrupted(`the SEP file offset is ${header.sepFileOffset}, the SEPs start at ${src.position}`);
    }
    if (header.sepCount * BLOCK_ID_LENGTH !== src.remaining) {
      if (header.sepCount * BLOCK_ID_LENGTH > src.remaining) {
        throw new LedgerNodeError(
          SnapshotErrorCode.Truncated,
          `the header promises ${header.sepCount} SEPs (${header.sepCount * BLOCK_ID_LENGTH} bytes), ${src.remaining} bytes are left`,
        );
      }
      throw corrupted(`${src.remaining - header.sepCount * BLOCK_ID_LENGTH} bytes follow the last SEP`);
    }
    for (let i = 0; i < header.sepCount; i++) {
      await src.need(BLOCK_ID_LENGTH, `seps[${i}]`);
      const r = visitor.sep?.(src.bytes(BLOCK_ID_LENGTH), i);
      if (r) await r;
    }
    return { header, fileSize: size, sha256: await src.finish() };
  });
}

/** Only the header of a snapshot file. */
export function readSnapshotHeader(path: string): Promise<SnapshotHeader> {
  return withSnapshotFile(path, (fh, size) => readHeader(new FileSource(fh, size)));
}

/** Runs `read` on the open file and its size, and closes it; a file that does not open is `Unreadable`. */
async function withSnapshotFile<T>(path: string, read: (fh: FileHandle, size: number) => Promise<T>): Promise<T> {
  let fh: FileHandle;
  try {
    fh = await open(path, "r");
  } catch (e) {
    throw new LedgerNodeError(SnapshotErrorCode.Unreadable, `cannot open ${path}: ${(e as Error).message}`, {
      cause: e,
    });
  }
  try {
    return await read(fh, (await fh.stat()).size);
  } finally {
    await fh.close().catch(() => {});
  }
}

/** The digest in `<file>.sha256`, when that file exists and is well-formed. */
export async function readChecksumFile(path: string): Promise<string | undefined> {
  let text: string;
  try {
    text = await readFile(path + CHECKSUM_SUFFIX, "utf8");
  } catch {
    return undefined;
  }
  const m = /^([0-9a-f]{64})\b/i.exec(text.trim());
  if (!m) throw corrupted(`${path}${CHECKSUM_SUFFIX} does not hold a SHA-256 digest`);
  return m[1]!.toLowerCase();
}

async function readHeader(src: FileSource): Promise<SnapshotHeader> {
  await src.need(2, "header.version");
  const version = src.u8();
  if (version !== SNAPSHOT_VERSION) {
    throw new LedgerNodeError(
      SnapshotErrorCode.UnsupportedVersion,
      `snapshot file format version ${version}, this node reads version ${SNAPSHOT_VERSION} (TIP-35)`,
    );
  }
  const type = src.u8();
  if (type === SnapshotType.Full) return readFullHeader(src, version);
  if (type === SnapshotType.Delta) return readDeltaHeader(src, version);
  throw corrupted(`header.type: ${type} is neither full (0) nor delta (1)`);
}

async function readFullHeader(src: FileSource, version: number): Promise<FullSnapshotHeader> {
  await src.need(90, "header");
  const genesisMilestoneIndex = src.u32();
  const targetMilestoneIndex = src.u32();
  const targetMilestoneTimestamp = src.u32();
  const targetMilestoneId = src.bytes(MILESTONE_ID_LENGTH);
  const ledgerMilestoneIndex = src.u32();
  const treasuryOutputMilestoneId = src.bytes(MILESTONE_ID_LENGTH);
  const treasuryOutputAmount = src.u64();
  const optionLength = src.u16();
  await src.need(optionLength + 14, "header.protocolParametersMilestoneOption");
  const option = src.bytes(optionLength);
  const outputCount = src.u64();
  const milestoneDiffCount = src.u32();
  const sepCount = src.u16();
  if (outputCount > BigInt(Number.MAX_SAFE_INTEGER)) throw corrupted(`header.outputsCount: ${outputCount}`);
  return {
    type: SnapshotType.Full,
    version,
    genesisMilestoneIndex,
    targetMilestoneIndex,
    targetMilestoneTimestamp,
    targetMilestoneId,
    ledgerMilestoneIndex,
    treasuryOutputMilestoneId,
    treasuryOutputAmount,
    protocolParameters: decodeParamsOption(option),
    outputCount: Number(outputCount),
    milestoneDiffCount,
    sepCount,
  };
}

/** type u8 (1) ‖ target milestone index u32 ‖ protocol version u8 ‖ (u16) params, filling the option exactly. */
function decodeParamsOption(bytes: Uint8Array) {
  const field = "header.protocolParametersMilestoneOption";
  if (bytes.length < 8) throw corrupted(`${field}: ${bytes.length} bytes is too short`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes[0] !== MilestoneOptionType.ProtocolParams) throw corrupted(`${field}.type: ${bytes[0]}, expected 1`);
  const targetMilestoneIndex = view.getUint32(1, true);
  const protocolVersion = bytes[5]!;
  const paramsLength = view.getUint16(6, true);
  if (8 + paramsLength !== bytes.length) {
    throw corrupted(`${field}.params: length ${paramsLength} does not fill the ${bytes.length}-byte option`);
  }
  const params = bytes.slice(8);
  let parameters: ReturnType<typeof decodeProtocolParameters>;
  try {
    parameters = decodeProtocolParameters(params, `${field}.params`);
  } catch (e) {
    throw corrupted(isCodecError(e) ? e.message : `${field}.params: ${(e as Error).message}`, e);
  }
  if (parameters.protocolVersion !== protocolVersion) {
    throw corrupted(
      `${field}: protocol version ${protocolVersion} differs from the parameters' ${parameters.protocolVersion}`,
    );
  }
  return {
    option: { type: MilestoneOptionType.ProtocolParams, targetMilestoneIndex, protocolVersion, params },
    parameters,
  };
}

async function readDeltaHeader(src: FileSource, version: number): Promise<DeltaSnapshotHeader> {
  await src.need(DELTA_HEADER.length - 2, "header");
  const targetMilestoneIndex = src.u32();
  const targetMilestoneTimestamp = src.u32();
  const fullSnapshotTargetMilestoneId = src.bytes(MILESTONE_ID_LENGTH);
  const sepFileOffset = src.u64();
  const milestoneDiffCount = src.u32();
  const sepCount = src.u16();
  if (sepFileOffset > BigInt(src.size)) {
    throw new LedgerNodeError(
      SnapshotErrorCode.Truncated,
      `the SEPs start at offset ${sepFileOffset}, the file ends at ${src.size}`,
    );
  }
  if (sepFileOffset < BigInt(DELTA_HEADER.length)) {
    throw corrupted(`header.sepFileOffset: ${sepFileOffset} points into the header`);
  }
  return {
    type: SnapshotType.Delta,
    version,
    targetMilestoneIndex,
    targetMilestoneTimestamp,
    fullSnapshotTargetMilestoneId,
    sepFileOffset: Number(sepFileOffset),
    milestoneDiffCount,
    sepCount,
  };
}

/**
 * The next output entry: without a promise when its bytes are read in already (nearly always:
 * the file is read a chunk at a time), not a promise per output.
 */
function readOutput(src: FileSource, field: string, decode: boolean): SnapshotOutput | Promise<SnapshotOutput> {
  if (src.buffered >= OUTPUT_ENTRY_FIXED_LENGTH) {
    const length = src.peekU32(OUTPUT_ENTRY_FIXED_LENGTH - 4);
    if (length !== 0 && length <= MAX_BLOCK_LENGTH && src.buffered >= OUTPUT_ENTRY_FIXED_LENGTH + length)
      return takeOutput(src, length, field, decode);
  }
  return readOutputIn(src, field, decode);
}

/** `readOutput` when the file must be read first. */
async function readOutputIn(src: FileSource, field: string, decode: boolean): Promise<SnapshotOutput> {
  await src.need(OUTPUT_ENTRY_FIXED_LENGTH, field);
  const length = src.peekU32(OUTPUT_ENTRY_FIXED_LENGTH - 4);
  if (length === 0 || length > MAX_BLOCK_LENGTH) {
    throw corrupted(`${field}.outputLength: ${length} is not the length of an output (1..${MAX_BLOCK_LENGTH})`);
  }
  await src.need(OUTPUT_ENTRY_FIXED_LENGTH + length, `${field}.output`);
  return takeOutput(src, length, field, decode);
}

/** An output entry of `length` output bytes, all read in. */
function takeOutput(src: FileSource, length: number, field: string, decode: boolean): SnapshotOutput {
  // one copy: the ID, block ID, booked index and timestamp, then the output (the length left
  // out); the fields are views into it
  const bytes = src.entry(length);
  const record = bytes.subarray(OUTPUT_ID_LENGTH);
  const outputBytes = record.subarray(40);
  if (decode) {
    try {
      decodeOutput(outputBytes, `${field}.output`);
    } catch (e) {
      throw corrupted(isCodecError(e) ? e.message : `${field}.output: ${(e as Error).message}`, e);
    }
  }
  return {
    outputId: bytes.subarray(0, OUTPUT_ID_LENGTH),
    blockId: record.subarray(0, BLOCK_ID_LENGTH),
    bookedIndex: record[32]! | (record[33]! << 8) | (record[34]! << 16) | (record[35]! * 0x1000000),
    bookedTimestamp: record[36]! | (record[37]! << 8) | (record[38]! << 16) | (record[39]! * 0x1000000),
    outputBytes,
  };
}

async function readMilestoneDiff(src: FileSource, field: string, decode: boolean): Promise<MilestoneDiff> {
  const start = src.position;
  await src.need(8, field);
  const diffLength = src.u32();
  if (diffLength < MIN_DIFF || diffLength - 4 > src.remaining) {
    if (diffLength >= MIN_DIFF) {
      throw new LedgerNodeError(
        SnapshotErrorCode.Truncated,
        `the file ends inside ${field}: it is ${diffLength} bytes long, ${src.remaining + 4} bytes are left`,
      );
    }
    throw corrupted(`${field}.length: ${diffLength} is too short for a milestone diff`);
  }
  const payloadLength = src.u32();
  if (payloadLength === 0 || payloadLength > MAX_BLOCK_LENGTH || payloadLength > diffLength - MIN_DIFF) {
    throw corrupted(`${field}.milestonePayloadLength: ${payloadLength} does not fit the diff`);
  }
  await src.need(payloadLength, `${field}.milestonePayload`);
  const milestoneBytes = src.bytes(payloadLength);
  let milestone: MilestonePayload;
  try {
    milestone = decodePayload(milestoneBytes, `${field}.milestonePayload`, [PayloadType.Milestone]) as MilestonePayload;
  } catch (e) {
    throw corrupted(isCodecError(e) ? e.message : `${field}.milestonePayload: ${(e as Error).message}`, e);
  }
  const diff: MilestoneDiff = { milestone, milestoneBytes, created: [], consumed: [] };
  if (hasReceipt(milestone)) {
    await src.need(MILESTONE_ID_LENGTH + 8, `${field}.treasuryInput`);
    diff.treasuryInput = { milestoneId: src.bytes(MILESTONE_ID_LENGTH), amount: src.u64() };
  }
  const end = start + diffLength;
  const count = async (what: string, entry: number) => {
    await src.need(4, `${field}.${what}Count`);
    const n = src.u32();
    if (n * entry > end - src.position) {
      throw corrupted(`${field}.${what}Count: ${n} entries do not fit the ${diffLength}-byte diff`);
    }
    return n;
  };
  const created = await count("created", MIN_OUTPUT_ENTRY);
  for (let i = 0; i < created; i++) diff.created.push(await readOutput(src, `${field}.created[${i}]`, decode));
  const consumed = await count("consumed", MIN_OUTPUT_ENTRY + TRANSACTION_ID_LENGTH);
  for (let i = 0; i < consumed; i++) {
    const f = `${field}.consumed[${i}]`;
    const output = await readOutput(src, f, decode);
    await src.need(TRANSACTION_ID_LENGTH, `${f}.transactionId`);
    const spent: SnapshotSpent = { output, transactionId: src.bytes(TRANSACTION_ID_LENGTH) };
    diff.consumed.push(spent);
  }
  if (src.position !== end) {
    throw corrupted(`${field}.length: the diff says ${diffLength} bytes, its content takes ${src.position - start}`);
  }
  return diff;
}
