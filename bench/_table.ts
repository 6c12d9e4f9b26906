/**
 * Shared output of the benchmarks: a plain-text table for people, then, as the very last line,
 * one JSON object of the figures for tools (`{"bench":"<name>",...}`).
 */
export interface BenchRow {
  name: string;
  value: number;
  unit: string;
  target?: string;
  baseline?: string;
}

export function printTable(title: string, rows: BenchRow[]): void {
  const fmt = (v: number) => (v >= 100 ? Math.round(v).toLocaleString("en-US") : v.toFixed(2));
  const cells = rows.map((r) => [r.name, `${fmt(r.value)} ${r.unit}`, r.target ?? "", r.baseline ?? ""]);
  const head = ["measure", "result", "target", "baseline (same run)"];
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => c.map((x, i) => x.padEnd(widths[i]!)).join(" | ");
  console.log(`\n${title}\n`);
  console.log(line(head));
  console.log(widths.map((w) => "-".repeat(w)).join("-|-"));
  for (const c of cells) console.log(line(c));
  console.log("");
}

export function printFigures(bench: string, figures: Record<string, number>): void {
  console.log(JSON.stringify({ bench, ...figures }));
}

/** Runs `fn` repeatedly for about `ms` milliseconds (after a short warm-up) and returns calls per second. */
export function opsPerSecond(fn: () => void, ms = 1000, batch = 1000): number {
  const warmUntil = performance.now() + Math.min(200, ms / 5);
  while (performance.now() < warmUntil) for (let i = 0; i < batch; i++) fn();
  let n = 0;
  const start = performance.now();
  let now = start;
  while (now - start < ms) {
    for (let i = 0; i < batch; i++) fn();
    n += batch;
    now = performance.now();
  }
  return (n * 1000) / (now - start);
}
