import mqttPacket, { type ISubscribePacket } from "mqtt-packet";
import { MemoryRelease } from "../../util/memoryRelease.js";
import { type RateLimitedLevel, RateLimitedLog } from "../../util/rateLimitedLog.js";
import { ConnectionBudget, type ConnectionPool } from "../connectionBudget.js";
import { DROP_REASONS, type DropReason, type Transport } from "./connection.js";
import { CurrentStateReads } from "./currentStateReads.js";
import { Flusher, QueueTotal } from "./flusher.js";
import { MqttSession, type SessionHost, type SessionLimits } from "./session.js";
import { SubscriptionIndex } from "./subscriptions.js";
import { acceptSubscription, type CurrentState } from "./topics.js";

/**
 * The event API's broker: each client speaks MQTT 3.1.1 with its own session (session.ts), and
 * this class decides what clients may do and delivers the node's events to them, as inx-mqtt
 * does:
 *
 * - only the topics of `topics.ts` may be subscribed to (others get a refused SUBACK, §3.9.3),
 *   at most `maxSubscriptions` per client (beyond, the client is disconnected, as inx-mqtt
 *   drops it) and `maxTotalSubscriptions` across all clients (beyond, refused in the SUBACK);
 * - clients cannot publish (the connection is closed) and nothing is retained;
 * - a subscription to a topic with a current state (the latest milestone, a block's metadata,
 *   an output, a transaction's block) gets it soon after its SUBACK, read a few at a time
 *   (currentStateReads.ts);
 * - an event is serialized once as a PUBLISH packet (QoS 0) and the same bytes are queued for
 *   every connection subscribed to its topic. A subscription with the `+` condition gets the
 *   event once, under its own filter as the topic, which is what `@iota/mqtt.js` matches on (as
 *   inx-mqtt publishes);
 * - connections are held in a pool of the node's connection budget (connectionBudget.ts), and
 *   the bytes queued for all of them together stay under `maxTotalQueuedBytes` (a batch in many
 *   sockets counted once): past it, the stalled and the furthest behind are dropped first;
 * - a client whose socket still holds events older than `maxLagMs` is dropped.
 */

export interface BrokerOptions extends SessionLimits {
  /** How long the first message of a batch waits for others before the batch is written, in ms, at least. */
  flushDelayMs: number;
  /**
   * Socket writes per second, all clients together, the batches aim to stay under: with more
   * clients, each one's batch waits longer (up to 30 ms) and holds more (flusher.ts).
   */
  maxWritesPerSecond: number;
  /** Subscriptions one client may hold (inx-mqtt's default: 1,000); beyond, it is disconnected. */
  maxSubscriptions: number;
  /** Subscriptions all clients together may hold; beyond, new ones are refused in the SUBACK. */
  maxTotalSubscriptions: number;
  /** Connected clients at most, both transports together. */
  maxClients: number;
  /** Connected clients of one address at most. */
  maxClientsPerAddress: number;
  /**
   * Bytes queued for all clients together at most: here (per client) and unsent in their
   * sockets (each batch once, however many sockets hold it).
   */
  maxTotalQueuedBytes: number;
  /**
   * How far behind a client may fall, in ms: the age of the oldest batch its socket has not sent
   * yet. Past it, it is disconnected (as `slow`): events that old are of no use to it, and while
   * it holds them no other reader's can be let go.
   */
  maxLagMs: number;
  /** Current-state reads in flight at once. */
  currentStateConcurrency: number;
  /** The network's bech32 HRP, for the address topics. */
  hrp: string;
}

/** Subscriptions let go (about 300 bytes each) after which the heap is collected in full. */
const RELEASE_SUBSCRIPTIONS = 20_000;

/** Sized for a node of 2 cores and 4 GB. */
export const defaultBrokerOptions: Omit<BrokerOptions, "hrp"> = {
  flushDelayMs: 5,
  maxWritesPerSecond: 20_000,
  maxSubscriptions: 1000,
  maxTotalSubscriptions: 100_000,
  maxClients: 1000,
  maxClientsPerAddress: 256,
  maxQueuedBytes: 8 * 1024 * 1024,
  maxTotalQueuedBytes: 256 * 1024 * 1024,
  maxLagMs: 10_000,
  maxPacketBytes: 256 * 1024,
  connectTimeoutMs: 5_000,
  maxKeepAliveSeconds: 60,
  currentStateConcurrency: 8,
};

export interface BrokerLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** The transports of the event API. */
export type EventTransport = "websocket" | "mqtt";

/** What the broker counts (the node's metrics and the dashboard read them). */
export interface BrokerStats {
  /** Connected clients by transport. */
  connected: Record<EventTransport, number>;
  /** Subscriptions held now, all clients together. */
  subscriptions: number;
  /** Bytes queued for clients, here and unsent in their sockets, each batch once (read every 100 ms). */
  queuedBytes: number;
  /** Subscriptions refused (an unknown topic, a malformed ID, the total budget spent). */
  refusedSubscriptions: number;
  /** Clients disconnected (or refused) by the node, by reason. */
  dropped: Record<DropReason, number>;
  /** PUBLISH packets handed to connections. */
  delivered: number;
}

/** A message for a subscriber: its topic and payload. */
export interface Message {
  topic: string;
  payload: Buffer;
}

/** How often the sockets' unsent bytes are summed, in ms. */
const SAMPLE_MS = 100;

/** What is logged when the node drops a client, by reason. */
const DROP_LINES: Record<DropReason, [RateLimitedLevel, string]> = {
  slow: ["warn", "event API: a subscriber fell too far behind and was disconnected"],
  oversized: ["warn", "event API: a client sent an oversized packet and was disconnected"],
  subscriptions: ["info", "event API: a client asked for too many subscriptions and was disconnected"],
  publish: ["info", "event API: a client tried to publish and was disconnected"],
  error: ["info", "event API: client dropped for a protocol error"],
  full: ["warn", "event API: a client was refused: no room for it"],
  evicted: ["info", "event API: a client was closed to make room for another"],
  keepAlive: ["info", "event API: a client's keep-alive expired"],
  connectTimeout: ["info", "event API: a connection sent no CONNECT in time"],
  budget: ["warn", "event API: a subscriber was dropped: the bytes queued for all clients passed their bound"],
};

export class EventBroker implements SessionHost {
  private readonly index = new SubscriptionIndex<MqttSession>();
  private readonly sessions = new Set<MqttSession>();
  private readonly flusher: Flusher;
  private readonly total = new QueueTotal();
  private sampler: NodeJS.Timeout | undefined;
  private readonly reads: CurrentStateReads<MqttSession, Message>;
  private readonly lines: RateLimitedLog;
  /** A full collection after many subscriptions were let go at once (util/memoryRelease.ts). */
  private readonly memory = new MemoryRelease(RELEASE_SUBSCRIPTIONS);
  private readonly pool: ConnectionPool;
  readonly stats: BrokerStats = {
    connected: { websocket: 0, mqtt: 0 },
    subscriptions: 0,
    queuedBytes: 0,
    refusedSubscriptions: 0,
    dropped: Object.fromEntries(DROP_REASONS.map((r) => [r, 0])) as Record<DropReason, number>,
    delivered: 0,
  };

  constructor(
    private readonly options: BrokerOptions,
    /** The current state a subscription is owed, when there is one. */
    current: (state: CurrentState) => Promise<Message | undefined>,
    log: BrokerLog,
    /** The event API's pool in the node's connection budget. */
    pool?: ConnectionPool,
  ) {
    this.flusher = new Flusher(options.flushDelayMs, options.maxWritesPerSecond, this.total);
    this.lines = new RateLimitedLog(log);
    this.pool =
      pool ?? new ConnectionBudget().pool({ max: options.maxClients, maxPerAddress: options.maxClientsPerAddress });
    this.reads = new CurrentStateReads(
      options.currentStateConcurrency,
      current,
      (session, filter, message) => {
        // unsubscribed (or gone) while the read was under way: owed nothing
        if (session.ended || !session.filters.has(filter)) return;
        session.send(encodePublish(message.topic, message.payload));
        this.stats.delivered++;
        this.checkTotal();
      },
      (e, filter) =>
        this.lines.warn("currentState", { err: (e as Error).message, filter }, "event API: current state not read"),
    );
  }

  /** Longest MQTT packet a client may send. */
  get maxPacketBytes(): number {
    return this.options.maxPacketBytes;
  }

  /** Kept for the callers' start-up order; the broker needs nothing started. */
  async start(): Promise<void> {}

  /**
   * Hands a new connection to the broker; undefined (and the connection closed) when the pool
   * has no room for it.
   */
  connect(transport: Transport, kind: EventTransport, address: string): MqttSession | undefined {
    const session = new MqttSession(kind, address, transport, this.options, this, this.flusher, this.total);
    if (!this.pool.admit(session)) {
      session.end("full", `${this.pool.size} clients`);
      return undefined;
    }
    this.sessions.add(session);
    this.stats.connected[kind]++;
    if (this.sampler === undefined) {
      this.sampler = setInterval(() => this.sample(), SAMPLE_MS);
      this.sampler.unref();
    }
    return session;
  }

  /** Whether any connection subscribed to exactly `filter`. */
  hasSubscribers(filter: string): boolean {
    return this.index.has(filter);
  }

  /** Whether any connection subscribed to a filter whose first level is `level` (e.g. "outputs"). */
  hasSubscribersUnder(level: string): boolean {
    return this.index.hasUnder(level);
  }

  /** Sends `payload` on `topic` to its subscribers; the packet is encoded once. */
  publish(topic: string, payload: Buffer | (() => Buffer)): void {
    const holders = this.index.holders(topic);
    if (holders === undefined) return;
    const packet = encodePublish(topic, typeof payload === "function" ? payload() : payload);
    this.total.queued += packet.length;
    if (holders instanceof Set) {
      for (const session of holders) session.fanOut(packet);
      this.stats.delivered += holders.size;
    } else {
      holders.fanOut(packet);
      this.stats.delivered++;
    }
    this.checkTotal();
  }

  /** Sends `payload` once to every subscriber of any of `topics` (one event under several filters). */
  publishOnce(topics: string[], payload: () => Buffer): void {
    const seen = new Set<MqttSession>();
    let body: Buffer | undefined;
    for (const topic of topics) {
      const holders = this.index.holders(topic);
      if (holders === undefined) continue;
      body ??= payload();
      const packet = encodePublish(topic, body);
      this.total.queued += packet.length;
      for (const session of holders instanceof Set ? holders : [holders]) {
        if (seen.has(session)) continue;
        seen.add(session);
        session.fanOut(packet);
        this.stats.delivered++;
      }
    }
    this.checkTotal();
  }

  async close(): Promise<void> {
    for (const session of [...this.sessions]) session.end();
    this.lines.close();
    this.memory.close();
  }

  /** What the broker holds (tests: all zero once every client left). */
  held() {
    return {
      sessions: this.sessions.size,
      subscriptions: this.index.size,
      filters: this.index.filterCount,
      levels: this.index.levelCount,
      pendingReads: this.reads.size,
      queuedBytes: this.total.held,
      pooled: this.pool.size,
    };
  }

  /** SessionHost: a SUBSCRIBE, answered with a SUBACK or, past the per-client limit, a disconnection. */
  subscribe(session: MqttSession, packet: ISubscribePacket): void {
    const o = this.options;
    const granted: number[] = [];
    const owed: [string, CurrentState][] = [];
    for (const { topic } of packet.subscriptions) {
      const accepted = acceptSubscription(topic, o.hrp);
      if (!accepted) {
        // §3.9.3: 0x80 refuses this filter, the others of the packet stand
        granted.push(0x80);
        this.stats.refusedSubscriptions++;
        continue;
      }
      if (!session.filters.has(topic)) {
        if (session.filters.size >= o.maxSubscriptions) {
          session.end("subscriptions", `more than ${o.maxSubscriptions} subscriptions`);
          return;
        }
        if (this.index.size >= o.maxTotalSubscriptions) {
          granted.push(0x80);
          this.stats.refusedSubscriptions++;
          continue;
        }
        this.index.add(session, topic);
      }
      granted.push(0);
      if (accepted.current) owed.push([topic, accepted.current]);
    }
    this.stats.subscriptions = this.index.size;
    session.send(mqttPacket.generate({ cmd: "suback", messageId: packet.messageId!, granted }));
    for (const [filter, state] of owed) this.reads.add(session, filter, state);
  }

  /** SessionHost: an UNSUBSCRIBE's filters. */
  unsubscribe(session: MqttSession, filters: string[]): void {
    for (const filter of filters) this.index.remove(session, filter);
    this.stats.subscriptions = this.index.size;
  }

  /** SessionHost: everything the session held is let go. */
  ended(session: MqttSession, reason: DropReason | undefined, detail: string | undefined): void {
    if (reason !== undefined) {
      this.stats.dropped[reason]++;
      const [level, msg] = DROP_LINES[reason];
      this.lines.write(level, reason, { reason: detail, address: session.address, transport: session.kind }, msg);
    }
    this.pool.release(session);
    if (!this.sessions.delete(session)) return;
    this.stats.connected[session.kind]--;
    const held = this.index.size;
    this.index.removeAll(session);
    this.stats.subscriptions = this.index.size;
    this.memory.released(held - this.index.size);
    this.reads.drop(session);
    if (this.sessions.size === 0 && this.sampler !== undefined) {
      clearInterval(this.sampler);
      this.sampler = undefined;
    }
  }

  /**
   * Every SAMPLE_MS (O(clients) ten times a second, not per message): notes each socket's unsent
   * bytes (a backlog that never shrinks is a stall) and drops the clients that fell more than
   * `maxLagMs` behind.
   */
  private sample(): void {
    const now = Date.now();
    for (const session of this.sessions) {
      session.noteUnsent(session.conn.unsent, now);
      const lag = session.conn.lagMs(now);
      if (lag > this.options.maxLagMs) session.end("slow", `${lag} ms behind (at most ${this.options.maxLagMs})`);
    }
    this.stats.queuedBytes = this.total.held;
  }

  /** O(1): the running totals against the bound. */
  private checkTotal(): void {
    if (this.total.held > this.options.maxTotalQueuedBytes) this.shed();
  }

  /**
   * Drops connections until all together hold no more than the bound: those whose socket has
   * stopped taking bytes first (a reader momentarily behind is not the one to drop while a
   * client that stopped reading holds less), then the furthest behind (their batches are the
   * oldest, held by the fewest others), then those holding the most. A dropped connection lets go
   * of its queue and of the batches only it still held.
   */
  private shed(): void {
    const max = this.options.maxTotalQueuedBytes;
    const now = Date.now();
    const holders: [MqttSession, number, number][] = [];
    for (const session of this.sessions) holders.push([session, session.conn.lagMs(now), session.conn.held]);
    holders.sort((a, b) => Number(b[0].stalled) - Number(a[0].stalled) || b[1] - a[1] || b[2] - a[2]);
    for (const [session, , held] of holders) {
      if (this.total.held <= max) break;
      session.end("budget", `held ${held} bytes; all clients together more than ${max}`);
    }
    this.stats.queuedBytes = this.total.held;
  }
}

/** A QoS 0 PUBLISH packet, never retained. */
function encodePublish(topic: string, payload: Buffer): Buffer {
  return mqttPacket.generate({ cmd: "publish", topic, payload, qos: 0, retain: false, dup: false });
}
