import { createRequire } from "node:module";

/**
 * A `GET /metrics` answer read by a Prometheus text-format parser of its own
 * (parse-prometheus-text-format, a port of the Prometheus Python client's parser), so the tests
 * check what a scraper reads, not what the node meant to write.
 */

interface Sample {
  value?: string;
  labels?: Record<string, string>;
  buckets?: Record<string, string>;
  count?: string;
  sum?: string;
}

export interface Family {
  name: string;
  help: string;
  type: "GAUGE" | "COUNTER" | "HISTOGRAM" | "SUMMARY" | "UNTYPED";
  metrics: Sample[];
}

const require = createRequire(import.meta.url);
const parse = require("parse-prometheus-text-format") as (text: string) => Family[];

/** Whether every label of `wanted` is on the sample with that value. */
function matches(sample: Sample, wanted: Record<string, string>): boolean {
  return Object.entries(wanted).every(([k, v]) => sample.labels?.[k] === v);
}

export class Scrape {
  readonly families: Map<string, Family>;

  constructor(readonly text: string) {
    this.families = new Map(parse(text).map((f) => [f.name, f]));
  }

  family(name: string): Family {
    const f = this.families.get(name);
    if (!f) throw new Error(`no metric ${name} in the scrape`);
    return f;
  }

  /** The samples of `name` whose labels include `labels`. */
  samples(name: string, labels: Record<string, string> = {}): Sample[] {
    return this.family(name).metrics.filter((s) => matches(s, labels));
  }

  /** The value of the one sample of `name` with `labels`; throws when there is none or several. */
  value(name: string, labels: Record<string, string> = {}): number {
    const found = this.samples(name, labels);
    if (found.length !== 1) {
      throw new Error(`${found.length} samples of ${name} with ${JSON.stringify(labels)}, expected one`);
    }
    return Number(found[0]!.value);
  }

  /** The value of `name` with `labels`, 0 when no such sample (or metric) was written yet. */
  valueOr0(name: string, labels: Record<string, string> = {}): number {
    if (!this.families.has(name)) return 0;
    const found = this.samples(name, labels);
    return found.length === 0 ? 0 : this.value(name, labels);
  }

  /** A histogram's observation count (its one sample). */
  count(name: string): number {
    return Number(this.family(name).metrics[0]?.count ?? 0);
  }
}
