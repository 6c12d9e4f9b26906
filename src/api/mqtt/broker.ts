import { Aedes, type Client } from "aedes";
import mqttPacket from "mqtt-packet";
import { type ConnectionLimits, type DropReason, Flusher, SubscriberConnection, type Transport } from "./connection.js";
import { acceptSubscription, type CurrentState } from "./topics.js";

/**
 * The event API's broker: aedes speaks MQTT 3.1.1 with each client (CONNECT, SUBSCRIBE,
 * PINGREQ, DISCONNECT), and this class decides what clients may do and delivers the node's
 * events to them, as inx-mqtt does:
 *
 * - only the topics of `topics.ts` may be subscribed to (others get a refused SUBACK), at most
 *   `maxSubscriptions` per client (beyond, the client is disconnected, as inx-mqtt drops it);
 * - clients cannot publish (the connection is closed) and nothing is retained;
 * - a subscription to a topic with a current state (the latest milestone, a block's metadata,
 *   an output, a transaction's block) gets it at once;
 * - an event is serialized once as a PUBLISH packet (QoS 0) and handed to every connection
 *   subscribed to its topic, so a hundred subscribers cost a hundred buffer appends, not a
 *   hundred encodings. A subscription with the `+` condition gets the event once, under its
 *   own filter as the topic, which is what `@iota/mqtt.js` matches on (as inx-mqtt publishes).
 */

export interface BrokerOptions extends ConnectionLimits {
  /** How long the first message of a batch waits for others before the batch is written, in ms. */
  flushDelayMs: number;
  /** Subscriptions one client may hold (inx-mqtt's default: 1,000). */
  maxSubscriptions: number;
  /** Connected clients at most; a connection beyond is closed at once. */
  maxClients: number;
  /** The network's bech32 HRP, for the address topics. */
  hrp: string;
}

export const defaultBrokerOptions: Omit<BrokerOptions, "hrp"> = {
  flushDelayMs: 5,
  maxSubscriptions: 1000,
  maxClients: 1000,
  maxQueuedBytes: 8 * 1024 * 1024,
  maxPacketBytes: 256 * 1024,
};

export interface BrokerLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** What the broker counts (the node's metrics read them). */
export interface BrokerStats {
  connected: number;
  /** Clients disconnected by the node, by reason. */
  dropped: Record<DropReason | "subscriptions" | "publish" | "error" | "full", number>;
  /** Subscriptions refused (an unknown topic or a malformed ID). */
  refusedSubscriptions: number;
  /** PUBLISH packets handed to connections. */
  delivered: number;
}

/** A message for a subscriber: its topic and payload. */
export interface Message {
  topic: string;
  payload: Buffer;
}

export class EventBroker {
  private readonly aedes: Aedes;
  /** Connections by the topic filters they subscribed to. */
  private readonly subscribers = new Map<string, Set<SubscriberConnection>>();
  /** How many filters in `subscribers` start with each first level. */
  private readonly byFirstLevel = new Map<string, number>();
  /** Each client's filters. */
  private readonly filtersOf = new WeakMap<SubscriberConnection, Set<string>>();
  private readonly connections = new Set<SubscriberConnection>();
  private readonly flusher: Flusher;
  readonly stats: BrokerStats = {
    connected: 0,
    dropped: { slow: 0, oversized: 0, subscriptions: 0, publish: 0, error: 0, full: 0 },
    refusedSubscriptions: 0,
    delivered: 0,
  };

  constructor(
    private readonly options: BrokerOptions,
    /** The current state a subscription is owed, when there is one. */
    private readonly current: (state: CurrentState) => Promise<Message | undefined>,
    private readonly log: BrokerLog,
  ) {
    this.flusher = new Flusher(options.flushDelayMs);
    this.aedes = new Aedes({
      // no deliveries go through aedes's own queue (see publish), so one slot is plenty
      concurrency: 1,
      heartbeatInterval: 24 * 3600_000,
      authorizePublish: (client, _packet, callback) => {
        if (client) this.dropClient(client, "publish", "a client tried to publish");
        callback(new Error("clients cannot publish"));
      },
      authorizeSubscribe: (client, sub, callback) => callback(null, this.authorize(client, sub.topic) ? sub : null),
    });
    this.aedes.on("subscribe", (subs, client) => {
      const conn = connectionOf(client);
      // a refused subscription comes back with QoS 128 (MQTT 3.1.1 §3.9.3)
      for (const s of subs) if ((s.qos as number) !== 128) this.subscribed(conn, s.topic);
    });
    this.aedes.on("unsubscribe", (topics, client) => {
      const conn = connectionOf(client);
      for (const t of topics) this.unsubscribed(conn, t);
    });
    this.aedes.on("clientError", (client, error) => {
      this.stats.dropped.error++;
      this.log.info({ client: client.id, err: error.message }, "event API: client dropped for a protocol error");
    });
  }

  /** Longest MQTT packet a client may send. */
  get maxPacketBytes(): number {
    return this.options.maxPacketBytes;
  }

  async start(): Promise<void> {
    await this.aedes.listen();
  }

  /** Hands a new connection to the broker; undefined when the node has all the clients it takes. */
  connect(transport: Transport): SubscriberConnection | undefined {
    if (this.connections.size >= this.options.maxClients) {
      this.stats.dropped.full++;
      transport.close();
      return undefined;
    }
    const conn = new SubscriberConnection(transport, this.options, this.flusher, (reason) => {
      this.stats.dropped[reason]++;
      this.log.warn(
        { reason, limit: reason === "slow" ? this.options.maxQueuedBytes : this.options.maxPacketBytes },
        reason === "slow"
          ? "event API: a subscriber fell too far behind and was disconnected"
          : "event API: a client sent an oversized packet and was disconnected",
      );
    });
    this.connections.add(conn);
    this.stats.connected = this.connections.size;
    conn.once("close", () => this.forget(conn));
    this.aedes.handle(conn);
    return conn;
  }

  /** Whether any connection subscribed to exactly `filter`. */
  hasSubscribers(filter: string): boolean {
    return this.subscribers.has(filter);
  }

  /** Whether any connection subscribed to a filter whose first level is `level` (e.g. "outputs"). */
  hasSubscribersUnder(level: string): boolean {
    return (this.byFirstLevel.get(level) ?? 0) > 0;
  }

  /** Sends `payload` on `topic` to its subscribers; the packet is encoded once. */
  publish(topic: string, payload: Buffer | (() => Buffer)): void {
    const subs = this.subscribers.get(topic);
    if (!subs) return;
    const packet = encodePublish(topic, typeof payload === "function" ? payload() : payload);
    for (const conn of subs) conn.deliver(packet);
    this.stats.delivered += subs.size;
  }

  /** Sends `payload` once to every subscriber of any of `topics` (one event under several filters). */
  publishOnce(topics: string[], payload: () => Buffer): void {
    const seen = new Set<SubscriberConnection>();
    let body: Buffer | undefined;
    for (const topic of topics) {
      const subs = this.subscribers.get(topic);
      if (!subs) continue;
      body ??= payload();
      const packet = encodePublish(topic, body);
      for (const conn of subs) {
        if (seen.has(conn)) continue;
        seen.add(conn);
        conn.deliver(packet);
        this.stats.delivered++;
      }
    }
  }

  async close(): Promise<void> {
    for (const conn of this.connections) conn.destroy();
    await new Promise<void>((resolve) => this.aedes.close(() => resolve()));
  }

  private authorize(client: Client, filter: string): boolean {
    const conn = connectionOf(client);
    const accepted = acceptSubscription(filter, this.options.hrp);
    if (!accepted) {
      this.stats.refusedSubscriptions++;
      return false;
    }
    const mine = this.filtersOf.get(conn) ?? new Set<string>();
    this.filtersOf.set(conn, mine);
    if (!mine.has(filter) && mine.size >= this.options.maxSubscriptions) {
      this.dropClient(client, "subscriptions", `more than ${this.options.maxSubscriptions} subscriptions`);
      return false;
    }
    mine.add(filter);
    return true;
  }

  private subscribed(conn: SubscriberConnection, filter: string): void {
    if (conn.destroyed) return;
    let subs = this.subscribers.get(filter);
    if (!subs) {
      subs = new Set();
      this.subscribers.set(filter, subs);
      this.countLevel(filter, 1);
    }
    subs.add(conn);
    const state = acceptSubscription(filter, this.options.hrp)?.current;
    if (!state) return;
    this.current(state).then(
      (message) => {
        if (message && !conn.destroyed) {
          conn.deliver(encodePublish(message.topic, message.payload));
          this.stats.delivered++;
        }
      },
      (e: unknown) => this.log.warn({ err: (e as Error).message, filter }, "event API: current state not read"),
    );
  }

  private unsubscribed(conn: SubscriberConnection, filter: string): void {
    this.filtersOf.get(conn)?.delete(filter);
    this.removeSubscriber(conn, filter);
  }

  private forget(conn: SubscriberConnection): void {
    this.connections.delete(conn);
    this.stats.connected = this.connections.size;
    for (const filter of this.filtersOf.get(conn) ?? []) this.removeSubscriber(conn, filter);
    this.filtersOf.delete(conn);
  }

  private removeSubscriber(conn: SubscriberConnection, filter: string): void {
    const subs = this.subscribers.get(filter);
    if (!subs?.delete(conn) || subs.size > 0) return;
    this.subscribers.delete(filter);
    this.countLevel(filter, -1);
  }

  private countLevel(filter: string, by: 1 | -1): void {
    const level = filter.split("/", 1)[0]!;
    const n = (this.byFirstLevel.get(level) ?? 0) + by;
    if (n > 0) this.byFirstLevel.set(level, n);
    else this.byFirstLevel.delete(level);
  }

  private dropClient(client: Client, reason: "subscriptions" | "publish", details: string): void {
    this.stats.dropped[reason]++;
    this.log.info({ client: client.id, reason: details }, "event API: client disconnected");
    connectionOf(client).destroy();
  }
}

function connectionOf(client: Client): SubscriberConnection {
  return client.conn as unknown as SubscriberConnection;
}

/** A QoS 0 PUBLISH packet, never retained. */
function encodePublish(topic: string, payload: Buffer): Buffer {
  return mqttPacket.generate({ cmd: "publish", topic, payload, qos: 0, retain: false, dup: false });
}
