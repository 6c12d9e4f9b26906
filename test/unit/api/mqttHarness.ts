import { connect, type Server, type Socket } from "node:net";
import mqtt from "mqtt";
import mqttPacket from "mqtt-packet";
import type { ConnectionPool } from "../../../src/api/connectionBudget.js";
import { type BrokerOptions, defaultBrokerOptions, EventBroker, type Message } from "../../../src/api/mqtt/broker.js";
import { createMqttServer } from "../../../src/api/mqtt/eventApi.js";
import type { CurrentState } from "../../../src/api/mqtt/topics.js";

/**
 * An event API broker alone (no node) behind a real TCP server, for the `mqtt` package's client
 * and raw sockets; the current state each subscription is owed comes from `current`.
 */
export interface BrokerHarness {
  broker: EventBroker;
  port: number;
  /** Lines logged, as `level msg`. */
  lines: string[];
  /** An MQTT client of the `mqtt` package, connected. */
  client(options?: mqtt.IClientOptions): Promise<mqtt.MqttClient>;
  /** A raw TCP connection; `closed` resolves when the node closes it; `received` holds what it read. */
  raw(): Promise<RawClient>;
  close(): Promise<void>;
}

export interface RawClient {
  socket: Socket;
  closed: Promise<void>;
  received: Buffer[];
}

export async function openBroker(
  options: Partial<Omit<BrokerOptions, "hrp">> = {},
  current: (state: CurrentState) => Promise<Message | undefined> = async () => undefined,
  pool?: ConnectionPool,
): Promise<BrokerHarness> {
  const lines: string[] = [];
  const log = {
    info: (_o: object, msg: string) => lines.push(`info ${msg}`),
    warn: (_o: object, msg: string) => lines.push(`warn ${msg}`),
  };
  const broker = new EventBroker({ ...defaultBrokerOptions, ...options, hrp: "tst" }, current, log, pool);
  const server: Server = createMqttServer(broker);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  const clients: mqtt.MqttClient[] = [];
  const sockets: Socket[] = [];
  return {
    broker,
    port,
    lines,
    client: async (o = {}) => {
      const c = await mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, { reconnectPeriod: 0, ...o });
      clients.push(c);
      return c;
    },
    raw: async () => {
      const socket = connect(port, "127.0.0.1");
      sockets.push(socket);
      const received: Buffer[] = [];
      socket.on("data", (d: Buffer) => received.push(d));
      socket.on("error", () => {});
      const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
      // a connection refused at once may close before its connect event
      await Promise.race([new Promise((resolve) => socket.once("connect", resolve)), closed]);
      return { socket, closed, received };
    },
    close: async () => {
      for (const c of clients) c.end(true);
      for (const s of sockets) s.destroy();
      await broker.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A CONNECT of MQTT 3.1.1 unless told otherwise. */
export const connectPacket = (o: Partial<mqttPacket.IConnectPacket> = {}) =>
  mqttPacket.generate({
    cmd: "connect",
    protocolId: "MQTT",
    protocolVersion: 4,
    clean: true,
    clientId: "raw",
    keepalive: 0,
    ...o,
  } as mqttPacket.IConnectPacket);

export const subscribePacket = (topics: string[], messageId = 1) =>
  mqttPacket.generate({ cmd: "subscribe", messageId, subscriptions: topics.map((topic) => ({ topic, qos: 0 })) });

/** The packets in what a raw client read. */
export function packetsOf(received: Buffer[]): mqttPacket.Packet[] {
  const parser = mqttPacket.parser({ protocolVersion: 4 });
  const out: mqttPacket.Packet[] = [];
  parser.on("packet", (p) => out.push(p));
  parser.parse(Buffer.concat(received));
  return out;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms);
    }),
  ]);
}

/** Resolves when `client` closes. */
export const closeOf = (client: mqtt.MqttClient) =>
  new Promise<void>((resolve) => client.once("close", () => resolve()));

/** A topic `block-metadata/{id}` for a number. */
export const metadataTopic = (i: number) => `block-metadata/0x${i.toString(16).padStart(64, "0")}`;
