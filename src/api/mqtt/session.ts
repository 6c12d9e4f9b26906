import mqttPacket, { type IConnectPacket, type ISubscribePacket, type Packet, type Parser } from "mqtt-packet";
import type { ConnectionKind, EvictReason, Slot } from "../connectionBudget.js";
import { type ConnectionLimits, type DropReason, SubscriberConnection, type Transport } from "./connection.js";
import type { Flusher, QueueTotal } from "./flusher.js";

/**
 * The server side of MQTT 3.1.1 for one client of a subscribe-only event API: CONNECT, then
 * SUBSCRIBE, UNSUBSCRIBE, PINGREQ and DISCONNECT. Clients cannot publish, so there is no QoS
 * 1/2 flow, no retained message, no will to send, and the event API keeps no sessions: a client
 * connecting with clean session 0 is accepted (session present 0, §3.2.2.2), but nothing it
 * subscribed to is kept once its connection closes. What a subscription means (its topic, its
 * limits, its deliveries) is the broker's (`SessionHost`).
 *
 * A session is also the connection's slot in the event API's connection pool
 * (connectionBudget.ts): it is of no use while it has sent no CONNECT, or holds no subscription
 * and is silent, and may then be closed to make room for a newcomer.
 */

/** The time bounds of a session. */
export interface SessionLimits extends ConnectionLimits {
  /** Time from the socket's opening to its CONNECT, in ms. */
  connectTimeoutMs: number;
  /**
   * The longest keep-alive a client may ask for, in seconds; a keep-alive of 0 (none, §3.1.2.10)
   * or above counts as this one, so no connection may stay silent for ever.
   */
  maxKeepAliveSeconds: number;
}

/** What the broker does for a session. */
export interface SessionHost {
  /** A SUBSCRIBE: the host answers with a SUBACK (`session.send`) or closes the session. */
  subscribe(session: MqttSession, packet: ISubscribePacket): void;
  /** An UNSUBSCRIBE's filters, before its UNSUBACK. */
  unsubscribe(session: MqttSession, filters: string[]): void;
  /** The session ended: by the node for `reason` (with what to log), or by the client. */
  ended(session: MqttSession, reason: DropReason | undefined, detail: string | undefined): void;
}

/** MQTT 3.1.1's protocol name and level (§3.1.2.1, §3.1.2.2). */
const PROTOCOL_NAME = "MQTT";
const PROTOCOL_LEVEL = 4;

/** CONNACK return codes (§3.2.2.3). */
enum ConnackCode {
  Accepted = 0,
  UnacceptableProtocolLevel = 1,
  IdentifierRejected = 2,
}

const connack = (returnCode: ConnackCode) => mqttPacket.generate({ cmd: "connack", returnCode, sessionPresent: false });
const CONNACK_ACCEPTED = connack(ConnackCode.Accepted);
const PINGRESP = mqttPacket.generate({ cmd: "pingresp" });
/** A subscriber whose backlog has not shrunk this long has stopped reading (a reader drains within milliseconds). */
const STALL_MS = 1_000;

export class MqttSession implements Slot {
  readonly openedAt = Date.now();
  /** The filters this client holds (the broker's subscription index keeps it). */
  readonly filters = new Set<string>();
  readonly conn: SubscriberConnection;
  /** When the latest whole packet arrived. */
  private lastPacketAt = this.openedAt;
  /** Since when the socket has held unsent bytes without taking any (0: it reads). */
  private stalledSince = 0;
  private lastUnsent = 0;
  private connected = false;
  private done = false;
  private readonly parser: Parser;
  /** The CONNECT deadline, then the keep-alive deadline (refreshed by each packet). */
  private timer: NodeJS.Timeout;

  constructor(
    readonly kind: ConnectionKind & ("websocket" | "mqtt"),
    readonly address: string,
    transport: Transport,
    private readonly limits: SessionLimits,
    private readonly host: SessionHost,
    flusher: Flusher,
    private readonly total: QueueTotal,
  ) {
    this.conn = new SubscriberConnection(transport, limits, flusher, total, (reason) => this.end(reason));
    this.parser = mqttPacket.parser({ protocolVersion: PROTOCOL_LEVEL });
    this.parser.on("packet", (packet) => this.onPacket(packet));
    this.parser.on("error", (e: Error) => this.onParseError(e));
    this.timer = setTimeout(
      () => this.end("connectTimeout", `no CONNECT within ${limits.connectTimeoutMs} ms`),
      limits.connectTimeoutMs,
    );
    this.timer.unref();
  }

  /** Whether the session is over. */
  get ended(): boolean {
    return this.done;
  }

  /** Bytes from the socket. */
  receive(chunk: Buffer): void {
    if (this.done || !this.conn.receive(chunk)) return;
    this.parser.parse(chunk);
  }

  /** Queues a packet of this client's own (an answer, a current state) for it. */
  send(packet: Buffer): void {
    this.total.queued += packet.length;
    this.conn.deliver(packet);
  }

  /** Queues an event's packet, queued for other clients too (the broker counted it once). */
  fanOut(packet: Buffer): void {
    this.conn.deliver(packet);
  }

  /**
   * Slot: of no use before CONNECT (since the opening), silent while holding no subscription, or
   * holding subscriptions while its socket has taken nothing for `STALL_MS` (it stopped reading).
   */
  idleFor(now: number): number {
    if (!this.connected) return now - this.openedAt;
    if (this.filters.size === 0) return now - this.lastPacketAt;
    return this.stalledSince > 0 && now - this.stalledSince >= STALL_MS ? now - this.stalledSince : 0;
  }

  /** Whether the socket has taken nothing since the broker's last samples (it may have stopped reading). */
  get stalled(): boolean {
    return this.stalledSince > 0;
  }

  /** The broker's sample of the socket's unsent bytes (every 100 ms): a backlog that never shrinks is a stall. */
  noteUnsent(unsent: number, now: number): void {
    if (unsent > 0 && unsent >= this.lastUnsent) {
      if (this.stalledSince === 0) this.stalledSince = now;
    } else this.stalledSince = 0;
    this.lastUnsent = unsent;
  }

  /** Slot: closed to make room for a newcomer. */
  evict(reason: EvictReason): void {
    this.end("evicted", reason);
  }

  /**
   * Ends the session (idempotent): by the node for `reason`, or, without one, because the
   * client closed its connection or sent DISCONNECT. `graceful` lets what is queued (a CONNACK
   * with a refusal) reach the client before the connection closes.
   */
  end(reason?: DropReason, detail?: string, graceful = false): void {
    if (this.done) return;
    this.done = true;
    clearTimeout(this.timer);
    this.parser.removeAllListeners("packet");
    this.conn.close(graceful);
    this.host.ended(this, reason, detail);
  }

  private onPacket(packet: Packet): void {
    if (this.done) return;
    this.lastPacketAt = Date.now();
    if (!this.connected) {
      // §3.1.0: the first packet from the client MUST be a CONNECT
      if (packet.cmd === "connect") this.onConnect(packet);
      else this.end("error", `${packet.cmd} before CONNECT`);
      return;
    }
    this.timer.refresh();
    switch (packet.cmd) {
      case "subscribe":
        this.host.subscribe(this, packet);
        return;
      case "unsubscribe":
        this.host.unsubscribe(this, packet.unsubscriptions);
        // §3.11: no return codes in MQTT 3.1.1's UNSUBACK (`granted` is MQTT 5's)
        if (!this.done) this.send(mqttPacket.generate({ cmd: "unsuback", messageId: packet.messageId!, granted: [] }));
        return;
      case "pingreq":
        this.send(PINGRESP);
        return;
      case "disconnect":
        this.end();
        return;
      case "publish":
        this.end("publish", "a client tried to publish");
        return;
      case "connect":
        // §3.1.0: a second CONNECT is a protocol violation
        this.end("error", "a second CONNECT");
        return;
      default:
        // acknowledgements of QoS 1/2 (nothing is ever sent above QoS 0) and server-only packets
        this.end("error", `unexpected ${packet.cmd}`);
    }
  }

  private onConnect(packet: IConnectPacket): void {
    // §3.1.2.1 / §3.1.2.2: MQTT 3.1.1 only (MQTT 3.1's "MQIsdp" and MQTT 5 are refused with 0x01)
    if (packet.protocolId !== PROTOCOL_NAME || packet.protocolVersion !== PROTOCOL_LEVEL) {
      this.refuseConnect(
        ConnackCode.UnacceptableProtocolLevel,
        `protocol ${packet.protocolId} ${packet.protocolVersion}`,
      );
      return;
    }
    // §3.1.3.1: a zero-byte client identifier only with clean session 1
    if (packet.clientId === "" && !packet.clean) {
      this.refuseConnect(ConnackCode.IdentifierRejected, "an empty client identifier without clean session");
      return;
    }
    this.connected = true;
    // §3.1.2.10: silent for one and a half times its keep-alive, the client is disconnected
    const max = this.limits.maxKeepAliveSeconds;
    const asked = packet.keepalive ?? 0;
    const keepAlive = asked === 0 || asked > max ? max : asked;
    clearTimeout(this.timer);
    this.timer = setTimeout(
      () => this.end("keepAlive", `silent for 1.5 × its keep-alive of ${keepAlive} s`),
      keepAlive * 1500,
    );
    this.timer.unref();
    this.send(CONNACK_ACCEPTED);
  }

  private refuseConnect(code: ConnackCode, detail: string): void {
    this.send(connack(code));
    this.end("error", `CONNECT refused: ${detail}`, true);
  }

  private onParseError(e: Error): void {
    if (this.done) return;
    // §3.1.2.2: a protocol level the parser does not know either is answered with 0x01
    if (!this.connected && /protocol version/i.test(e.message)) {
      this.refuseConnect(ConnackCode.UnacceptableProtocolLevel, e.message);
      return;
    }
    this.end("error", e.message);
  }
}
