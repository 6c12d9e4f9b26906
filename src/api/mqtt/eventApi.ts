import { createServer, type Server, type Socket } from "node:net";
import websocket from "@fastify/websocket";
import type { FastifyInstance } from "fastify";
import type { WebSocket } from "ws";
import type { ApiNode } from "../apiNode.js";
import { type BrokerOptions, defaultBrokerOptions, EventBroker } from "./broker.js";
import type { SubscriberConnection, Transport } from "./connection.js";
import { EventPublisher } from "./publisher.js";

/**
 * The event API (TIP-28): MQTT 3.1.1 over WebSocket at `/api/mqtt/v1` on the API port, where
 * Hornet serves inx-mqtt, behind the same route access as the REST routes (public by default),
 * and, when asked for, plain MQTT over TCP on a port of its own.
 */

export const MQTT_ROUTE = "/api/mqtt/v1";

export interface EventApi {
  broker: EventBroker;
  publisher: EventPublisher;
  /** Serves MQTT over TCP on `port` too (`--mqtt-port`); resolves once listening. */
  listenTcp(host: string, port: number): Promise<Server>;
}

const eventApis = new WeakMap<FastifyInstance, EventApi>();

/** The event API registered on `app` by `registerEventApi`. */
export function eventApiOf(app: FastifyInstance): EventApi | undefined {
  return eventApis.get(app);
}

export function registerEventApi(
  app: FastifyInstance,
  node: ApiNode,
  options: Partial<Omit<BrokerOptions, "hrp">> = {},
): EventApi {
  const log = app.log.child({ module: "mqtt" });
  let publisher: EventPublisher | undefined;
  const broker = new EventBroker(
    { ...defaultBrokerOptions, ...options, hrp: node.tangle.protocolParameters.bech32Hrp },
    (state) => publisher!.current(state),
    log,
  );
  publisher = new EventPublisher(node, broker, (e) => log.error({ err: e }, "event API: publishing failed"));
  const tcpServers: Server[] = [];
  let detach: (() => void) | undefined;

  // a WebSocket message carries MQTT bytes: none may be longer than the longest packet allowed
  app.register(websocket, { options: { maxPayload: broker.maxPacketBytes + 16 } });
  // An upgrade request that is answered instead of upgraded (403 from the access check, which
  // runs before the WebSocket plugin's own hooks, a 404, a 400) was written on a socket HTTP no
  // longer manages and the connection bounds no longer count: it is closed once answered, or a
  // client could keep any number of them open.
  app.addHook("onResponse", (request, _reply, done) => {
    if (request.raw.headers.upgrade !== undefined && !request.raw.socket.destroyed) request.raw.socket.destroy();
    done();
  });
  app.register(async (scope) => {
    scope.get(MQTT_ROUTE, { websocket: true, schema: { hide: true } }, (socket: WebSocket) => {
      attachWebSocket(broker, socket);
    });
  });
  app.addHook("onReady", async () => {
    await broker.start();
    detach = publisher!.attach(node.tangle.events);
  });
  app.addHook("onClose", async () => {
    detach?.();
    for (const s of tcpServers) s.close();
    await broker.close();
  });

  const api: EventApi = {
    broker,
    publisher,
    listenTcp: (host, port) =>
      new Promise((resolve, reject) => {
        const server = createServer((socket) => attachSocket(broker, socket));
        server.once("error", reject);
        server.listen(port, host, () => {
          tcpServers.push(server);
          resolve(server);
        });
      }),
  };
  eventApis.set(app, api);
  return api;
}

/** A WebSocket as a subscriber connection: each binary message is a run of MQTT bytes. */
function attachWebSocket(broker: EventBroker, socket: WebSocket): void {
  const transport: Transport = {
    send: (bytes) => socket.send(bytes, { binary: true }),
    get unsent() {
      return socket.bufferedAmount;
    },
    close: () => socket.terminate(),
  };
  const conn = broker.connect(transport);
  if (!conn) return;
  socket.on("message", (data: Buffer | ArrayBuffer | Buffer[]) => conn.receive(toBuffer(data)));
  wireClose(conn, socket);
}

/** A TCP socket as a subscriber connection. */
function attachSocket(broker: EventBroker, socket: Socket): void {
  socket.setNoDelay(true);
  const transport: Transport = {
    send: (bytes) => socket.write(bytes),
    get unsent() {
      return socket.writableLength;
    },
    // a reset: what the kernel still holds for a client that stopped reading is dropped too
    close: () => socket.resetAndDestroy(),
  };
  const conn = broker.connect(transport);
  if (!conn) return;
  socket.on("data", (data: Buffer) => conn.receive(data));
  wireClose(conn, socket);
}

function wireClose(conn: SubscriberConnection, socket: { on(event: "close" | "error", f: () => void): unknown }) {
  socket.on("close", () => conn.transportClosed());
  socket.on("error", () => conn.transportClosed());
}

function toBuffer(data: Buffer | ArrayBuffer | Buffer[]): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}
