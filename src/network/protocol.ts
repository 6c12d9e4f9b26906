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
 */
export class FrameDecoder {
  private buffer = new Uint8Array(0);

  constructor(private readonly maxLength: number) {}

  /** Bytes held that do not make a whole frame yet. */
  get pending(): number {
    return this.buffer.length;
  }

  push(chunk: Uint8Array): Uint8Array[] {
    const joined = new Uint8Array(this.buffer.length + chunk.length);
    joined.set(this.buffer);
    joined.set(chunk, this.buffer.length);
    const frames: Uint8Array[] = [];
    let at = 0;
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
      if (i + 1 + length > joined.length) break; // body incomplete
      frames.push(joined.slice(i + 1, i + 1 + length));
      at = i + 1 + length;
    }
    this.buffer = joined.slice(at);
    return frames;
  }
}

/**
 * Reads messages from a stream until the other side ends it (resolves) or `onMessage` returns
 * true (resolves early); rejects when the stream is reset or aborted, or on a malformed frame.
 * Listens to the stream's events rather than iterating it: an answer that arrives, and ends,
 * before reading starts is kept in the stream's buffer and delivered when the listener is added.
 */
export function readMessages(stream: Stream, onMessage: (m: Message) => boolean | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const decoder = new FrameDecoder(MAX_MESSAGE_LENGTH);
    let done = false;
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
        for (const frame of decoder.push(evt.data.subarray())) {
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

/** The first message of a stream (undefined when it ends without one). */
async function readFirstMessage(stream: Stream): Promise<Message | undefined> {
  const received: Message[] = [];
  await readMessages(stream, (m) => {
    received.push(m);
    return true;
  });
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

/** Sends one request and collects the answer (every message until the peer closes). */
async function exchange(open: OpenStream, peer: string, request: Message, timeoutMs: number): Promise<Message[]> {
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
    const reading = readMessages(stream, (m) => {
      answer.push(m);
      return undefined;
    });
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
  await exchange(open, peer, { type: MessageType.Heartbeat, heartbeat }, timeoutMs);
}

/** The bytes of one block, checked to hash to the ID asked for. */
export async function requestBlock(
  open: OpenStream,
  peer: string,
  blockId: Uint8Array,
  timeoutMs: number,
): Promise<Uint8Array> {
  const answer = await exchange(open, peer, { type: MessageType.BlockRequest, blockId }, timeoutMs);
  const first = answer[0];
  if (answer.length === 1 && first?.type === MessageType.NotFound) {
    throw new LedgerNodeError(NetworkErrorCode.NotFound, `${peer} has no block ${toHex(blockId)}`);
  }
  if (answer.length !== 1 || first?.type !== MessageType.Block || !bytesEqual(blockIdFromBytes(first.bytes), blockId)) {
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
  const answer = await exchange(open, peer, { type: MessageType.MilestoneRequest, index }, timeoutMs);
  if (answer.length === 1 && answer[0]?.type === MessageType.NotFound) {
    throw new LedgerNodeError(NetworkErrorCode.NotFound, `${peer} has no milestone ${index}`);
  }
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
