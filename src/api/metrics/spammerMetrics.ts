import { Gauge } from "prom-client";
import type { ApiNode } from "../apiNode.js";
import type { MetricsScraper } from "./scraper.js";

/**
 * The spammer's metrics: inx-spammer's `iota_spammer_sent_spam_blocks` (its Prometheus
 * component, `components/prometheus/spammer.go`: blocks sent since the process started), and
 * this node's rate and running state, read at each scrape. Only on a node that serves the spammer.
 */
export function registerSpammerMetrics(scraper: MetricsScraper, node: ApiNode): void {
  const spammer = node.spammer;
  if (!spammer) return;
  const registers = [scraper.registry];
  const sent = new Gauge({
    name: "iota_spammer_sent_spam_blocks",
    help: "Sent spam blocks by the spammer plugin.",
    registers,
  });
  const rate = new Gauge({
    name: "iota_spammer_blocks_per_second",
    help: "Spam blocks taken in per second over the last 5 s of the run.",
    registers,
  });
  const running = new Gauge({ name: "iota_spammer_running", help: "Whether the spammer runs (1 running).", registers });
  scraper.addCollect(async () => {
    const status = spammer.status();
    sent.set(spammer.totalSent);
    rate.set(status.blocksPerSecond);
    running.set(status.running ? 1 : 0);
  });
}
