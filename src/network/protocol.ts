import "./polyfill.js";
import { setMaxListeners } from "node:events";
import type { Stream } from "@libp2p/interface";
import * as lp from "it-length-prefixed";
import { bytesEqual, toHex } from "../codec/hex.js";
import { blockIdFromBytes } from "../codec/ids.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { isNetworkError, NetworkErrorCode } from "./errors.js";
import {
  decodeMessage,
  encodeMessage,
  type Heartbeat,
  MAX_CONE_BLOCKS,
  MAX_CONE_BYTES,
  MAX_MESSAGE_LENGTH,
  type Message,
  MessageType,
} from "./messages.js";

/**
 * The request/response side of the protocol (messages.ts): one libp2p stream per request. The
 * asker writes one message and closes its writing side; the answerer writes its answer and
 * closes. A heartbeat is a request without an answer.
 */

/** Protocol ID of the request/response streams of a network (peers of other networks never match). */
export function requestProtocolId(networkName: string): string {
  return `/ledger-node/${networkName}/req/1.0.0`;
}

/** Writes messages to a stream, waiting whenever its buffer is full. */
export async function writeMessages(stream: Stream, messages: Iterable<Message>): Promise<void> {
  for (const m of messages) {
    if (!stream.send(lp.encode.single(encodeMessage(m)))) await stream.onDrain();
  }
}

/**
 * Splits a byte stream into length-prefixed frames (unsigned varint length, then that many
 * bytes), the framing `it-length-prefixed` writes. MalformedMessage for a frame above `maxLength`.
 * Chunks are kept as they come and joined only once a whole frame is there, so a frame that
 * arrives a byte at a time costs time linear in its length, not quadratic.
 */
export class FrameDecoder {
  private chunks: Uint8Array[] = [];
  private held = 0;
  /** Bytes the next frame needs in all (length prefix and body); 0 while its prefix is incomplete. */
  private needed = 0;

  constructor(private readonly maxLength: number) {}

  /** Bytes held that do not make a whole frame yet. */
  get pending(): number {
    return this.held;
  }

  push(chunk: Uint8Array): Uint8Array[] {
    if (chunk.length === 0) return [];
    this.chunks.push(chunk);
    this.held += chunk.length;
    if (this.held < this.needed) return [];
    const joined = this.chunks.length === 1 ? this.chunks[0]! : concat(this.chunks, this.held);
    const frames: Uint8Array[] = [];
    let at = 0;
    this.needed = 0;
    for (;;) {
      let length = 0;
      let shift = 0;
      let i = at;
      for (; i < joined.length; i++) {
        const byte = joined[i]!;
        length += (byte & 0x7f) * 2 ** shift;
        shift += 7;
        if ((byte & 0x80) === 0) break;
        if (shift > 28) throw new LedgerNodeError(NetworkErrorCode.MalformedMessage, "frame length is not a varint");
      }
      if (i >= joined.length) break; // length incomplete
      if (length > this.maxLength) {
        throw new LedgerNodeError(
          NetworkErrorCode.MalformedMessage,
          `frame of ${length} bytes, the limit is ${this.maxLength}`,
        );
      }
      if (i + 1 + length > joined.length) {
        this.needed = i + 1 + length - at; // body incomplete
        break;
      }
      frames.push(joined.slice(i + 1, i + 1 + length));
      at = i + 1 + length;
    }
    const rest = joined.subarray(at);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.held = rest.length;
    return frames;
  }
}

function concat(chunks: Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/**
 * How much a peer may send in one answer: what was asked fixes it (nothing for a heartbeat, one
 * block for a block request, a bounded cone for a milestone). Beyond it the stream is reset.
 */
export interface AnswerLimits {
  messages: number;
  bytes: number;
}

/**
 * Reads messages from a stream until the other side ends it (resolves) or `onMessage` returns
 * true (resolves early); rejects when the stream is reset or aborted, or on a malformed frame.
 * Listens to the stream's events rather than iterating it: an answer that arrives, and ends,
 * before reading starts is kept in the stream's buffer and delivered when the listener is added.
 */
export function readMessages(
  stream: Stream,
  onMessage: (m: Message) => boolean | undefined,
  limits: AnswerLimits = { messages: Number.POSITIVE_INFINITY, bytes: Number.POSITIVE_INFINITY },
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const decoder = new FrameDecoder(MAX_MESSAGE_LENGTH);
    let done = false;
    let messages = 0;
    let bytes = 0;
    const finish = (e?: unknown) => {
      if (done) return;
      done = true;
      stream.removeEventListener("message", onData);
      stream.removeEventListener("end", onEnd);
      stream.removeEventListener("close", onClose);
      if (e) reject(e);
      else if (decoder.pending > 0)
        reject(new LedgerNodeError(NetworkErrorCode.MalformedMessage, "the stream ended inside a frame"));
      else resolve();
    };
    const onData = (evt: { data: { subarray(): Uint8Array } }) => {
      try {
        const chunk = evt.data.subarray();
        bytes += chunk.length;
        if (bytes > limits.bytes) throw tooMuch(`more than ${limits.bytes} bytes`);
        for (const frame of decoder.push(chunk)) {
          if (++messages > limits.messages) throw tooMuch(`more than ${limits.messages} messages`);
          if (onMessage(decodeMessage(frame))) {
            finish();
            return;
          }
        }
      } catch (e) {
        finish(e);
      }
    };
    const onEnd = () => finish();
    const onClose = (evt: { error?: Error }) => finish(evt.error);
    stream.addEventListener("message", onData);
    stream.addEventListener("end", onEnd);
    stream.addEventListener("close", onClose);
    if (stream.readableEnded && stream.readBufferLength === 0) finish();
    else if (stream.status === "aborted" || stream.status === "reset") {
      finish(new LedgerNodeError(NetworkErrorCode.UnexpectedResponse, `the stream was ${stream.status}`));
    }
  });
}

/**
 * An answer that ended before it was whole. A peer that shuts down closes the streams it is
 * answering on, and its peers had scored each such answer as a wrong one (20 points): a follower
 * syncing from a coordinator that restarted took 17 at once and banned it for five minutes. A
 * cut answer costs no score by itself (Network.requestFailed); a milestone only the peer claimed
 * is doubted at once, one refuted claim for the lot (SyncManager.refuteClaim).
 */
function interrupted(peer: string, what: string): LedgerNodeError<NetworkErrorCode> {
  return new LedgerNodeError(NetworkErrorCode.Interrupted, `${peer}'s answer to ${what} ended before it was whole`);
}

function tooMuch(what: string): LedgerNodeError<NetworkErrorCode> {
  return new LedgerNodeError(NetworkErrorCode.AnswerTooLarge, `the peer sent ${what}, beyond what was asked`);
}

/** The first message of a stream (undefined when it ends without one). */
async function readFirstMessage(stream: Stream): Promise<Message | undefined> {
  const received: Message[] = [];
  await readMessages(
    stream,
    (m) => {
      received.push(m);
      return true;
    },
    { messages: 1, bytes: MAX_MESSAGE_LENGTH + 8 },
  );
  return received[0];
}

/** What answering needs: the stored blocks and milestone cones, and where heartbeats go. */
export interface RequestHandlerDeps {
  blockBytes(blockId: Uint8Array): Promise<Uint8Array | undefined>;
  milestoneCone(index: number): Promise<Uint8Array[] | undefined>;
  onHeartbeat(peer: string, heartbeat: Heartbeat): void;
  /** A peer sent something that is not a request: counts against its score. */
  onMalformed(peer: string, reason: string): void;
  onRequest?(peer: string, type: MessageType): void;
}

/** Serves one incoming stream. */
export async function handleRequestStream(stream: Stream, peer: string, deps: RequestHandlerDeps): Promise<void> {
  try {
    const request = await readFirstMessage(stream);
    if (!request) {
      await stream.close();
      return;
    }
    deps.onRequest?.(peer, request.type);
    switch (request.type) {
      case MessageType.Heartbeat:
        deps.onHeartbeat(peer, request.heartbeat);
        break;
      case MessageType.BlockRequest: {
        const bytes = await deps.blockBytes(request.blockId);
        await writeMessages(stream, [bytes ? { type: MessageType.Block, bytes } : { type: MessageType.NotFound }]);
        break;
      }
      case MessageType.MilestoneRequest: {
        const cone = await deps.milestoneCone(request.index);
        const answer: Message[] = cone
          ? [
              ...cone.map((bytes): Message => ({ type: MessageType.Block, bytes })),
              { type: MessageType.ConeEnd, index: request.index, blocks: cone.length },
            ]
          : [{ type: MessageType.NotFound }];
        await writeMessages(stream, answer);
        break;
      }
      default:
        deps.onMalformed(peer, `message type ${request.type} is not a request`);
    }
    await stream.close();
  } catch (e) {
    if (isNetworkError(e) && e.code === NetworkErrorCode.MalformedMessage) deps.onMalformed(peer, e.message);
    stream.abort(e as Error);
  }
}

/** Opens a stream of the request protocol to a peer. */
export type OpenStream = (peer: string, signal: AbortSignal) => Promise<Stream>;

/**
 * Sends one request and collects the answer (every message until the peer closes), at most
 * `limits`: a peer sending more has its stream reset and the request fails with AnswerTooLarge.
 */
async function exchange(
  open: OpenStream,
  peer: string,
  request: Message,
  limits: AnswerLimits,
  timeoutMs: number,
): Promise<Message[]> {
  // a timer of its own (not AbortSignal.timeout, whose timer does not keep an otherwise
  // unreachable request alive): the request ends by its answer or by this timeout
  const controller = new AbortController();
  const signal = controller.signal;
  setMaxListeners(Number.POSITIVE_INFINITY, signal); // libp2p's layers each listen to it
  let stream: Stream | undefined;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const e = new LedgerNodeError(NetworkErrorCode.Timeout, `no answer from ${peer} within ${timeoutMs} ms`);
      controller.abort(e);
      stream?.abort(e);
      reject(e);
    }, timeoutMs);
  });
  timedOut.catch(() => {});
  try {
    stream = await Promise.race([open(peer, signal), timedOut]);
    // listen before asking: the answer may come (and end) while the request is being closed
    const answer: Message[] = [];
    const reading = readMessages(
      stream,
      (m) => {
        answer.push(m);
        return undefined;
      },
      limits,
    );
    reading.catch(() => {});
    await writeMessages(stream, [request]);
    await Promise.race([stream.close({ signal }), timedOut]);
    await Promise.race([reading, timedOut]);
    return answer;
  } catch (e) {
    stream?.abort(e as Error);
    if (signal.aborted && !isNetworkError(e)) {
      throw new LedgerNodeError(NetworkErrorCode.Timeout, `no answer from ${peer} within ${timeoutMs} ms`);
    }
    throw e;
  } finally {
    clearTimeout(timer);
  }
}

/** A heartbeat (no answer expected). */
export async function sendHeartbeat(
  open: OpenStream,
  peer: string,
  heartbeat: Heartbeat,
  timeoutMs: number,
): Promise<void> {
  await exchange(open, peer, { type: MessageType.Heartbeat, heartbeat }, { messages: 0, bytes: 0 }, timeoutMs);
}

/** The bytes of one block, checked to hash to the ID asked for. */
export async function requestBlock(
  open: OpenStream,
  peer: string,
  blockId: Uint8Array,
  timeoutMs: number,
): Promise<Uint8Array> {
  const answer = await exchange(
    open,
    peer,
    { type: MessageType.BlockRequest, blockId },
    { messages: 1, bytes: MAX_MESSAGE_LENGTH + 8 },
    timeoutMs,
  );
  const first = answer[0];
  if (first === undefined) throw interrupted(peer, "a block request");
  if (answer.length === 1 && first.type === MessageType.NotFound) {
    throw new LedgerNodeError(NetworkErrorCode.NotFound, `${peer} has no block ${toHex(blockId)}`);
  }
  if (answer.length !== 1 || first.type !== MessageType.Block || !bytesEqual(blockIdFromBytes(first.bytes), blockId)) {
    throw new LedgerNodeError(
      NetworkErrorCode.UnexpectedResponse,
      `${peer} answered a block request with something else`,
    );
  }
  return first.bytes;
}

/** The cone of milestone `index` as the peer sent it (last block: the milestone block). */
export async function requestMilestoneCone(
  open: OpenStream,
  peer: string,
  index: number,
  timeoutMs: number,
): Promise<Uint8Array[]> {
  const answer = await exchange(
    open,
    peer,
    { type: MessageType.MilestoneRequest, index },
    // the cone's blocks, ConeEnd; each frame has a length prefix and a type byte
    { messages: MAX_CONE_BLOCKS + 1, bytes: MAX_CONE_BYTES + 8 * (MAX_CONE_BLOCKS + 1) },
    timeoutMs,
  );
  if (answer.length === 1 && answer[0]?.type === MessageType.NotFound) {
    throw new LedgerNodeError(NetworkErrorCode.NotFound, `${peer} has no milestone ${index}`);
  }
  // blocks and no ConeEnd (or nothing): the answer was cut short, not wrong
  if (answer.every((m) => m.type === MessageType.Block)) throw interrupted(peer, `milestone ${index}`);
  const end = answer[answer.length - 1];
  const blocks = answer.slice(0, -1);
  if (
    end?.type !== MessageType.ConeEnd ||
    end.index !== index ||
    end.blocks !== blocks.length ||
    blocks.length === 0 ||
    blocks.some((m) => m.type !== MessageType.Block)
  ) {
    throw new LedgerNodeError(
      NetworkErrorCode.UnexpectedResponse,
      `${peer} sent an incomplete cone of milestone ${index}`,
    );
  }
  return blocks.map((m) => (m as { bytes: Uint8Array }).bytes);
}
