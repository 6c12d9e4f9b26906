import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { describe, it } from "node:test";

/**
 * The largest heap V8 commits while a script keeps ~50 MB alive and allocates ~2 GB that dies
 * soon after, over the second half of the run (a limit set while the heap grows holds from the
 * full collection after), in a process of its own (the growth factor is process-wide), MB.
 */
function peakHeapMB(limit: { above: number } | undefined, execArgv: string[] = []): number {
  const module = JSON.stringify(new URL("../../../src/node/heapGrowth.js", import.meta.url).href);
  // the heap is looked at every 5 ms; the script yields to timers between rounds
  const script = `
    ${limit ? `const { limitHeapGrowth } = await import(${module}); limitHeapGrowth(process.execArgv, { limitAbove: ${limit.above}, checkMs: 5 });` : ""}
    const live = [];
    for (let i = 0; i < 500_000; i++) live.push({ a: "x" + i, b: [i, i + 1] });
    let recent = [];
    let peak = 0;
    for (let round = 0; round < 600; round++) {
      for (let i = 0; i < 20_000; i++) recent.push({ v: new Array(8).fill(i) });
      if (recent.length > 60_000) recent = recent.slice(30_000);
      if (round >= 300) peak = Math.max(peak, process.memoryUsage().heapTotal);
      if (round % 10 === 0) await new Promise((r) => setTimeout(r, 6));
    }
    console.log(JSON.stringify({ peak, live: live.length }));`;
  const r = spawnSync(process.execPath, [...execArgv, "--input-type=module", "-e", script], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  return (JSON.parse(r.stdout) as { peak: number }).peak / (1024 * 1024);
}

const MB = 1024 * 1024;

describe("limitHeapGrowth", () => {
  it("keeps a large heap near what is alive, leaves a small one to V8, and an operator's own factor alone", () => {
    const unlimited = peakHeapMB(undefined);
    // ~50 MB alive: above a 32 MB threshold the growth is limited
    const limited = peakHeapMB({ above: 32 * MB });
    assert.ok(
      limited < 0.75 * unlimited,
      `${limited.toFixed(0)} MB with the limit, ${unlimited.toFixed(0)} MB without`,
    );
    // below a threshold the heap never reaches, V8 chooses as without the limit: well above the
    // limited heap (two runs of V8's own choice differ by a fifth or more on a loaded machine, so
    // the limited run is the yardstick, as for the operator's factor below)
    const small = peakHeapMB({ above: 4096 * MB });
    assert.ok(
      small > 1.2 * limited,
      `${small.toFixed(0)} MB under a threshold not reached, ${limited.toFixed(0)} MB limited, ${unlimited.toFixed(0)} MB without`,
    );
    const operators = peakHeapMB({ above: 32 * MB }, ["--heap-growing-percent=400"]);
    assert.ok(
      operators > 1.2 * limited,
      `${operators.toFixed(0)} MB with the operator's 400 %, ${limited.toFixed(0)} MB with ours`,
    );
  });
});
