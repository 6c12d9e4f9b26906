import type { FastifyInstance } from "fastify";
import { toHex } from "../../codec/hex.js";
import { protocolParametersToJson } from "../../codec/protocolParameters.js";
import { decodeU32, NodeStateKey, nodeStateKey } from "../../storage/index.js";
import type { MilestoneInfo } from "../../tangle/tangle.js";
import type { ApiNode } from "../apiNode.js";
import type { InfoJson, MilestoneInfoJson, TipsJson } from "../json/core.js";
import { registerBlockRoutes } from "./coreBlocks.js";
import { MetricsTracker } from "./coreMetrics.js";
import { registerMilestoneRoutes } from "./coreMilestones.js";
import { registerOutputRoutes } from "./coreOutputs.js";
import { CORE_V2 } from "./coreParams.js";
import { registerSubmitBlockRoute } from "./coreSubmitBlock.js";

/**
 * The core REST API v2 as Hornet serves it and `@iota/iota.js@2.0.0-rc.4`'s `SingleNodeClient`
 * calls it (TIP-25): node info and tips here; blocks, block submission, outputs and milestones
 * in their own files.
 */

export const NODE_NAME = "ledger-node";
export const NODE_VERSION = "0.1.0";

/** A node whose latest milestone is older than this is not healthy (Hornet's default age). */
export const MAX_MILESTONE_AGE_SECONDS = 5 * 60;

/**
 * Health as `/health` and `info.status.isHealthy` report it: the ledger has confirmed a milestone
 * (a fresh network has none before the coordinator's first tick) and the latest one is recent,
 * i.e. the coordinator is issuing. This node confirms every milestone it knows, so it is always
 * synced in Hornet's sense.
 */
export function nodeHealth(node: ApiNode, now = Date.now()): { healthy: boolean; reason: string } {
  const latest = node.tangle.latestMilestone;
  if (latest.index === 0) return { healthy: false, reason: "no milestone confirmed yet" };
  const age = Math.floor(now / 1000) - latest.timestamp;
  if (age > MAX_MILESTONE_AGE_SECONDS) {
    return { healthy: false, reason: `the latest milestone ${latest.index} is ${age} s old` };
  }
  return { healthy: true, reason: "" };
}

function milestoneInfoJson(m: MilestoneInfo): MilestoneInfoJson {
  if (m.index === 0) return { index: 0 };
  return { index: m.index, timestamp: m.timestamp, milestoneId: toHex(m.milestoneId) };
}

async function pruningIndex(node: ApiNode): Promise<number> {
  const v = await node.tangle.store.get(nodeStateKey(NodeStateKey.PruningIndex));
  return v ? decodeU32(v, "nodeState.pruningIndex") : 0;
}

export function registerCoreRoutes(app: FastifyInstance, node: ApiNode): void {
  const metrics = new MetricsTracker(app, node.tangle);

  app.get(`${CORE_V2}/info`, async (): Promise<InfoJson> => {
    const tangle = node.tangle;
    const params = tangle.protocolParameters;
    const latest = milestoneInfoJson(tangle.latestMilestone);
    return {
      name: NODE_NAME,
      version: NODE_VERSION,
      status: {
        isHealthy: nodeHealth(node).healthy,
        latestMilestone: latest,
        // every known milestone is confirmed as soon as it is issued
        confirmedMilestone: latest,
        pruningIndex: await pruningIndex(node),
      },
      supportedProtocolVersions: [params.protocolVersion],
      protocol: protocolParametersToJson(params),
      pendingProtocolParameters: [],
      baseToken: {
        name: "Dev Token",
        tickerSymbol: "DEV",
        unit: "DEV",
        subunit: "glow",
        decimals: 6,
        useMetricPrefix: false,
      },
      metrics: metrics.metrics,
      features: node.options.powWorkers > 0 ? ["pow"] : [],
    };
  });

  // Non-lazy tips, as parents for a new block; the latest milestone's block when there are none.
  app.get(`${CORE_V2}/tips`, async (): Promise<TipsJson> => ({ tips: node.tangle.selectParents().map(toHex) }));

  registerBlockRoutes(app, node);
  registerSubmitBlockRoute(app, node);
  registerOutputRoutes(app, node);
  registerMilestoneRoutes(app, node);
}
