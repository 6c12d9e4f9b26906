import { Duplex } from "node:stream";

/**
 * One subscriber's connection, between the broker (aedes, which speaks MQTT) and the socket
 * (a WebSocket or a TCP socket). Two bounds make a client unable to hurt the node:
 *
 * - Outgoing: everything for the client (the broker's own packets, and the events the node
 *   fans out as ready-made PUBLISH packets) is queued here and handed to the socket in batches
 *   (see Flusher), one write each. The broker never waits for a slow client (it would
 *   hold every other delivery behind it). Once what is queued here and still unsent by the
 *   socket exceeds `maxQueuedBytes`, the client has fallen too far behind and is disconnected.
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
  send(bytes: Buffer): void;
  /** Bytes handed to the transport and not yet written to the network. */
  readonly unsent: number;
  close(): void;
}

export type DropReason = "slow" | "oversized";

/**
 * Hands every connection's queue to its socket a few milliseconds after the first message of a
 * batch, all connections at once: at thousands of events per second and a hundred subscribers,
 * one write per connection per event loop turn would be a hundred thousand socket writes per
 * second; a few milliseconds of latency make it a few thousand.
 */
export class Flusher {
  private readonly dirty = new Set<SubscriberConnection>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly delayMs: number) {}

  schedule(conn: SubscriberConnection): void {
    this.dirty.add(conn);
    if (this.timer === undefined) this.timer = setTimeout(() => this.flushAll(), this.delayMs);
  }

  private flushAll(): void {
    this.timer = undefined;
    const conns = [...this.dirty];
    this.dirty.clear();
    for (const c of conns) c.flush();
  }
}

export class SubscriberConnection extends Duplex {
  private queue: Buffer[] = [];
  private queuedBytes = 0;
  /** Incoming packet framing: bytes of the current packet still to come, or the header being read. */
  private header: number[] = [];
  private bodyLeft = 0;
  dropped: DropReason | undefined;

  constructor(
    private readonly transport: Transport,
    private readonly limits: ConnectionLimits,
    private readonly flusher: Flusher,
    private readonly onDrop: (reason: DropReason) => void,
  ) {
    super();
  }

  /** Bytes from the socket, checked packet by packet before the broker reads them. */
  receive(chunk: Buffer): void {
    if (this.dropped) return;
    if (!this.withinPacketLimit(chunk)) {
      this.disconnect("oversized");
      return;
    }
    this.push(chunk);
  }

  /** Queues one whole MQTT packet for the client (the broker's writes come here too). */
  deliver(packet: Buffer): void {
    if (this.dropped || this.destroyed) return;
    if (this.queuedBytes + packet.length + this.transport.unsent > this.limits.maxQueuedBytes) {
      this.disconnect("slow");
      return;
    }
    if (this.queue.length === 0) this.flusher.schedule(this);
    this.queue.push(packet);
    this.queuedBytes += packet.length;
  }

  /** The socket closed (or failed): the broker sees the end of its stream. */
  transportClosed(): void {
    this.queue = [];
    this.queuedBytes = 0;
    if (!this.destroyed) this.destroy();
  }

  override _read(): void {
    // incoming bytes are pushed as they arrive (a client sends little; the limit bounds it)
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    // never a backpressure signal to the broker: the bound is enforced in deliver()
    this.deliver(chunk);
    callback();
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.flush();
    this.transport.close();
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.transport.close();
    callback(error);
  }

  /** Hands what is queued to the socket, as one write. */
  flush(): void {
    if (this.queue.length === 0 || this.dropped || this.destroyed) return;
    const bytes = this.queue.length === 1 ? this.queue[0]! : Buffer.concat(this.queue, this.queuedBytes);
    this.queue = [];
    this.queuedBytes = 0;
    this.transport.send(bytes);
  }

  private disconnect(reason: DropReason): void {
    if (this.dropped) return;
    this.dropped = reason;
    this.queue = [];
    this.queuedBytes = 0;
    this.onDrop(reason);
    this.transport.close();
    this.destroy();
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
