import { Gauge } from "prom-client";
import type { ConnectionBudget } from "../connectionBudget.js";
import type { EventBroker } from "../mqtt/broker.js";
import type { MetricsScraper } from "./scraper.js";

/**
 * The connection budget and the event API's budgets (docs/decisions.md, "Fair slots"), under
 * names of our own (Hornet has none for these): open connections by kind and the budget's limit,
 * connections evicted and newcomers refused by kind, the event API's subscriptions and queued
 * bytes, refused subscriptions and dropped clients by reason. Read at each scrape: nothing is
 * counted twice, and the counters only grow.
 */
export function registerConnectionMetrics(
  scraper: MetricsScraper,
  budget: ConnectionBudget,
  broker: () => EventBroker | undefined,
): void {
  const registers = [scraper.registry];
  const gauge = <L extends string = never>(name: string, help: string, labelNames: L[] = []) =>
    new Gauge<L>({ name, help, labelNames, registers });
  const open = gauge("ledger_node_connections", "Open connections by kind (http, websocket, mqtt, p2p).", ["kind"]);
  const limit = gauge("ledger_node_connections_limit", "Client connections of every server together at most.");
  const evicted = gauge(
    "ledger_node_connections_evicted_total",
    "Connections closed to make room for a newcomer, by kind.",
    ["kind"],
  );
  const refused = gauge(
    "ledger_node_connections_refused_total",
    "Newcomers refused because no connection could make room, by kind.",
    ["kind"],
  );
  const subscriptions = gauge("ledger_node_event_api_subscriptions", "Event API subscriptions of every client.");
  const queued = gauge("ledger_node_event_api_queued_bytes", "Bytes queued for every event API client.");
  const refusedSubscriptions = gauge(
    "ledger_node_event_api_refused_subscriptions_total",
    "Event API subscriptions refused (unknown topic, malformed ID, over a budget).",
  );
  const dropped = gauge("ledger_node_event_api_dropped_clients_total", "Event API clients disconnected, by reason.", [
    "reason",
  ]);

  scraper.addCollect(() => {
    for (const [kind, n] of Object.entries(budget.openByKind())) open.set({ kind }, n);
    limit.set(budget.options.maxConnections);
    for (const [kind, n] of Object.entries(budget.stats.evicted)) evicted.set({ kind }, n);
    for (const [kind, n] of Object.entries(budget.stats.refused)) refused.set({ kind }, n);
    const stats = broker()?.stats;
    if (!stats) return;
    subscriptions.set(stats.subscriptions);
    queued.set(stats.queuedBytes);
    refusedSubscriptions.set(stats.refusedSubscriptions);
    for (const [reason, n] of Object.entries(stats.dropped)) dropped.set({ reason }, n);
  });
}
