import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";

/**
 * What one client can hold of the API server (fastify 5 leaves every one of these off): how
 * long a request may take to arrive whole (a body trickled a byte at a time is cut off), how
 * long a connection may sit idle, and how many connections stay open, in total and per client
 * address. At a cap a new connection is not refused: the oldest idle connection (of that
 * address, or of all) is closed instead, so idle sockets held by one client cannot lock others
 * out, and the node keeps file descriptors for its database (docs/decisions.md, Threats).
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
}

export const defaultApiConnectionOptions: ApiConnectionOptions = {
  requestTimeoutMs: 30_000,
  idleTimeoutMs: 60_000,
  maxConnections: 256,
  maxConnectionsPerAddress: 64,
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

/** Keeps `server`'s open connections within the caps, closing the oldest idle ones first. */
export function limitConnections(server: Server, o: ApiConnectionOptions): void {
  /** Open connections, oldest first (a Set keeps insertion order), and by client address. */
  const open = new Set<Socket>();
  const byAddress = new Map<string, Set<Socket>>();
  /**
   * Each connection's latest response: one with a response not yet written out has a request in
   * progress and is never closed for room. (One map write per request, no listener per request:
   * this runs on every request of the hot read routes.)
   */
  const latest = new WeakMap<Socket, ServerResponse>();
  const oldestIdle = (sockets: Iterable<Socket>, except: Socket): Socket | undefined => {
    for (const s of sockets) if (s !== except && latest.get(s)?.writableFinished !== false) return s;
    return undefined;
  };
  server.on("request", (request: IncomingMessage, response: ServerResponse) => {
    latest.set(request.socket, response);
  });
  // A connection upgraded to a WebSocket (the event API) leaves the HTTP pools: it is a
  // subscription, never idle in the HTTP sense, and the event API caps its own clients.
  server.on("upgrade", (_request: IncomingMessage, socket: Socket) => {
    open.delete(socket);
    byAddress.get(socket.remoteAddress ?? "")?.delete(socket);
  });
  server.on("connection", (socket: Socket) => {
    const address = socket.remoteAddress ?? "";
    let mine = byAddress.get(address);
    if (!mine) {
      mine = new Set();
      byAddress.set(address, mine);
    }
    open.add(socket);
    mine.add(socket);
    socket.once("close", () => {
      open.delete(socket);
      mine.delete(socket);
      if (mine.size === 0) byAddress.delete(address);
    });
    if (mine.size > o.maxConnectionsPerAddress) {
      (oldestIdle(mine, socket) ?? socket).destroy();
    } else if (open.size > o.maxConnections) {
      (oldestIdle(open, socket) ?? socket).destroy();
    }
  });
}
