import type { ConnectionBudget } from "./connectionBudget.js";
import type { ConnectionFiguresJson } from "./json/dashboard.js";
import type { EventBroker } from "./mqtt/broker.js";

/**
 * What the node's connection budget and event API hold now (json/dashboard.ts,
 * `ConnectionFiguresJson`), as the dashboard's node route answers it and `/metrics` exposes it
 * (metrics/connectionMetrics.ts).
 */

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
