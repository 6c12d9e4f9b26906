/**
 * `GET /api/dashboard/v1/node` (routes/dashboard.ts), the one route the dashboard (web/) reads
 * beyond the public ones. Types only: the dashboard imports them, nothing of them reaches its
 * bundle.
 */

/**
 * What the node's connection budget and event API hold now, as the dashboard's node route
 * answers it and `/metrics` exposes it (metrics/connectionMetrics.ts): the figures an operator
 * watches while the node is under a flood of clients (docs/decisions.md, "Fair slots").
 */
export interface ConnectionFiguresJson {
  /** Open connections by kind. */
  open: { http: number; websocket: number; mqtt: number; p2p: number };
  /** Client connections (HTTP, WebSocket, MQTT) of every server together at most. */
  limit: number;
  /** Connections closed to make room for a newcomer, since the start. */
  evicted: number;
  /** Newcomers refused because nothing could make room, since the start. */
  refused: number;
  eventApi: {
    /** Subscriptions held by every client together. */
    subscriptions: number;
    /** Bytes queued for every client together (here and unsent in their sockets). */
    queuedBytes: number;
    /** Subscriptions refused (unknown topic, malformed ID, over a budget), since the start. */
    refusedSubscriptions: number;
    /** Clients the node disconnected (slow, oversized packets, over a budget, silent), since the start. */
    droppedClients: number;
  };
}

/** The answer. Sizes in bytes. */
export interface DashboardNodeJson {
  uptimeSeconds: number;
  memory: { rss: number; heapUsed: number; heapTotal: number };
  databaseSize: number;
  connections: ConnectionFiguresJson;
}
