import type { ConnectionBudget } from "./connectionBudget.js";
import type { EventBroker } from "./mqtt/broker.js";

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

const sum = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);

/** The figures now; `broker` is the event API's, when the server has one. */
export function connectionFigures(budget: ConnectionBudget, broker: EventBroker | undefined): ConnectionFiguresJson {
  const stats = broker?.stats;
  return {
    open: budget.openByKind(),
    limit: budget.options.maxConnections,
    evicted: sum(budget.stats.evicted),
    refused: sum(budget.stats.refused),
    eventApi: {
      subscriptions: stats?.subscriptions ?? 0,
      queuedBytes: stats?.queuedBytes ?? 0,
      refusedSubscriptions: stats?.refusedSubscriptions ?? 0,
      droppedClients: stats ? sum(stats.dropped) : 0,
    },
  };
}
