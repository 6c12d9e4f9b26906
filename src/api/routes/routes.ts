import type { FastifyInstance } from "fastify";
import type { ApiNode } from "../apiNode.js";
import { unavailable } from "../errors.js";
import type { RoutesJson } from "../json/core.js";
import { nodeHealth } from "./core.js";

/**
 * Node-level routes outside the plugins: `GET /health` (200 when healthy, else 503, as Hornet
 * and iota.js's `health()` expect) and `GET /api/routes`, which lists the API plugins the way
 * Hornet's route manager does ("core/v2", "indexer/v1", "explorer/v2", ...). The list is taken
 * from the routes as they are registered, so register this module before the route modules.
 */

/** `/api/<plugin>/<version>/...` → `<plugin>/<version>`. */
const PLUGIN_ROUTE = /^\/api\/([a-z0-9-]+\/v[0-9]+)\//i;

export function registerNodeRoutes(app: FastifyInstance, node: ApiNode): void {
  const plugins: string[] = [];
  app.addHook("onRoute", (route) => {
    const m = PLUGIN_ROUTE.exec(route.url);
    if (m && !plugins.includes(m[1]!)) plugins.push(m[1]!);
  });

  app.get("/health", async (_request, reply) => {
    const health = nodeHealth(node);
    if (!health.healthy) throw unavailable(`the node is not healthy: ${health.reason}`);
    return reply.code(200).send();
  });

  app.get("/api/routes", async (): Promise<RoutesJson> => ({ routes: [...plugins] }));
}
