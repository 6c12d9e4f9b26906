import { createServer, type Server, type Socket } from "node:net";
import websocket from "@fastify/websocket";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { WebSocket } from "ws";
import { RateLimitedLog } from "../../util/rateLimitedLog.js";
import type { ApiNode } from "../apiNode.js";
import { ConnectionBudget } from "../connectionBudget.js";
import { releaseUpgraded } from "../connectionLimits.js";
import { type BrokerOptions, defaultBrokerOptions, EventBroker } from "./broker.js";
import type { Transport } from "./connection.js";
import type { Batch } from "./flusher.js";
import { EventPublisher } from "./publisher.js";
import type { MqttSession } from "./session.js";

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
  /** The node's connection budget; the event API takes its pool from it. */
  budget: ConnectionBudget = new ConnectionBudget(),
): EventApi {
  const log = app.log.child({ module: "mqtt" });
  const o: BrokerOptions = { ...defaultBrokerOptions, ...options, hrp: node.tangle.protocolParameters.bech32Hrp };
  let publisher: EventPublisher | undefined;
  const broker = new EventBroker(
    o,
    (state) => publisher!.current(state),
    log,
    budget.pool({ max: o.maxClients, maxPerAddress: o.maxClientsPerAddress }),
  );
  const lines = new RateLimitedLog(log);
  publisher = new EventPublisher(node, broker, (e) => log.error({ err: e }, "event API: publishing failed"));
  const tcpServers: Server[] = [];

  // a WebSocket message carries MQTT bytes: none may be longer than the longest packet allowed
  // A WebSocket's errors (a message over maxPayload: ws's RangeError WS_ERR_UNSUPPORTED_MESSAGE_LENGTH,
  // a bad frame) are a client's doing: its session ends and logs them, rate-limited
  // (attachWebSocket). The plugin's own handler would log each at error level with its stack:
  // this one only closes the socket, and logs (rate-limited, the message only) what is not a
  // WebSocket protocol error. No compression (permessage-deflate, RFC 7692) is negotiated: a
  // batch is framed once for all its subscribers (attachWebSocket), where ws would compress each
  // subscriber's copy on its own.
  app.register(websocket, {
    options: { maxPayload: broker.maxPacketBytes + 16, perMessageDeflate: false },
    errorHandler: (error: Error, socket: WebSocket) => {
      socket.terminate();
      if (!isWebSocketError(error))
        lines.warn("websocketHandler", { err: error.message }, "event API: WebSocket handler failed");
    },
  });
  // An upgrade request that is answered instead of upgraded (403 from the access check, which
  // runs before the WebSocket plugin's own hooks, a 404, a 400) was written on a socket HTTP no
  // longer manages and the connection bounds no longer count: it is closed once answered, or a
  // client could keep any number of them open.
  app.addHook("onResponse", (request, _reply, done) => {
    if (request.raw.headers.upgrade !== undefined && !request.raw.socket.destroyed) request.raw.socket.destroy();
    done();
  });
  app.register(async (scope) => {
    scope.get(MQTT_ROUTE, { websocket: true, schema: { hide: true } }, (socket: WebSocket, request: FastifyRequest) => {
      // the upgraded connection leaves the HTTP pool for the event API's
      releaseUpgraded(request.raw.socket);
      attachWebSocket(broker, socket, request.raw.socket.remoteAddress ?? "");
    });
  });
  app.addHook("onReady", async () => {
    await broker.start();
  });
  app.addHook("onClose", async () => {
    for (const s of tcpServers) s.close();
    await broker.close();
    lines.close();
  });

  const api: EventApi = {
    broker,
    publisher,
    listenTcp: (host, port) =>
      new Promise((resolve, reject) => {
        const server = createMqttServer(broker);
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

/** ws's errors for what a peer sent (their codes: `WS_ERR_*`). */
function isWebSocketError(error: Error): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && code.startsWith("WS_ERR_");
}

/**
 * A WebSocket as a subscriber connection: each binary message is a run of MQTT bytes (MQTT
 * 3.1.1 §6.0: a frame may hold several packets, or part of one, and packets need not align with
 * frames). A batch goes out as one frame (or a few, past MAX_FRAME_BYTES), framed once for every
 * subscriber it goes to (flusher.ts) and written to the socket underneath as it is: one write per
 * subscriber and flush. The frames are what ws's `send` would write (the event API negotiates no
 * compression, see `registerEventApi`), built here so that they are built once.
 */
function attachWebSocket(broker: EventBroker, socket: WebSocket, address: string): void {
  const raw = (socket as unknown as { _socket?: Socket })._socket;
  const transport: Transport = {
    write: (batch, sent) => {
      // closing (a close frame sent or received, RFC 6455 §5.5.1): no data frame may follow
      if (socket.readyState !== socket.OPEN) return sent();
      if (raw === undefined) {
        socket.send(batch.data, { binary: true }, sent);
        return;
      }
      if (!raw.writable) return sent();
      const frames = batch.encoded(webSocketFrames);
      if (frames.length === 1) raw.write(frames[0]!, sent);
      else {
        raw.cork();
        for (let i = 0; i < frames.length - 1; i++) raw.write(frames[i]!);
        raw.write(frames[frames.length - 1]!, sent);
        raw.uncork();
      }
    },
    get unsent() {
      return socket.bufferedAmount;
    },
    close: (graceful) => {
      if (!graceful) {
        // the socket errored first: see `dropped`
        if (raw) dropped(raw);
        socket.terminate();
        return;
      }
      socket.close(1000);
      setTimeout(() => socket.terminate(), 1_000).unref();
    },
  };
  const session = broker.connect(transport, "websocket", address);
  if (!session) return;
  socket.on("message", (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => {
    // §6.0: MQTT travels in binary messages; any other kind closes the connection
    if (!isBinary) session.end("error", "a text WebSocket message");
    else session.receive(toBuffer(data));
  });
  socket.on("error", (e: Error) => {
    const tooLong = (e as { code?: string }).code === "WS_ERR_UNSUPPORTED_MESSAGE_LENGTH";
    session.end(tooLong ? "oversized" : "error", e.message);
  });
  socket.on("close", () => session.end());
}

/**
 * Destroys a subscriber's socket with an error. A socket destroyed without one answers each write
 * still buffered in it with an error of its own, stack trace and all: a subscriber that stopped
 * reading holds thousands of them (one per flush), and dropping such clients took 8 % of the
 * main thread under `bench events --attack`. With an error, every buffered write gets that one.
 */
function dropped(socket: Socket): void {
  socket.destroy(DROPPED);
}

/** The one error of every dropped subscriber's socket (no stack: nothing threw it). */
const DROPPED = Object.assign(new Error("the event API closed the connection"), { stack: undefined });

/** A TCP server speaking plain MQTT to `broker` (not listening yet). */
export function createMqttServer(broker: EventBroker): Server {
  return createServer((socket) => attachSocket(broker, socket));
}

/** A TCP socket as a subscriber connection; a flush is one write of the batch's bytes. */
function attachSocket(broker: EventBroker, socket: Socket): void {
  socket.setNoDelay(true);
  const transport: Transport = {
    write: (batch, sent) => {
      socket.write(batch.data, sent);
    },
    get unsent() {
      return socket.writableLength;
    },
    close: (graceful) => {
      if (socket.destroyed) return;
      if (!graceful) {
        // a reset: what the kernel still holds for a client that stopped reading is dropped too
        // (net's own flag of `resetAndDestroy`, which takes no error; see `dropped`)
        (socket as Socket & { resetAndClosing?: boolean }).resetAndClosing = true;
        dropped(socket);
        return;
      }
      socket.end();
      setTimeout(() => socket.destroy(), 1_000).unref();
    },
  };
  let session: MqttSession | undefined;
  // a reset by the client is its own leaving, not a drop
  socket.on("error", () => session?.end());
  session = broker.connect(transport, "mqtt", socket.remoteAddress ?? "");
  if (!session) return;
  const open = session;
  socket.on("data", (data: Buffer) => open.receive(data));
  socket.on("close", () => open.end());
}

/** Payload bytes of one WebSocket frame at most (a batch is 64 KB or so at 1,000 subscribers; a stalled reader's up to 8 MiB). */
const MAX_FRAME_BYTES = 1024 * 1024;

/**
 * A batch as binary frames of MAX_FRAME_BYTES of payload at most, each one Buffer (header and
 * payload), the packets copied once, straight into the frame.
 */
function webSocketFrames(batch: Batch): Buffer[] {
  if (batch.length <= MAX_FRAME_BYTES) {
    const header = frameHeader(batch.length);
    return [Buffer.concat([header, ...batch.packets], header.length + batch.length)];
  }
  const data = batch.data;
  const frames: Buffer[] = [];
  for (let at = 0; at < data.length; at += MAX_FRAME_BYTES) {
    const part = data.subarray(at, at + MAX_FRAME_BYTES);
    frames.push(Buffer.concat([frameHeader(part.length), part]));
  }
  return frames;
}

/**
 * RFC 6455 §5.2: FIN and the binary opcode (0x82), then the payload length in 7 bits, or 126 and
 * 16 bits, or 127 and 64 bits; no mask from a server (§5.1).
 */
function frameHeader(length: number): Buffer {
  if (length < 126) return Buffer.from([0x82, length]);
  if (length < 0x10000) {
    const header = Buffer.from([0x82, 126, 0, 0]);
    header.writeUInt16BE(length, 2);
    return header;
  }
  const header = Buffer.alloc(10);
  header[0] = 0x82;
  header[1] = 127;
  header.writeBigUInt64BE(BigInt(length), 2);
  return header;
}

function toBuffer(data: Buffer | ArrayBuffer | Buffer[]): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}
