import Fastify, { type FastifyInstance, type FastifyReply } from "fastify";
import type { ApiNode } from "./apiNode.js";
import { type ApiAuthOptions, defaultApiAuthOptions, registerAuth } from "./auth.js";
import { ConnectionBudget } from "./connectionBudget.js";
import {
  type ApiConnectionOptions,
  defaultApiConnectionOptions,
  limitConnections,
  timeoutOptions,
} from "./connectionLimits.js";
import { type DashboardOptions, registerDashboard } from "./dashboard.js";
import { badRequest, clientErrorHandler, errorBody, registerErrorHandling, toHttpError } from "./errors.js";
import {
  type ApiCorsOptions,
  allowCrossOrigin,
  compressResponses,
  DebugRequestLog,
  defaultApiCorsOptions,
  requestLogger,
} from "./httpConventions.js";
import { type MetricsListeners, registerMetrics, registerMetricsRoute } from "./metrics/metricsRoute.js";
import type { MetricsScraper } from "./metrics/scraper.js";
import { MilestoneAnswers } from "./milestoneAnswers.js";
import type { BrokerOptions } from "./mqtt/broker.js";
import { registerEventApi } from "./mqtt/eventApi.js";
import type { EventPublisher } from "./mqtt/publisher.js";
import { installOpenApi } from "./openapi.js";
import { registerControlRoutes } from "./routes/control.js";
import { NODE_NAME, NODE_VERSION, registerCoreRoutes } from "./routes/core.js";
import { registerPeerRoutes } from "./routes/corePeers.js";
import { registerCoreV3Routes } from "./routes/coreV3.js";
import { registerDashboardRoutes } from "./routes/dashboard.js";
import { registerDevRoutes } from "./routes/dev.js";
import { registerExplorerRoutes } from "./routes/explorer.js";
import { registerExplorerBlockRoutes } from "./routes/explorerBlocks.js";
import { registerExplorerLedgerRoutes } from "./routes/explorerLedger.js";
import { registerFaucetRoutes } from "./routes/faucet.js";
import { registerIndexerRoutes } from "./routes/indexer.js";
import { registerIrcMetadataRoutes } from "./routes/ircMetadata.js";
import { registerPoiRoutes } from "./routes/poi.js";
import { registerNodeRoutes } from "./routes/routes.js";
import { registerSpammerRoutes } from "./routes/spammer.js";
import { AJV_OPTIONS, validationErrorFormatter } from "./validation.js";

/** Options of the HTTP API beyond the node itself. */
export interface ApiServerOptions {
  /** Which routes are public and which need a JWT. */
  auth: ApiAuthOptions;
  /** Request and idle timeouts, connection caps. */
  connections: ApiConnectionOptions;
  /** Origins allowed to call the API from a browser. */
  cors: ApiCorsOptions;
  /**
   * The node's one connection budget, shared with the explorer and Prometheus servers and the
   * event API (a fresh one when the server stands alone, as in tests).
   */
  budget?: ConnectionBudget;
  /** The event API's caps and budgets beyond their defaults (api/mqtt/broker.ts). */
  eventApi?: Partial<Omit<BrokerOptions, "hrp">>;
  /** The dashboard's image origins (dashboard.ts); none beyond the node by default. */
  dashboard?: DashboardOptions;
}

export const defaultApiServerOptions: ApiServerOptions = {
  auth: defaultApiAuthOptions,
  connections: defaultApiConnectionOptions,
  cors: defaultApiCorsOptions,
};

/** What the Prometheus server holds of the budget: a few scrapers. */
const PROMETHEUS_CONNECTIONS: ApiConnectionOptions = {
  ...defaultApiConnectionOptions,
  maxConnections: 16,
  maxConnectionsPerAddress: 4,
};

/** The largest request body any route takes (blocks have their own, smaller limit). */
export const BODY_LIMIT = 1024 * 1024;

/**
 * Longest path parameter the router matches. Far above any ID, so a too-long ID reaches its
 * schema and is refused as invalid data (400) rather than left unrouted (404).
 */
const MAX_PARAM_LENGTH = 8 * 1024;

/**
 * A fastify instance with what every server of this API shares: the body limit, request
 * validation as validation.ts sets it, the error mapping of errors.ts for every failure
 * (including those before routing and those of the HTTP parser), CORS, compression and request
 * logs at debug (httpConventions.ts), and the OpenAPI document.
 */
function createApp(
  logLevel: string,
  bodyLimit: number,
  description: string,
  connections: ApiConnectionOptions,
  budget: ConnectionBudget,
  cors: ApiCorsOptions = defaultApiCorsOptions,
): FastifyInstance {
  const app = Fastify({
    ...timeoutOptions(connections),
    logger: { level: logLevel },
    // fastify writes a line per request at info; this at debug
    logController: new DebugRequestLog(),
    childLoggerFactory: requestLogger,
    bodyLimit,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    ajv: { customOptions: { ...AJV_OPTIONS } },
    schemaErrorFormatter: validationErrorFormatter(),
    return503OnClosing: false,
    clientErrorHandler,
    // errors raised before routing (a malformed percent-escape in the path) get the same mapping
    frameworkErrors: (error, _request, reply) => {
      const { status, details } = toHttpError(error);
      void (reply as FastifyReply).code(status).type("application/json").send(errorBody(status, details));
    },
  });
  limitConnections(
    app.server,
    connections,
    budget.pool({ max: connections.maxConnections, maxPerAddress: connections.maxConnectionsPerAddress }),
  );
  // first, so their hooks run before every other one (a preflight never meets the access check)
  allowCrossOrigin(app, cors);
  compressResponses(app);
  registerErrorHandling(app);
  // synchronous, as every hook that runs on each request: no promise per request
  app.addHook("onRequest", (request, _reply, done) => {
    // fastify reads and limits bodies only where a route takes one; a declared body beyond the
    // limit is refused on any route, before it is read
    const headers = request.headers;
    const length = Number(headers["content-length"] ?? 0);
    if (length > bodyLimit)
      return done(badRequest(`the request body is too large: ${length} bytes, the limit is ${bodyLimit}`));
    // bodies are read as sent: a compressed one would be misread, so it is refused by name
    const encoding = headers["content-encoding"]?.trim().toLowerCase();
    const hasBody = length > 0 || headers["transfer-encoding"] !== undefined;
    if (hasBody && encoding && encoding !== "identity") {
      return done(badRequest(`content encoding "${encoding}" is not supported`));
    }
    done();
  });
  installOpenApi(app, { title: NODE_NAME, version: NODE_VERSION, description });
  return app;
}

/**
 * The HTTP API, built in a function so tests can drive it with `inject()` without a port.
 * Each route group is registered by its own module under `routes/`.
 */
export function buildServer(
  node: ApiNode,
  logLevel = "info",
  options: ApiServerOptions = defaultApiServerOptions,
): FastifyInstance {
  const budget = options.budget ?? new ConnectionBudget();
  const app = createApp(
    logLevel,
    BODY_LIMIT,
    "A Stardust ledger node: core v2 (TIP-25), the core v3 full-output read, indexer v1, explorer v2 and control routes",
    options.connections,
    budget,
    options.cors,
  );
  // Route modules register here, one line each (auth first: it guards the rest).
  registerAuth(app, node, options.auth);
  const metrics = registerMetrics(app, node, budget);
  const eventApi = registerEventApi(app, node, options.eventApi, budget);
  // answers of the read routes kept while the latest milestone stays (milestoneAnswers.ts)
  const answers = new MilestoneAnswers();
  attachListeners(app, node, metrics, eventApi.publisher, answers);
  registerNodeRoutes(app, node);
  registerCoreRoutes(app, node);
  registerCoreV3Routes(app, node, answers);
  registerIndexerRoutes(app, node, answers);
  registerIrcMetadataRoutes(app, node);
  registerExplorerRoutes(app, node);
  registerExplorerBlockRoutes(app, node);
  registerExplorerLedgerRoutes(app, node);
  registerControlRoutes(app, node);
  registerPeerRoutes(app, node);
  registerFaucetRoutes(app, node);
  registerPoiRoutes(app, node);
  registerDevRoutes(app, node);
  registerSpammerRoutes(app, node);
  registerDashboardRoutes(app, node, budget);
  registerDashboard(app, undefined, options.dashboard);

  return app;
}

/**
 * The API's listeners of the node's events, all attached here once the server is ready and
 * detached when it closes (ARCHITECTURE.md, Who listens to what; the node's own are attached in
 * node/components.ts): the event API's publisher, the Prometheus counters and the read routes'
 * kept answers.
 */
function attachListeners(
  app: FastifyInstance,
  node: ApiNode,
  metrics: MetricsListeners,
  publisher: EventPublisher,
  answers: MilestoneAnswers,
) {
  let attached: (() => void)[] = [];
  app.addHook("onReady", async () => {
    const events = node.tangle.events;
    attached = [
      events.on("blockTaken", (e) => publisher.onBlockTaken(e)),
      events.on("blockTaken", (e) => metrics.gossip.blockTaken(e)),
      events.on("blockSolid", (e) => publisher.onBlockSolid(e)),
      events.on("latestMilestone", (e) => publisher.latestMilestone(e)),
      events.on("milestoneConfirmed", (e) => publisher.onMilestoneConfirmed(e)),
      events.on("milestoneConfirmed", (e) => metrics.gossip.milestoneConfirmed(e)),
      events.on("pruned", () => metrics.database.pruned()),
      events.on("reverted", (e) => publisher.reverted(e)),
      // pruning and a revert change what a kept answer shows without a new milestone
      events.on("pruned", () => answers.clear()),
      events.on("reverted", () => answers.clear()),
    ];
  });
  app.addHook("onClose", async () => {
    for (const off of attached.splice(0)) off();
  });
}

/** The explorer API alone, for `--explorer-port`: same routes, error mapping and CORS origins as on the API port. */
export function buildExplorerServer(
  node: ApiNode,
  logLevel = "info",
  cors: ApiCorsOptions = defaultApiCorsOptions,
  budget: ConnectionBudget = new ConnectionBudget(),
): FastifyInstance {
  const app = createApp(
    logLevel,
    64 * 1024,
    "The explorer API of a Stardust ledger node",
    defaultApiConnectionOptions,
    budget,
    cors,
  );
  registerExplorerRoutes(app, node);
  return app;
}

/**
 * `GET /metrics` alone, for `--prometheus-port`: the metrics `registerMetrics` set up for the API
 * (`metricsOf(app)`), without access control, like Hornet's Prometheus bind address.
 */
export function buildPrometheusServer(
  metrics: MetricsScraper,
  logLevel = "info",
  budget: ConnectionBudget = new ConnectionBudget(),
): FastifyInstance {
  const app = createApp(
    logLevel,
    16 * 1024,
    "The Prometheus metrics of a Stardust ledger node",
    PROMETHEUS_CONNECTIONS,
    budget,
  );
  registerMetricsRoute(app, metrics);
  return app;
}
