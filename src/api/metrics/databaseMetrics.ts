import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { Counter, Gauge } from "prom-client";
import type { ApiNode } from "../apiNode.js";
import type { MetricsScraper } from "./scraper.js";

/**
 * The database as Hornet's Prometheus component names it (`components/prometheus/database.go`):
 * its size on disk and the prunings done (`iota_database_pruning_count_total`). Hornet has two
 * databases (`iota_database_tangle_size_bytes`, `iota_database_utxo_size_bytes`); this node keeps
 * both in one LevelDB, whose size is `iota_database_size_bytes`. The pruning index is
 * `iota_node_milestones{type="pruning"}`, where Hornet puts it.
 */

/** How long a measured size is reused: measuring stats every file of the database. */
export const DATABASE_SIZE_MAX_AGE_MS = 10_000;

/** Files stat'ed at once while measuring. */
const STAT_BATCH = 64;

/**
 * The bytes of the files directly in `dir` (LevelDB keeps its tables, logs and manifest in one
 * flat directory). A file removed by a compaction while it is measured counts 0.
 */
export async function directorySize(dir: string): Promise<number> {
  const files = (await readdir(dir, { withFileTypes: true })).filter((e) => e.isFile());
  let total = 0;
  for (let i = 0; i < files.length; i += STAT_BATCH) {
    const sizes = await Promise.all(
      files.slice(i, i + STAT_BATCH).map((f) =>
        stat(join(dir, f.name)).then(
          (s) => s.size,
          () => 0,
        ),
      ),
    );
    for (const size of sizes) total += size;
  }
  return total;
}

/** A directory's size, measured at most once per `maxAgeMs` however often it is asked for. */
export class CachedDirectorySize {
  private value = 0;
  private measuredAt = Number.NEGATIVE_INFINITY;
  private pending: Promise<number> | undefined;

  constructor(
    private readonly dir: string,
    private readonly maxAgeMs = DATABASE_SIZE_MAX_AGE_MS,
  ) {}

  get(now = performance.now()): Promise<number> {
    if (now - this.measuredAt < this.maxAgeMs) return Promise.resolve(this.value);
    this.pending ??= directorySize(this.dir)
      .then(
        (size) => {
          this.value = size;
          this.measuredAt = performance.now();
          return size;
        },
        // an unreadable directory reports the last size rather than failing the scrape
        () => this.value,
      )
      .finally(() => {
        this.pending = undefined;
      });
    return this.pending;
  }
}

/** Registers the database metrics; returns the listener of `pruned` that counts pruning runs (attached in api/server.ts). */
export function registerDatabaseMetrics(scraper: MetricsScraper, node: ApiNode): { pruned(): void } {
  const registers = [scraper.registry];
  const size = new Gauge({
    name: "iota_database_size_bytes",
    help: "Size of the database (ledger and tangle) on disk in bytes.",
    registers,
  });
  const prunings = new Counter({
    name: "iota_database_pruning_count_total",
    help: "The total amount of database prunings.",
    registers,
  });
  const measured = new CachedDirectorySize(node.tangle.databaseLocation);
  scraper.addCollect(async () => {
    size.set(await measured.get());
  });
  return { pruned: () => prunings.inc() };
}
