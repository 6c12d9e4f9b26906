import type { FastifyInstance } from "fastify";
import type { ApiNode } from "../apiNode.js";
import type { ConnectionBudget } from "../connectionBudget.js";
import { connectionFigures } from "../connectionFigures.js";
import type { ConnectionFiguresJson, DashboardNodeJson } from "../json/dashboard.js";
import { CachedDirectorySize } from "../metrics/databaseMetrics.js";
import { eventApiOf } from "../mqtt/eventApi.js";
import { getRoute, type RouteDefinition, registerRoute } from "../routeDefinition.js";
import { closedObject, integer, Tag } from "../schemas/common.js";

/**
 * `GET /api/dashboard/v1/node`: what the dashboard's home page shows of the node process and
 * no public route says (the info route has milestones and rates; `/metrics` has these too but
 * is protected): its uptime, its memory and the database's size on disk, as Hornet's
 * node-dashboard shows them from its own status feed. Public under the default patterns; it
 * names no path, key or peer. The database size is measured at most every 10 s however often
 * the route is asked (metrics/databaseMetrics.ts), so polling it costs no directory scans.
 */

export const DASHBOARD_V1 = "/api/dashboard/v1";

const OPEN_BY_KIND = closedObject<ConnectionFiguresJson["open"]>(
  {
    http: integer("open HTTP connections"),
    websocket: integer("open event API connections over WebSocket"),
    mqtt: integer("open event API connections over MQTT/TCP"),
    p2p: integer("open peer connections"),
  },
  ["http", "websocket", "mqtt", "p2p"],
  "open connections by kind",
);

export const DASHBOARD_ROUTES = {
  node: getRoute(
    `${DASHBOARD_V1}/node`,
    {
      summary: "The node process's uptime, memory and database size",
      description:
        "For the dashboard's home page: seconds since the process started, its resident set and V8 heap in bytes, and the database's size on disk in bytes (measured at most every 10 s).",
      tags: [Tag.Dashboard],
    },
    closedObject<DashboardNodeJson>(
      {
        uptimeSeconds: integer("whole seconds since the node process started"),
        memory: closedObject<DashboardNodeJson["memory"]>(
          {
            rss: integer("the process's resident set size in bytes"),
            heapUsed: integer("V8 heap in use in bytes"),
            heapTotal: integer("V8 heap reserved in bytes"),
          },
          ["rss", "heapUsed", "heapTotal"],
          "the process's memory",
        ),
        databaseSize: integer("the database's files on disk, in bytes"),
        connections: closedObject<ConnectionFiguresJson>(
          {
            open: OPEN_BY_KIND,
            limit: integer("client connections of every server together at most (within the open-file limit)"),
            evicted: integer("connections closed to make room for a newcomer since the start"),
            refused: integer("newcomers refused since the start (nothing could make room)"),
            eventApi: closedObject<ConnectionFiguresJson["eventApi"]>(
              {
                subscriptions: integer("subscriptions of every client"),
                queuedBytes: integer("bytes queued for every client"),
                refusedSubscriptions: integer("subscriptions refused since the start"),
                droppedClients: integer("clients disconnected by the node since the start"),
              },
              ["subscriptions", "queuedBytes", "refusedSubscriptions", "droppedClients"],
              "the event API's budgets",
            ),
          },
          ["open", "limit", "evicted", "refused", "eventApi"],
          "connections and the event API's budgets (docs/decisions.md, Fair slots)",
        ),
      },
      ["uptimeSeconds", "memory", "databaseSize", "connections"],
      "the node process",
    ),
    [403, 500],
  ),
} satisfies Record<string, RouteDefinition>;

export function registerDashboardRoutes(app: FastifyInstance, node: ApiNode, budget: ConnectionBudget): void {
  const databaseSize = new CachedDirectorySize(node.tangle.databaseLocation);
  registerRoute(app, DASHBOARD_ROUTES.node, async (): Promise<DashboardNodeJson> => {
    const memory = process.memoryUsage();
    return {
      uptimeSeconds: Math.floor(process.uptime()),
      memory: { rss: memory.rss, heapUsed: memory.heapUsed, heapTotal: memory.heapTotal },
      databaseSize: await databaseSize.get(),
      connections: connectionFigures(budget, eventApiOf(app)?.broker),
    };
  });
}
