import { Gauge } from "prom-client";
import type { ApiNode } from "../apiNode.js";
import { NODE_NAME, NODE_VERSION, nodeHealth } from "../routes/core.js";
import type { MetricsScraper } from "./scraper.js";

/**
 * The node's state as Hornet's Prometheus component names it (`components/prometheus/node.go`):
 * `iota_node_app_info`, `iota_node_health`, the three rates of `info.metrics`,
 * `iota_node_milestones{type}` and `iota_node_tips{type}`; plus `iota_node_synced`, which
 * Hornet folds into health, and `iota_node_treasury_amount`, the treasury output's tokens
 * (TIP-34, as `GET /api/core/v2/treasury`). The same values the routes answer, read at each scrape.
 */
export function registerNodeMetrics(scraper: MetricsScraper, node: ApiNode): void {
  const registers = [scraper.registry];
  const gauge = <L extends string = never>(name: string, help: string, labelNames: L[] = []) =>
    new Gauge<L>({ name, help, labelNames, registers });

  // Hornet's labels are name and version; the network tells nodes of several networks apart
  const appInfo = gauge("iota_node_app_info", "Node software name and version.", ["name", "version", "network"]);
  appInfo.set({ name: NODE_NAME, version: NODE_VERSION, network: node.tangle.protocolParameters.networkName }, 1);

  const health = gauge("iota_node_health", "Health of the node (1 healthy, as GET /health).");
  const synced = gauge("iota_node_synced", "Whether the ledger has caught up with the network (1 synced).");
  const bps = gauge("iota_node_blocks_per_second", "Current rate of new blocks per second.");
  const rbps = gauge("iota_node_referenced_blocks_per_second", "Current rate of referenced blocks per second.");
  const rate = gauge(
    "iota_node_referenced_rate",
    "Ratio of referenced blocks in relation to new blocks of the last confirmed milestone, in percent.",
  );
  const milestones = gauge("iota_node_milestones", "Infos about milestone indexes.", ["type"]);
  const tips = gauge("iota_node_tips", "Number of tips.", ["type"]);
  // a token supply fits a double exactly (2^53 is above every Stardust supply)
  const treasury = gauge("iota_node_treasury_amount", "Tokens in the treasury output (TIP-34).");

  scraper.addCollect(async () => {
    const tangle = node.tangle;
    const sync = node.network?.syncStatus();
    health.set(nodeHealth(node).healthy ? 1 : 0);
    synced.set((sync?.isSynced ?? true) ? 1 : 0);
    const m = node.metrics.metrics;
    bps.set(m.blocksPerSecond);
    rbps.set(m.referencedBlocksPerSecond);
    rate.set(m.referencedRate);
    // latest as info.status.latestMilestone: the network's newest while catching up
    const confirmed = tangle.latestMilestone.index;
    milestones.set({ type: "latest" }, Math.max(confirmed, sync?.latestMilestoneIndex ?? 0));
    milestones.set({ type: "confirmed" }, confirmed);
    milestones.set({ type: "pruning" }, await node.db.nodeState.pruningIndex());
    const counts = tangle.tips.counts(confirmed);
    tips.set({ type: "nonlazy" }, counts.nonLazy);
    tips.set({ type: "semilazy" }, counts.semiLazy);
    treasury.set(Number((await node.db.nodeState.treasury()).amount));
  });
}
