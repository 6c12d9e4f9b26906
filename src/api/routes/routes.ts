import type { FastifyInstance } from "fastify";
import type { ApiNode } from "../apiNode.js";
import { unavailable } from "../errors.js";
import type { RoutesJson } from "../json/core.js";
import { getRoute, type RouteDefinition, registerRoute } from "../routeDefinition.js";
import { arrayOf, closedObject, Tag } from "../schemas/common.js";
import { nodeHealth } from "./core.js";

/**
 * Node-level routes outside the plugins: `GET /health` (200 when healthy, else 503, as Hornet
 * and iota.js's `health()` expect) and `GET /api/routes`, which lists the API plugins the way
 * Hornet's route manager does ("core/v2", "indexer/v1", "explorer/v2", ...). The list is taken
 * from the routes as they are registered, so register this module before the route modules.
 */

/** `/api/<plugin>/<version>/...` → `<plugin>/<version>`. */
const PLUGIN_ROUTE = /^\/api\/([a-z0-9-]+\/v[0-9]+)\//i;

export const NODE_ROUTES = {
  health: getRoute(
    "/health",
    {
      summary: "Whether the node is healthy",
      description: "200 with an empty body when a recent milestone is confirmed, else 503.",
      tags: [Tag.Node],
    },
    { type: "null", description: "the node is healthy" },
    [403, 500, 503],
  ),
  routes: getRoute(
    "/api/routes",
    { summary: "The API plugins the node serves", tags: [Tag.Node] },
    closedObject<RoutesJson>(
      { routes: arrayOf({ type: "string" }, 'plugin names and versions, e.g. "core/v2"') },
      ["routes"],
      "the plugins",
    ),
    [403, 500],
  ),
} satisfies Record<string, RouteDefinition>;

export function registerNodeRoutes(app: FastifyInstance, node: ApiNode): void {
  const plugins: string[] = [];
  app.addHook("onRoute", (route) => {
    const m = PLUGIN_ROUTE.exec(route.url);
    if (m && !plugins.includes(m[1]!)) plugins.push(m[1]!);
  });

  registerRoute(app, NODE_ROUTES.health, async (_request, reply) => {
    const health = nodeHealth(node);
    if (!health.healthy) throw unavailable(`the node is not healthy: ${health.reason}`);
    return reply.code(200).send();
  });

  registerRoute(app, NODE_ROUTES.routes, async (): Promise<RoutesJson> => ({ routes: [...plugins] }));
}
