import Fastify, { type FastifyInstance, type FastifyReply } from "fastify";
import type { ApiNode } from "./apiNode.js";
import { type ApiAuthOptions, defaultApiAuthOptions, registerAuth } from "./auth.js";
import { errorBody, registerErrorHandling, toHttpError } from "./errors.js";
import { registerControlRoutes } from "./routes/control.js";
import { registerCoreRoutes } from "./routes/core.js";
import { registerCoreV3Routes } from "./routes/coreV3.js";
import { registerExplorerRoutes } from "./routes/explorer.js";
import { registerIndexerRoutes } from "./routes/indexer.js";
import { registerNodeRoutes } from "./routes/routes.js";

/** Options of the HTTP API beyond the node itself. */
export interface ApiServerOptions {
  /** Which routes are public and which need a JWT. */
  auth: ApiAuthOptions;
}

export const defaultApiServerOptions: ApiServerOptions = { auth: defaultApiAuthOptions };

/**
 * The HTTP API, built in a function so tests can drive it with `inject()` without a port.
 * Each route group is registered by its own module under `routes/`.
 */
export function buildServer(
  node: ApiNode,
  logLevel = "info",
  options: ApiServerOptions = defaultApiServerOptions,
): FastifyInstance {
  const app = Fastify({
    logger: { level: logLevel },
    bodyLimit: 1024 * 1024,
    // errors raised before routing (a malformed percent-escape in the path) get the same mapping
    frameworkErrors: (error, _request, reply) => {
      const { status, details } = toHttpError(error);
      void (reply as FastifyReply).code(status).type("application/json").send(errorBody(status, details));
    },
  });
  registerErrorHandling(app);
  // Route modules register here, one line each (auth first: it guards the rest).
  registerAuth(app, node, options.auth);
  registerNodeRoutes(app, node);
  registerCoreRoutes(app, node);
  registerCoreV3Routes(app, node);
  registerIndexerRoutes(app, node);
  registerExplorerRoutes(app, node);
  registerControlRoutes(app, node);

  return app;
}

/** The explorer API alone, for `--explorer-port`: same routes and error mapping as on the API port. */
export function buildExplorerServer(node: ApiNode, logLevel = "info"): FastifyInstance {
  const app = Fastify({ logger: { level: logLevel }, bodyLimit: 64 * 1024 });
  registerErrorHandling(app);
  registerExplorerRoutes(app, node);
  return app;
}
