import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { describe, it } from "node:test";

/**
 * The largest heap V8 commits while a script keeps ~50 MB alive and allocates ~1 GB that dies
 * soon after, in a process of its own (the growth factor is process-wide), MB.
 */
function peakHeapMB(limit: boolean, execArgv: string[] = []): number {
  const script = `
    ${limit ? `const { limitHeapGrowth } = await import(${JSON.stringify(new URL("../../../src/node/heapGrowth.js", import.meta.url).href)}); limitHeapGrowth();` : ""}
    const live = [];
    for (let i = 0; i < 500_000; i++) live.push({ a: "x" + i, b: [i, i + 1] });
    let recent = [];
    let peak = 0;
    for (let round = 0; round < 300; round++) {
      for (let i = 0; i < 20_000; i++) recent.push({ v: new Array(8).fill(i) });
      if (recent.length > 60_000) recent = recent.slice(30_000);
      peak = Math.max(peak, process.memoryUsage().heapTotal);
    }
    console.log(JSON.stringify({ peak, live: live.length }));`;
  const r = spawnSync(process.execPath, [...execArgv, "--input-type=module", "-e", script], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  return (JSON.parse(r.stdout) as { peak: number }).peak / (1024 * 1024);
}

describe("limitHeapGrowth", () => {
  it("keeps V8's heap near what is alive, and leaves an operator's own factor alone", () => {
    const unlimited = peakHeapMB(false);
    const limited = peakHeapMB(true);
    assert.ok(
      limited < 0.75 * unlimited,
      `${limited.toFixed(0)} MB with the limit, ${unlimited.toFixed(0)} MB without`,
    );
    const operators = peakHeapMB(true, ["--heap-growing-percent=400"]);
    assert.ok(
      operators > 1.2 * limited,
      `${operators.toFixed(0)} MB with the operator's 400 %, ${limited.toFixed(0)} MB with ours`,
    );
  });
});
