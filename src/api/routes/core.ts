import type { FastifyInstance } from "fastify";
import { toHex } from "../../codec/hex.js";
import { protocolParametersToJson } from "../../codec/protocolParameters.js";
import { describeWriteFault } from "../../storage/index.js";
import type { MilestoneInfo } from "../../tangle/tangle.js";
import type { ApiNode } from "../apiNode.js";
import type { InfoJson, MilestoneInfoJson, TipsJson } from "../json/core.js";
import { getRoute, type RouteDefinition, registerRoute } from "../routeDefinition.js";
import { arrayOf, closedObject, integer, openObject, type Schema, string, Tag } from "../schemas/common.js";
import { blockId, milestoneId } from "../schemas/core.js";
import { registerBlockRoutes } from "./coreBlocks.js";
import { registerMilestoneRoutes } from "./coreMilestones.js";
import { registerOutputRoutes } from "./coreOutputs.js";
import { CORE_V2 } from "./coreParams.js";
import { registerSubmitBlockRoute } from "./coreSubmitBlock.js";
import { registerTreasuryRoutes } from "./coreTreasury.js";

/**
 * The core REST API v2 as Hornet serves it and `@iota/iota.js@2.0.0-rc.4`'s `SingleNodeClient`
 * calls it (TIP-25): node info and tips here; blocks, block submission, outputs, milestones,
 * receipts and the treasury in their own files.
 */

export const NODE_NAME = "ledger-node";
export const NODE_VERSION = "0.1.0";

/** The network's base token (the info route's `baseToken`, the faucet's `tokenName`). */
export const BASE_TOKEN: InfoJson["baseToken"] = {
  name: "Dev Token",
  tickerSymbol: "DEV",
  unit: "DEV",
  subunit: "glow",
  decimals: 6,
  useMetricPrefix: false,
};

/** A node whose latest milestone is older than this is not healthy (Hornet's default age). */
export const MAX_MILESTONE_AGE_SECONDS = 5 * 60;

/**
 * A node whose ledger has not advanced for this many milestone intervals (and at least
 * MIN_STALL_MS) is not healthy: its coordinator or its link to it has stopped.
 */
export const STALL_INTERVALS = 5;
const MIN_STALL_MS = 5_000;

/**
 * Health as `/health` and `info.status.isHealthy` report it: the database takes writes (a full
 * disk stops everything, docs/decisions.md, Threats), the ledger has confirmed a milestone (a
 * fresh network has none before the coordinator's first tick), it advanced within the last few
 * intervals and the latest one is recent, i.e. the coordinator is issuing, and the node is not
 * behind the network (P2P sync status).
 */
export function nodeHealth(node: ApiNode, now = Date.now()): { healthy: boolean; reason: string } {
  const fault = node.tangle.writeFault;
  if (fault) return { healthy: false, reason: describeWriteFault(fault) };
  const latest = node.tangle.latestMilestone;
  if (latest.index === 0) return { healthy: false, reason: "no milestone confirmed yet" };
  const sync = node.network?.syncStatus();
  if (sync && !sync.isSynced) {
    return { healthy: false, reason: `not synced: ledger at ${latest.index}, network at ${sync.latestMilestoneIndex}` };
  }
  // a coordinator that issues milestones on demand (auto, manual) may rightly stay idle
  const onDemand = node.options.milestones !== undefined && node.options.milestones !== "interval";
  if (onDemand) return { healthy: true, reason: "" };
  const interval = node.options.milestoneIntervalMs;
  const since = node.metrics.lastConfirmedAt;
  if (interval !== undefined && since !== undefined) {
    const stalled = now - since;
    if (stalled > Math.max(STALL_INTERVALS * interval, MIN_STALL_MS)) {
      return {
        healthy: false,
        reason: `no milestone confirmed for ${(stalled / 1000).toFixed(1)} s (the interval is ${interval} ms)`,
      };
    }
  }
  const age = (node.clock?.nowSeconds(now) ?? Math.floor(now / 1000)) - latest.timestamp;
  if (age > MAX_MILESTONE_AGE_SECONDS) {
    return { healthy: false, reason: `the latest milestone ${latest.index} is ${age} s old` };
  }
  return { healthy: true, reason: "" };
}

function milestoneInfoJson(m: MilestoneInfo): MilestoneInfoJson {
  if (m.index === 0) return { index: 0 };
  return { index: m.index, timestamp: m.timestamp, milestoneId: toHex(m.milestoneId) };
}

const pruningIndex = (node: ApiNode): Promise<number> => node.db.nodeState.pruningIndex();

function milestoneInfoSchema(description: string): Schema {
  return closedObject<MilestoneInfoJson>(
    {
      index: integer("the milestone index (0 before the first milestone)"),
      timestamp: integer("unix seconds (left out before the first milestone)"),
      milestoneId: milestoneId(),
    },
    ["index"],
    description,
  );
}

/** `GET /api/core/v2/info` as Hornet answers it (TIP-25). */
function infoSchema(): Schema {
  const number = (description: string): Schema => ({ type: "number", description });
  const boolean = (description: string): Schema => ({ type: "boolean", description });
  return closedObject<InfoJson>(
    {
      name: string("the node software"),
      version: string("its version"),
      status: closedObject<InfoJson["status"]>(
        {
          isHealthy: boolean("as GET /health reports it"),
          isSynced: boolean("the ledger has caught up with the newest milestone the peers announce"),
          latestMilestone: milestoneInfoSchema("the latest milestone"),
          confirmedMilestone: milestoneInfoSchema("the latest confirmed milestone"),
          pruningIndex: integer("the milestone index below which data is pruned"),
        },
        ["isHealthy", "isSynced", "latestMilestone", "confirmedMilestone", "pruningIndex"],
      ),
      supportedProtocolVersions: arrayOf(integer("a protocol version", 0, 255), "protocol versions this node runs"),
      protocol: openObject(
        {
          version: integer("the protocol version", 0, 255),
          networkName: string("the network name"),
          bech32Hrp: string("the human-readable part of bech32 addresses"),
          minPowScore: integer("the minimum PoW score of a block (TIP-12)"),
          belowMaxDepth: integer("milestones after which an unreferenced cone is too old"),
          rentStructure: closedObject(
            {
              vByteCost: integer("cost of one virtual byte"),
              vByteFactorData: integer("weight of data bytes"),
              vByteFactorKey: integer("weight of key bytes"),
            },
            ["vByteCost", "vByteFactorData", "vByteFactorKey"],
          ),
          tokenSupply: string("the token supply, a decimal string"),
        },
        ["version", "networkName", "bech32Hrp", "minPowScore", "belowMaxDepth", "rentStructure", "tokenSupply"],
        "the protocol parameters (TIP-22)",
      ),
      pendingProtocolParameters: arrayOf(
        openObject({}, [], "protocol parameters taking effect at a later milestone"),
        "scheduled protocol parameter changes",
      ),
      baseToken: closedObject<InfoJson["baseToken"]>(
        {
          name: string("the token name"),
          tickerSymbol: string("its ticker symbol"),
          unit: string("its unit"),
          subunit: string("its subunit"),
          decimals: integer("decimals of the unit"),
          useMetricPrefix: boolean("whether amounts use metric prefixes"),
        },
        ["name", "tickerSymbol", "unit", "decimals", "useMetricPrefix"],
      ),
      metrics: closedObject<InfoJson["metrics"]>(
        {
          blocksPerSecond: number("new blocks per second between the last two milestones"),
          referencedBlocksPerSecond: number("referenced blocks per second between them"),
          referencedRate: number("referenced per new blocks, in percent"),
        },
        ["blocksPerSecond", "referencedBlocksPerSecond", "referencedRate"],
      ),
      features: arrayOf({ type: "string" }, 'optional features: "pow" when the node does PoW for clients'),
      network: closedObject<NonNullable<InfoJson["network"]>>(
        {
          peerId: string("this node's libp2p peer ID"),
          multiAddresses: arrayOf(string("a multiaddr"), "where its P2P transport listens"),
          connectedPeers: integer("peers connected now"),
          syncedPeers: integer("connected peers whose ledger is at the milestone they announce"),
        },
        ["peerId", "multiAddresses", "connectedPeers", "syncedPeers"],
        "the P2P layer (left out when the node runs without it)",
      ),
    },
    [
      "name",
      "version",
      "status",
      "supportedProtocolVersions",
      "protocol",
      "pendingProtocolParameters",
      "baseToken",
      "metrics",
      "features",
    ],
    "the node, its network and its status",
  );
}

export const CORE_INFO_ROUTES = {
  info: getRoute(`${CORE_V2}/info`, { summary: "Node information", tags: [Tag.Core] }, infoSchema(), [403, 500]),
  tips: getRoute(
    `${CORE_V2}/tips`,
    {
      summary: "Tips to use as parents of a new block",
      description: "Non-lazy tips, sorted; the latest milestone's block when there are none.",
      tags: [Tag.Core],
    },
    closedObject<TipsJson>({ tips: arrayOf(blockId(), "1 to 8 block IDs, sorted") }, ["tips"], "the tips"),
    [403, 500],
  ),
} satisfies Record<string, RouteDefinition>;

export function registerCoreRoutes(app: FastifyInstance, node: ApiNode): void {
  registerRoute(app, CORE_INFO_ROUTES.info, async (): Promise<InfoJson> => {
    const tangle = node.tangle;
    const params = tangle.protocolParameters;
    const confirmed = milestoneInfoJson(tangle.latestMilestone);
    const network = node.network;
    const sync = network?.syncStatus();
    return {
      name: NODE_NAME,
      version: NODE_VERSION,
      status: {
        isHealthy: nodeHealth(node).healthy,
        isSynced: sync?.isSynced ?? true,
        // while catching up, the newest milestone the peers announce (only its index is known)
        latestMilestone:
          sync && sync.latestMilestoneIndex > confirmed.index ? { index: sync.latestMilestoneIndex } : confirmed,
        confirmedMilestone: confirmed,
        pruningIndex: await pruningIndex(node),
      },
      supportedProtocolVersions: [params.protocolVersion],
      protocol: protocolParametersToJson(params),
      pendingProtocolParameters: [],
      baseToken: BASE_TOKEN,
      metrics: node.metrics.metrics,
      features: node.options.powWorkers > 0 ? ["pow"] : [],
      ...(network && sync
        ? {
            network: {
              peerId: network.peerId,
              multiAddresses: network.listenAddresses(),
              connectedPeers: sync.connectedPeers,
              syncedPeers: sync.syncedPeers,
            },
          }
        : {}),
    };
  });

  // Non-lazy tips, as parents for a new block; the latest milestone's block when there are none.
  registerRoute(
    app,
    CORE_INFO_ROUTES.tips,
    async (): Promise<TipsJson> => ({ tips: node.tangle.selectParents().map(toHex) }),
  );

  registerBlockRoutes(app, node);
  registerSubmitBlockRoute(app, node);
  registerOutputRoutes(app, node);
  registerMilestoneRoutes(app, node);
  registerTreasuryRoutes(app, node);
}
