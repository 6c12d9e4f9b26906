import { collectDefaultMetrics, Registry } from "prom-client";

/**
 * What a scrape of `GET /metrics` does, after Hornet's Prometheus component
 * (`components/prometheus/component.go`): every registered collect function reads the node's
 * current state into its metrics, then the registry is written in the Prometheus text format.
 * Nothing is computed between scrapes, so no hot path (intake, confirmation) pays for metrics;
 * the few counters of events are O(1) increments in their listeners.
 */

/** Reads current state into metrics just before they are written (Hornet's `addCollect`). */
export type Collect = () => void | Promise<void>;

let processMetrics: Registry | undefined;

/**
 * The process metrics of prom-client's `collectDefaultMetrics` (`process_*`, `nodejs_*`: memory,
 * CPU, event loop lag, GC, handles) in a registry of their own, one per process: they describe
 * the process, not a node, and their event-loop and GC observers cannot be removed again, so one
 * set serves every node of a process (in-process tests open many) instead of one per node.
 */
function processRegistry(): Registry {
  if (!processMetrics) {
    processMetrics = new Registry();
    collectDefaultMetrics({ register: processMetrics });
  }
  return processMetrics;
}

export class MetricsScraper {
  /** This node's metrics (the process metrics are added at each scrape). */
  readonly registry = new Registry();
  private readonly collects: Collect[] = [];
  private inFlight: Promise<string> | undefined;

  /** The media type of the text format (`text/plain; version=0.0.4`). */
  get contentType(): string {
    return this.registry.contentType;
  }

  addCollect(collect: Collect): void {
    this.collects.push(collect);
  }

  /**
   * Every metric now, in the text format. Scrapes that arrive while one is collecting share its
   * answer, so clients asking at once cost one collection, however many they are.
   */
  scrape(): Promise<string> {
    if (!this.inFlight) {
      this.inFlight = this.collect().finally(() => {
        this.inFlight = undefined;
      });
    }
    return this.inFlight;
  }

  private async collect(): Promise<string> {
    await Promise.all(this.collects.map((c) => c()));
    const [node, process] = await Promise.all([this.registry.metrics(), processRegistry().metrics()]);
    return `${node.trimEnd()}\n${process}`;
  }
}
