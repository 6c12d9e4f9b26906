import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { ConnectionBudget, type ConnectionPool, type EvictReason, type Slot } from "./connectionBudget.js";
import { errorBody } from "./errors.js";

/**
 * What one client can hold of an HTTP server (fastify 5 leaves every one of these off): how
 * long a request may take to arrive whole, the rate below which a request body is cut off, how
 * long a connection may sit idle, and how many connections stay open, in total and per client
 * address. At a cap a connection makes room for the newcomer, by the rules of
 * connectionBudget.ts: the one idle or trickling its body the longest, else the oldest of the
 * address holding the most slots; only when neither exists is the newcomer closed. So sockets
 * held by a few addresses, idle or trickling, cannot lock any other client out
 * (docs/decisions.md, Threats, "Fair slots").
 */
export interface ApiConnectionOptions {
  /** Longest time for a whole request, headers and body, in ms. */
  requestTimeoutMs: number;
  /** Longest silence on an open connection, in ms. */
  idleTimeoutMs: number;
  /** Open connections at most. */
  maxConnections: number;
  /** Open connections of one client address at most. */
  maxConnectionsPerAddress: number;
  /**
   * Lowest average rate of a request body, in bytes per second, once `bodyGraceMs` have passed
   * since its headers (Apache's mod_reqtimeout `MinRate=500`; a slow mobile link sends
   * kilobytes per second).
   */
  minBodyBytesPerSecond: number;
  /** Time a request body may take before its rate is held to the minimum, in ms. */
  bodyGraceMs: number;
}

export const defaultApiConnectionOptions: ApiConnectionOptions = {
  requestTimeoutMs: 30_000,
  idleTimeoutMs: 60_000,
  maxConnections: 256,
  maxConnectionsPerAddress: 64,
  minBodyBytesPerSecond: 500,
  bodyGraceMs: 5_000,
};

/** The fastify options that set the timeouts (`http` goes to `http.createServer`). */
export function timeoutOptions(o: ApiConnectionOptions) {
  return {
    requestTimeout: o.requestTimeoutMs,
    connectionTimeout: o.idleTimeoutMs,
    keepAliveTimeout: Math.min(5_000, o.idleTimeoutMs),
    http: {
      headersTimeout: Math.min(10_000, o.requestTimeoutMs),
      // how often node checks the two timeouts above (30 s by default)
      connectionsCheckingInterval: Math.max(100, Math.min(1_000, Math.floor(o.requestTimeoutMs / 2))),
    },
  };
}

/** One HTTP connection in its pool. */
class HttpSlot implements Slot {
  kind: Slot["kind"] = "http";
  readonly address: string;
  readonly openedAt = Date.now();
  /**
   * The latest request and its response: one whose response is not yet written out is in
   * progress. (Two field writes per request, no listener per request: this runs on every
   * request of the hot read routes.)
   */
  request: IncomingMessage | undefined;
  response: ServerResponse | undefined;
  requestAt = 0;
  bytesAtRequest = 0;
  /** Asked to become a WebSocket: in use until the event API takes it over or it closes. */
  upgrading = false;

  constructor(
    readonly socket: Socket,
    private readonly o: ApiConnectionOptions,
  ) {
    this.address = socket.remoteAddress ?? "";
  }

  /** Bytes per second of the request body so far. */
  bodyRate(now: number): number {
    const elapsed = Math.max(1, now - this.requestAt);
    return ((this.socket.bytesRead - this.bytesAtRequest) * 1000) / elapsed;
  }

  /** Whether the latest request is answered (or none came yet). */
  private answered(): boolean {
    return !this.response || this.response.writableFinished;
  }

  /** Whether a request in progress has its body arriving below the minimum rate. */
  private starving(now: number): boolean {
    return !this.answered() && !this.request!.complete && this.bodyRate(now) < this.o.minBodyBytesPerSecond;
  }

  /** Whether a request body is arriving below the minimum rate, past its grace. */
  trickling(now: number): boolean {
    return this.starving(now) && now - this.requestAt > this.o.bodyGraceMs;
  }

  idleFor(now: number): number {
    if (this.upgrading) return 0;
    // no request yet, or the latest answered: idle since it came (a request takes milliseconds)
    if (this.answered()) return now - (this.requestAt || this.openedAt);
    // a request in progress is of use unless its body arrives below the floor
    return this.starving(now) ? now - this.requestAt : 0;
  }

  evict(_reason: EvictReason): void {
    this.socket.destroy();
  }
}

/** Each open HTTP connection's slot and pool. */
const slotOf = new WeakMap<Socket, { slot: HttpSlot; pool: ConnectionPool }>();

/**
 * Keeps `server`'s open connections within `pool` (made from the node's connection budget), and
 * cuts off request bodies that arrive below the minimum rate with a 400 that says so.
 */
export function limitConnections(
  server: Server,
  o: ApiConnectionOptions,
  pool: ConnectionPool = new ConnectionBudget().pool({
    max: o.maxConnections,
    maxPerAddress: o.maxConnectionsPerAddress,
  }),
): void {
  const open = new Set<HttpSlot>();
  server.on("request", (request: IncomingMessage, response: ServerResponse) => {
    const slot = slotOf.get(request.socket)?.slot;
    if (!slot) return;
    slot.request = request;
    slot.response = response;
    slot.requestAt = Date.now();
    slot.bytesAtRequest = request.socket.bytesRead;
  });
  // A connection upgraded to a WebSocket (the event API) leaves the HTTP pool: the event API
  // takes it into its own (api/mqtt/eventApi.ts, through `releaseUpgraded`).
  server.on("upgrade", (_request: IncomingMessage, socket: Socket) => {
    const held = slotOf.get(socket);
    if (!held) return;
    held.slot.upgrading = true;
    open.delete(held.slot);
  });
  // The HTTP server's own handling of a connection (its parser) runs only once the connection
  // is admitted: a refused one may be held unread (`turnAway`), never served.
  const serve = server.listeners("connection") as ((socket: Socket) => void)[];
  server.removeAllListeners("connection");
  server.on("connection", (socket: Socket) => {
    const slot = new HttpSlot(socket, o);
    if (!pool.admit(slot)) {
      pool.turnAway(socket, slot.address);
      return;
    }
    for (const listener of serve) listener.call(server, socket);
    slotOf.set(socket, { slot, pool });
    open.add(slot);
    socket.once("close", () => {
      open.delete(slot);
      pool.release(slot);
    });
  });
  // Bodies trickled below the floor are cut off whether or not the slots are full.
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const slot of open) if (slot.trickling(now)) refuseTrickle(slot, now, o.minBodyBytesPerSecond);
  }, 1_000);
  sweep.unref();
  server.once("close", () => clearInterval(sweep));
}

/**
 * Gives back the HTTP slot of a connection upgraded to a WebSocket, for the event API to take
 * it into its own pool (a WebSocket is a subscription, not an HTTP request).
 */
export function releaseUpgraded(socket: Socket): void {
  const held = slotOf.get(socket);
  if (!held) return;
  slotOf.delete(socket);
  held.pool.release(held.slot);
}

function refuseTrickle(slot: HttpSlot, now: number, floor: number): void {
  const socket = slot.socket;
  if (socket.writable && !slot.response?.headersSent) {
    const rate = Math.round(slot.bodyRate(now));
    const body = JSON.stringify(
      errorBody(400, `the request body arrived at ${rate} bytes/s, below the minimum of ${floor} bytes/s`),
    );
    socket.write(
      `HTTP/1.1 400 Bad Request\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
