import { Batch, type Flusher, type FlushTarget, type QueueTotal } from "./flusher.js";

/**
 * The bytes of one subscriber's connection, between its MQTT session (session.ts) and the
 * socket (a WebSocket or a TCP socket). Two bounds make a client unable to hurt the node:
 *
 * - Outgoing: everything for the client (the session's own packets, and the events the node
 *   fans out as ready-made PUBLISH packets) is queued here and handed to the socket in batches
 *   (flusher.ts). A PUBLISH packet is encoded once and the same Buffer sits in every
 *   subscriber's queue: a queue holds references, and a flush joins the queues of the
 *   subscribers of the same topics once for all of them. The broker never waits for a
 *   slow client (it would hold every other delivery behind it). Once what is queued here and
 *   still unsent by the socket exceeds `maxQueuedBytes`, the client has fallen too far behind
 *   and is disconnected; the bytes queued across all connections are counted in a `QueueTotal` (flusher.ts)
 *   the broker keeps within its own bound.
 * - Incoming: a client only ever needs to send small packets (CONNECT, SUBSCRIBE, PINGREQ), so
 *   each packet's length is read from its fixed header (MQTT 3.1.1 §2.2.3) and a packet longer
 *   than `maxPacketBytes` closes the connection before it is buffered.
 */

export interface ConnectionLimits {
  /** Bytes queued for a client, here and in its socket, beyond which it is disconnected. */
  maxQueuedBytes: number;
  /** Longest MQTT packet a client may send. */
  maxPacketBytes: number;
}

/** The socket under a connection: how to send bytes, how much is still unsent, how to close. */
export interface Transport {
  /**
   * Writes a batch's bytes (shared with other connections' writes: never modified), in one
   * write; `sent` is called once they have left (handed to the kernel) or will not (an error, a
   * close).
   */
  write(batch: Batch, sent: () => void): void;
  /** Bytes handed to the transport and not yet written to the network. */
  readonly unsent: number;
  /**
   * Closes the socket: at once, dropping what it still holds (a reset), or, `graceful`, after
   * what was written (then at once if the client has not closed it within a second).
   */
  close(graceful?: boolean): void;
}

/** Why the node closed a connection (the broker counts each). */
export type DropReason =
  /** Its queue passed `maxQueuedBytes`. */
  | "slow"
  /** It announced a packet longer than `maxPacketBytes`. */
  | "oversized"
  /** It asked for more than `maxSubscriptions`. */
  | "subscriptions"
  /** It sent a PUBLISH. */
  | "publish"
  /** A protocol error (a malformed packet, a packet out of order, a WebSocket error). */
  | "error"
  /** There was no room for it when it connected. */
  | "full"
  /** It was closed to make room for a newcomer (connectionBudget.ts). */
  | "evicted"
  /** It was silent for 1.5 times its keep-alive (MQTT 3.1.1 §3.1.2.10). */
  | "keepAlive"
  /** It sent no CONNECT in time. */
  | "connectTimeout"
  /** It held the most queued bytes when all connections together passed `maxTotalQueuedBytes`. */
  | "budget";

export const DROP_REASONS: readonly DropReason[] = [
  "slow",
  "oversized",
  "subscriptions",
  "publish",
  "error",
  "full",
  "evicted",
  "keepAlive",
  "connectTimeout",
  "budget",
];

export class SubscriberConnection implements FlushTarget {
  private queue: Buffer[] = [];
  /** Bytes in `queue`. */
  queuedBytes = 0;
  /** The socket's unsent bytes when last read (see `deliver`). */
  private knownUnsent = 0;
  /** Batches handed to the socket and not sent yet, oldest first (a socket sends in order). */
  private inSocket: Batch[] = [];
  /** Incoming packet framing: the fixed header being read, then the bytes of its body still to come. */
  private header: number[] = [];
  private bodyLeft = 0;
  /** Set once the connection is closed (by the node or the client). */
  closed = false;

  constructor(
    private readonly transport: Transport,
    private readonly limits: ConnectionLimits,
    private readonly flusher: Flusher,
    private readonly total: QueueTotal,
    /** Called once when the connection passes a bound; the owner closes it. */
    private readonly onDrop: (reason: "slow" | "oversized") => void,
  ) {}

  /** Bytes queued here and unsent in the socket. */
  get held(): number {
    return this.queuedBytes + this.transport.unsent;
  }

  /** Bytes unsent in the socket. */
  get unsent(): number {
    return this.transport.unsent;
  }

  /**
   * Checks bytes from the socket packet by packet; false (and the connection dropped) once a
   * packet is too long, true when they may be parsed.
   */
  receive(chunk: Buffer): boolean {
    if (this.closed) return false;
    if (this.withinPacketLimit(chunk)) return true;
    this.onDrop("oversized");
    return false;
  }

  /**
   * Queues one whole MQTT packet for the client (shared with other clients' queues: never
   * modified; the sender counts it in the `QueueTotal`). Called for every packet and
   * subscriber: a few field updates, nothing more.
   */
  deliver(packet: Buffer): void {
    if (this.closed) return;
    const held = this.queuedBytes + packet.length;
    // the socket's unsent bytes as last read: only the socket's sending changes them between two
    // writes, so they are read again only when the bound seems passed
    if (held + this.knownUnsent > this.limits.maxQueuedBytes) {
      this.knownUnsent = this.transport.unsent;
      if (held + this.knownUnsent > this.limits.maxQueuedBytes) {
        this.onDrop("slow");
        return;
      }
    }
    if (this.queue.length === 0) this.flusher.schedule(this);
    this.queue.push(packet);
    this.queuedBytes = held;
  }

  /** Takes what is queued, for the flusher to write (undefined: nothing, or closed). */
  takeQueue(): { packets: Buffer[]; bytes: number } | undefined {
    if (this.queue.length === 0 || this.closed) return undefined;
    const taken = { packets: this.queue, bytes: this.queuedBytes };
    this.clearQueue();
    return taken;
  }

  /** Hands a batch to the socket (the flusher's, or this connection's own queue). */
  write(batch: Batch): void {
    batch.hold(this.total);
    this.inSocket.push(batch);
    this.transport.write(batch, () => this.sent());
    this.knownUnsent = this.transport.unsent;
  }

  /** The socket sent its oldest batch (or gave up on it). */
  private sent(): void {
    // a closed connection let go of its batches already
    if (this.closed) return;
    this.inSocket.shift()?.release(this.total);
  }

  /** How long ago the oldest batch the socket has not sent yet was made, in ms (0: it holds none). */
  lagMs(now: number): number {
    const oldest = this.inSocket[0];
    return oldest === undefined ? 0 : now - oldest.madeAt;
  }

  /** Hands what is queued to the socket at once. */
  flush(): void {
    const queue = this.takeQueue();
    if (queue !== undefined) this.write(new Batch(queue.packets, queue.bytes));
  }

  /** Closes the socket and lets go of the queue (idempotent); `graceful` sends what is queued first. */
  close(graceful = false): void {
    if (this.closed) return;
    if (graceful) this.flush();
    this.closed = true;
    this.clearQueue();
    this.flusher.cancel(this);
    // what the socket still holds is dropped with it (or, graceful, soon)
    for (const batch of this.inSocket) batch.release(this.total);
    this.inSocket = [];
    this.transport.close(graceful);
  }

  private clearQueue(): void {
    this.queue = [];
    this.queuedBytes = 0;
  }

  /** Follows the packet boundaries of the incoming bytes; false once a packet is too long. */
  private withinPacketLimit(chunk: Buffer): boolean {
    let i = 0;
    while (i < chunk.length) {
      if (this.bodyLeft > 0) {
        const take = Math.min(this.bodyLeft, chunk.length - i);
        this.bodyLeft -= take;
        i += take;
        continue;
      }
      // fixed header: the type byte, then the remaining length in 1 to 4 bytes of 7 bits each
      this.header.push(chunk[i++]!);
      if (this.header.length === 1) continue;
      const last = this.header[this.header.length - 1]!;
      if (last & 0x80) {
        if (this.header.length === 5) return false; // more than 4 length bytes: malformed
        continue;
      }
      let length = 0;
      for (let k = this.header.length - 1; k >= 1; k--) length = length * 128 + (this.header[k]! & 0x7f);
      this.header = [];
      if (length > this.limits.maxPacketBytes) return false;
      this.bodyLeft = length;
    }
    return true;
  }
}
