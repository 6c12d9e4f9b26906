import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CpuMonitor } from "../../../src/spammer/cpuMonitor.js";
import { RateMeter, SECONDS_KEPT } from "../../../src/spammer/rateMeter.js";

describe("RateMeter", () => {
  it("counts per second, the current second left out, gaps as zeros, bounded", () => {
    let now = 10_000;
    const meter = new RateMeter(() => now);
    for (let i = 0; i < 5; i++) meter.count();
    now += 1000;
    for (let i = 0; i < 7; i++) meter.count();
    now += 3000;
    meter.count();
    assert.deepEqual(meter.lastSeconds(5), [0, 5, 7, 0, 0]);
    assert.equal(meter.perSecond(2), 0);
    assert.equal(meter.perSecond(4), 3);
    now += (SECONDS_KEPT + 5) * 1000;
    assert.deepEqual(meter.lastSeconds(3), [0, 0, 0]);
    assert.equal(meter.lastSeconds(1000).length, SECONDS_KEPT - 1);
  });
});

describe("CpuMonitor", () => {
  it("is the CPU time over the last second as a fraction of the cores", () => {
    let now = 0;
    let cpu = 0;
    const monitor = new CpuMonitor({ now: () => now, cpuMicros: () => cpu, cores: 2 });
    assert.equal(monitor.usage(), 0);
    for (let i = 0; i < 30; i++) {
      now += 100;
      cpu += i < 20 ? 50_000 : 200_000; // half a core, then two cores
      monitor.sample();
    }
    assert.ok(Math.abs(monitor.usage() - 1) < 1e-9, `${monitor.usage()}`);
  });
});
