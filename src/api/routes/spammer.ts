import type { FastifyInstance } from "fastify";
import { MAX_BPS_RATE_LIMIT, MAX_SPAMMER_WORKERS, type Spammer, type SpammerStatus } from "../../spammer/index.js";
import type { ApiNode } from "../apiNode.js";
import type { SpammerStartJson, SpammerStatusJson } from "../json/spammer.js";
import { BEARER_JWT } from "../openapi.js";
import { getRoute, type RouteDefinition, registerRoute } from "../routeDefinition.js";
import { closedObject, integer, responses, type Schema, Tag } from "../schemas/common.js";

/**
 * The spammer's routes, as inx-spammer serves them (`pkg/spammer/routes.go`: `GET /status`,
 * `POST /start`, `POST /stop` under `/api/spammer/v1`, the path Hornet proxies the plugin on):
 * protected by default (auth.ts), since they load the node on purpose (README, Spammer).
 *
 * - `start` takes inx-spammer's `startCommand`, every field optional (one left out keeps its last
 *   value); a value out of range or of the wrong type is 400 with the reason; so is value spam on
 *   a node without a funded key. inx-spammer answers 202 with no body; here 202 with the status.
 * - `stop` answers 202 once no block of the spammer is in flight any more.
 * - A node started with `--spammer false` registers none of them (404).
 */

export const SPAMMER_V1 = "/api/spammer/v1";

const statusJson = (): Schema =>
  closedObject<SpammerStatusJson>(
    {
      running: { type: "boolean", description: "the spammer issues blocks" },
      valueSpamEnabled: { type: "boolean", description: "signed basic transfers instead of tagged data" },
      bpsRateLimit: { type: "number", description: "blocks per second it holds (never more in any 1-s window)" },
      cpuMaxUsage: { type: "number", description: "issuing pauses while the node uses more of the cores than this" },
      spammerWorkers: integer("concurrent submitters"),
      spammerWorkersMax: integer("the most submitters start accepts (four per core)"),
      blocksPerSecond: { type: "number", description: "blocks taken in per second over the last 5 s of the run" },
      sentBlocks: integer("blocks taken in since the last start"),
      errors: integer("blocks refused or failed since the last start"),
      cpuUsage: { type: "number", description: "the node's CPU use over the last second, 0..1 of the cores" },
    },
    [
      "running",
      "valueSpamEnabled",
      "bpsRateLimit",
      "cpuMaxUsage",
      "spammerWorkers",
      "spammerWorkersMax",
      "blocksPerSecond",
      "sentBlocks",
      "errors",
      "cpuUsage",
    ],
    "the spammer's settings and what it reached",
  );

const operation = (summary: string, description: string) => ({
  summary,
  description,
  tags: [Tag.Spammer],
  security: [{ [BEARER_JWT]: [] }],
});

export const SPAMMER_ROUTES = {
  status: getRoute(
    `${SPAMMER_V1}/status`,
    operation("The spammer's status", "Whether it runs, its settings and the rate it reaches."),
    statusJson(),
    [403, 500],
  ),
  start: {
    method: "POST",
    url: `${SPAMMER_V1}/start`,
    schema: {
      ...operation(
        "Start the spammer",
        `Starts (or restarts) the spammer with the settings given over its last ones. bpsRateLimit: above 0, at most ${MAX_BPS_RATE_LIMIT}; cpuMaxUsage: above 0, at most 1; spammerWorkers: 1 to ${MAX_SPAMMER_WORKERS} on this machine (four per core); valueSpamEnabled needs a funded key (--spammer-key-file, or the last dev account on the dev network). Anything else is 400 with the reason.`,
      ),
      // the body may be left out (null when the request has none)
      body: {
        ...closedObject<SpammerStartJson>(
          {
            bpsRateLimit: {
              type: "number",
              title: `a number above 0 and at most ${MAX_BPS_RATE_LIMIT}`,
              exclusiveMinimum: 0,
              maximum: MAX_BPS_RATE_LIMIT,
              description: "blocks per second",
            },
            cpuMaxUsage: {
              type: "number",
              title: "a number above 0 and at most 1",
              exclusiveMinimum: 0,
              maximum: 1,
              description: "issuing pauses while the node's CPU use, as a fraction of the cores, is above this",
            },
            spammerWorkers: {
              ...integer("concurrent submitters", 1, MAX_SPAMMER_WORKERS),
              title: `an integer from 1 to ${MAX_SPAMMER_WORKERS}`,
            },
            valueSpamEnabled: { type: "boolean", description: "signed basic transfers instead of tagged data" },
          },
          [],
          "the settings to change (every one optional)",
        ),
        nullable: true,
      },
      response: responses({ 202: statusJson() }, [400, 403, 500]),
    },
  },
  stop: {
    method: "POST",
    url: `${SPAMMER_V1}/stop`,
    schema: {
      ...operation("Stop the spammer", "Stops issuing; answers once no block of the spammer is in flight."),
      response: responses({ 202: statusJson() }, [403, 500]),
    },
  },
} satisfies Record<string, RouteDefinition>;

const json = (s: SpammerStatus): SpammerStatusJson => ({
  running: s.running,
  valueSpamEnabled: s.valueSpamEnabled,
  bpsRateLimit: s.bpsRateLimit,
  cpuMaxUsage: s.cpuMaxUsage,
  spammerWorkers: s.spammerWorkers,
  spammerWorkersMax: s.spammerWorkersMax,
  blocksPerSecond: s.blocksPerSecond,
  sentBlocks: s.sentBlocks,
  errors: s.errors,
  cpuUsage: s.cpuUsage,
});

export function registerSpammerRoutes(app: FastifyInstance, node: ApiNode): void {
  const spammer: Spammer | undefined = node.spammer;
  if (!spammer) return;

  registerRoute(app, SPAMMER_ROUTES.status, async (): Promise<SpammerStatusJson> => json(spammer.status()));

  registerRoute(app, SPAMMER_ROUTES.start, async (request, reply): Promise<SpammerStatusJson> => {
    const status = await spammer.start(request.body);
    void reply.code(202);
    return json(status);
  });

  registerRoute(app, SPAMMER_ROUTES.stop, async (_request, reply): Promise<SpammerStatusJson> => {
    const status = await spammer.stop();
    void reply.code(202);
    return json(status);
  });
}
