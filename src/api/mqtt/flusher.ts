/**
 * How the packets queued for subscribers reach their sockets: in batches, one write per
 * connection per flush, and one batch of bytes for every connection that was queued the same
 * packets.
 *
 * Fanning events out is the event API's cost: at 2,000 blocks/s, 1,000 subscribers of `blocks` and
 * `block-metadata/referenced` are owed 4,000,000 PUBLISH packets a second (docs/performance.md,
 * "The event API at 1,000 subscribers"). Per packet and subscriber the node only pushes a
 * reference into a queue; what costs is per write (a system call, a TCP segment, the reader's
 * wake-up: about 8 µs of CPU on loopback, as much as 50 KB of bytes cost) and per byte. So:
 *
 * - every subscriber of the same topics is queued the very same packets in the same order
 *   between two flushes, so a flush joins (and frames, for WebSocket) one such queue once and
 *   hands the same Buffer to each of their sockets;
 * - the delay between flushes grows with the connections written at each, so that the writes
 *   of all connections together stay near `maxWritesPerSecond`: a hundred subscribers are written
 *   every 5 ms; from 600 on, every 30 ms, the most, with six times the bytes in each write.
 */

/**
 * Flushing wider than this would hold events too long: past it, writes per second grow instead.
 * At 30 ms a write to each of 1,000 subscribers of 2,000 blocks/s carries about 44 KB, about
 * what the write's own call costs; at 50 ms (before) delivery's p99 stood at the 200 ms of
 * issue 26's target, at 30 ms well below it (docs/performance.md, "The event API at 1,000
 * subscribers").
 */
const MAX_DELAY_MS = 30;

/** Batches a flush keeps at hand to match the next queues against (one per distinct set of topics, usually). */
const RECENT_BATCHES = 4;

/**
 * The bytes held for every connection together, as running totals: the packets queued for a
 * flush, each counted once however many queues hold it (the broker counts an event's packet as
 * it publishes it, a session its own packets; the flusher sets it back to 0 once it has taken
 * every queue), and the batches handed to the sockets and not sent yet, each counted once
 * however many sockets hold it (a thousand subscribers behind on the same events hold one copy
 * of them).
 */
export class QueueTotal {
  queued = 0;
  inSockets = 0;

  get held(): number {
    return this.queued + this.inSockets;
  }
}

/** What a flush hands a batch to: a subscriber's connection (connection.ts). */
export interface FlushTarget {
  /** The packets queued since the last flush and their bytes, emptying the queue (none: nothing queued). */
  takeQueue(): { packets: Buffer[]; bytes: number } | undefined;
  /** Hands a batch to the socket. */
  write(batch: Batch): void;
}

/**
 * Packets for one or more connections, in order, and their bytes made once for all of them.
 * Its bytes count once in the bytes held for all connections (`QueueTotal.inSockets`) from the
 * first socket it is handed to until the last of them has sent it, however many sockets hold it.
 */
export class Batch {
  private joined: Buffer | undefined;
  private readonly encodings = new Map<(batch: Batch) => Buffer[], Buffer[]>();
  /** Sockets that hold it unsent. */
  private holders = 0;
  /** When it was made (Date.now()): how old what a socket still holds of it is. */
  readonly madeAt = Date.now();

  constructor(
    readonly packets: readonly Buffer[],
    /** Bytes of `packets`. */
    readonly length: number,
  ) {}

  /** One more socket holds it unsent (the first counts its bytes in `total`). */
  hold(total: QueueTotal): void {
    if (this.holders++ === 0) total.inSockets += this.length;
  }

  /** A socket sent it, or closed (the last lets its bytes go from `total`). */
  release(total: QueueTotal): void {
    if (--this.holders === 0) total.inSockets -= this.length;
  }

  /** The packets as one Buffer (joined once, shared by every connection of the batch: never modified). */
  get data(): Buffer {
    if (this.joined === undefined)
      this.joined = this.packets.length === 1 ? this.packets[0]! : Buffer.concat(this.packets, this.length);
    return this.joined;
  }

  /** `encode(this)` made once for every connection of the batch (a transport's framing). */
  encoded(encode: (batch: Batch) => Buffer[]): Buffer[] {
    let out = this.encodings.get(encode);
    if (out === undefined) {
      out = encode(this);
      this.encodings.set(encode, out);
    }
    return out;
  }

  /** Whether `queue` holds the very packets of this batch, in order. */
  holds(queue: readonly Buffer[]): boolean {
    const packets = this.packets;
    if (queue.length !== packets.length) return false;
    for (let i = 0; i < queue.length; i++) if (queue[i] !== packets[i]) return false;
    return true;
  }
}

/**
 * Hands every connection's queue to its socket a few milliseconds after the first message of a
 * batch, all connections at once (see above).
 */
export class Flusher {
  private readonly dirty = new Set<FlushTarget>();
  private timer: NodeJS.Timeout | undefined;
  /** The delay of the next flush, from the connections written at the latest one. */
  private delayMs: number;

  constructor(
    /** The least delay between a message and its flush, in ms. */
    private readonly minDelayMs: number,
    /** Socket writes per second, all connections together, that the delay aims to stay under. */
    private readonly maxWritesPerSecond = Number.POSITIVE_INFINITY,
    /** The bytes held for all connections: none is queued once a flush took every queue. */
    private readonly total = new QueueTotal(),
  ) {
    this.delayMs = minDelayMs;
  }

  schedule(conn: FlushTarget): void {
    this.dirty.add(conn);
    if (this.timer === undefined) this.timer = setTimeout(() => this.flushAll(), this.delayMs);
  }

  /** Forgets a closed connection. */
  cancel(conn: FlushTarget): void {
    this.dirty.delete(conn);
  }

  private flushAll(): void {
    this.timer = undefined;
    const conns = [...this.dirty];
    this.dirty.clear();
    const recent: Batch[] = [];
    for (const conn of conns) {
      const queue = conn.takeQueue();
      if (queue === undefined) continue;
      let batch = recent.find((b) => b.holds(queue.packets));
      if (batch === undefined) {
        batch = new Batch(queue.packets, queue.bytes);
        recent.unshift(batch);
        if (recent.length > RECENT_BATCHES) recent.pop();
      }
      conn.write(batch);
    }
    // every connection with a queue was in `dirty` (a queue's first packet schedules it)
    this.total.queued = 0;
    const spread = (conns.length * 1000) / this.maxWritesPerSecond;
    this.delayMs = Math.max(this.minDelayMs, Math.min(MAX_DELAY_MS, spread));
  }
}
