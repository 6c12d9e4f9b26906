import type { FastifyInstance } from "fastify";
import type { ApiNode } from "../apiNode.js";
import type { ConnectionBudget } from "../connectionBudget.js";
import { eventApiOf } from "../mqtt/eventApi.js";
import { BEARER_JWT } from "../openapi.js";
import { getRoute, type RouteDefinition, registerRoute } from "../routeDefinition.js";
import { Tag } from "../schemas/common.js";
import { registerConnectionMetrics } from "./connectionMetrics.js";
import { registerDatabaseMetrics } from "./databaseMetrics.js";
import { type GossipCounters, registerGossipMetrics } from "./gossipMetrics.js";
import { registerNodeMetrics } from "./nodeMetrics.js";
import { registerRestApiMetrics } from "./restApiMetrics.js";
import { MetricsScraper } from "./scraper.js";
import { registerSpammerMetrics } from "./spammerMetrics.js";

/**
 * `GET /metrics`: the node's metrics in the Prometheus text format, under Hornet's names
 * (docs/decisions.md, Metrics). On the API port it is protected by default (the access patterns
 * of auth.ts, like the control routes); `--prometheus-port` serves it on a listener of its own
 * without a token, like Hornet's `prometheus.bindAddress`.
 */

export const METRICS_PATH = "/metrics";

export const METRICS_ROUTE: RouteDefinition = getRoute(
  METRICS_PATH,
  {
    summary: "Metrics in the Prometheus text format",
    description:
      "Node state (iota_node_*), gossip per peer (iota_gossip_*), database (iota_database_*), HTTP requests and PoW (iota_restapi_*), connections and the event API's budgets (ledger_node_connections*, ledger_node_event_api_*), the spammer (iota_spammer_*) and process metrics (process_*, nodejs_*), read at each scrape. Protected by default; also on --prometheus-port without a token.",
    tags: [Tag.Node],
    security: [{ [BEARER_JWT]: [] }],
  },
  {
    description: "the Prometheus text exposition format, version 0.0.4",
    content: { "text/plain": { schema: { type: "string", description: "metric families, one sample a line" } } },
  },
  [403, 500],
);

const scrapers = new WeakMap<FastifyInstance, MetricsScraper>();

/** The metrics `registerMetrics` set up on `app` (for a listener of their own). */
export function metricsOf(app: FastifyInstance): MetricsScraper | undefined {
  return scrapers.get(app);
}

/** Serves `scraper`'s metrics at `GET /metrics` on `app`. */
export function registerMetricsRoute(app: FastifyInstance, scraper: MetricsScraper): void {
  registerRoute(app, METRICS_ROUTE, async (_request, reply) => {
    const text = await scraper.scrape();
    return reply.type(scraper.contentType).send(text);
  });
}

/**
 * The node's metrics on `app`: a registry of its own (several nodes in one process never share
 * one), the collectors of node, gossip, database and REST API metrics, the counting of `app`'s
 * answers and the route. Register it before the route modules so their PoW is observed.
 */
export function registerMetrics(app: FastifyInstance, node: ApiNode, budget: ConnectionBudget): MetricsListeners {
  const scraper = new MetricsScraper();
  registerNodeMetrics(scraper, node);
  registerConnectionMetrics(scraper, budget, () => eventApiOf(app)?.broker);
  const listeners = { gossip: registerGossipMetrics(scraper, node), database: registerDatabaseMetrics(scraper, node) };
  registerRestApiMetrics(scraper, app);
  registerSpammerMetrics(scraper, node);
  registerMetricsRoute(app, scraper);
  scrapers.set(app, scraper);
  return listeners;
}

/** The metrics' listeners of the node's events, which api/server.ts attaches. */
export interface MetricsListeners {
  gossip: GossipCounters;
  database: { pruned(): void };
}
