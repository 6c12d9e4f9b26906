import Fastify, { type FastifyInstance } from "fastify";
import { toHex } from "../codec/hex.js";
import { protocolParametersToJson } from "../codec/protocolParameters.js";
import type { ApiNode } from "./apiNode.js";
import { registerErrorHandling } from "./errors.js";

/**
 * The HTTP API, built in a function so tests can drive it with `inject()` without a port.
 * Routes present so far: health and node info; the block, output, milestone, indexer,
 * explorer and control routes are registered by their own modules as they land.
 */
export function buildServer(node: ApiNode, logLevel = "info"): FastifyInstance {
  const app = Fastify({ logger: { level: logLevel }, bodyLimit: 1024 * 1024 });
  registerErrorHandling(app);
  // Route modules register here, one line each (auth first: it guards the rest).

  app.get("/health", async (_req, reply) => reply.code(200).send());

  app.get("/api/core/v2/info", async () => {
    const latest = node.tangle.latestMilestone;
    const params = node.tangle.protocolParameters;
    const ms = { index: latest.index, timestamp: latest.timestamp, milestoneId: toHex(latest.milestoneId) };
    return {
      name: "ledger-node",
      version: "0.1.0",
      status: {
        isHealthy: true,
        latestMilestone: ms,
        confirmedMilestone: ms,
        pruningIndex: 0,
      },
      supportedProtocolVersions: [params.protocolVersion],
      protocol: protocolParametersToJson(params),
      baseToken: {
        name: "Dev Token",
        tickerSymbol: "DEV",
        unit: "DEV",
        decimals: 6,
        subunit: "glow",
        useMetricPrefix: false,
      },
      features: [],
    };
  });

  return app;
}
