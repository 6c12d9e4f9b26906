import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { defaultMaxLagMs, RATE_WINDOW_MS, RatePacer } from "../../../src/spammer/ratePacer.js";
import { Rng } from "../../helpers/random.js";

/**
 * The spammer's pacer on a simulated clock: a submitter that takes a permit as soon as it is
 * allowed, late by a random amount (a timer firing late, a slow submission), holds the rate on
 * average and never exceeds it in any 1-s window, stalls included.
 */

/** The most permits in any window [t, t + 1 s] of sorted times (two pointers). */
function maxInWindow(times: readonly number[]): number {
  let best = 0;
  let lo = 0;
  for (let hi = 0; hi < times.length; hi++) {
    while (times[hi]! - times[lo]! > RATE_WINDOW_MS) lo++;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}

/** Runs a submitter for `seconds` of simulated time; `lateness()` ms after each wait. */
function simulate(rate: number, seconds: number, lateness: () => number, stallAt?: { at: number; ms: number }) {
  let now = 1000;
  const pacer = new RatePacer(rate, now);
  const taken: number[] = [];
  const end = now + seconds * 1000;
  let stalled = false;
  while (now < end) {
    if (stallAt && !stalled && now - 1000 >= stallAt.at) {
      stalled = true;
      now += stallAt.ms;
    }
    if (pacer.take(now)) taken.push(now);
    else now += Math.max(pacer.waitMs(now), 0.001);
    now += lateness();
  }
  return taken;
}

describe("RatePacer", () => {
  for (const rate of [0.5, 50, 200, 1000, 10_000]) {
    it(`holds ${rate} permits/s within 3 % and never more in any 1-s window`, () => {
      const rng = new Rng(Math.round(rate * 2));
      const seconds = rate < 1 ? 20 : 10;
      const taken = simulate(rate, seconds, () => rng.float() * Math.min(2, 500 / rate));
      assert.ok(maxInWindow(taken) <= Math.max(1, Math.floor(rate)), `max ${maxInWindow(taken)} in a window`);
      const mean = taken.length / seconds;
      assert.ok(mean >= rate * 0.97 - 1 / seconds && mean <= rate, `mean ${mean}/s for ${rate}/s`);
    });
  }

  it("owes at most maxLagMs of permits after a stall, and the window still holds", () => {
    assert.equal(defaultMaxLagMs(1000), 50);
    assert.equal(defaultMaxLagMs(20), 100);
    assert.equal(defaultMaxLagMs(1), 100);
    const taken = simulate(1000, 5, () => 0.2, { at: 2000, ms: 700 });
    assert.ok(maxInWindow(taken) <= 1000, `max ${maxInWindow(taken)}`);
    // the 700 ms stall costs about 700 permits less the 50 made up (and the 1 % margin)
    assert.ok(taken.length >= 4280 && taken.length <= 4370, `${taken.length} permits`);
    const after = taken.filter((t) => t >= 3700 && t < 3760).length;
    assert.ok(after <= 60 + 60, `${after} permits in the 60 ms after the stall`);
  });

  it("owes nothing after forgive", () => {
    const pacer = new RatePacer(100, 0);
    assert.ok(pacer.take(0));
    pacer.forgive(5000);
    assert.ok(pacer.take(5000));
    assert.equal(pacer.take(5000.5), false, "the next permit is an interval later");
    assert.ok(Math.abs(pacer.waitMs(5000) - 10) < 1e-9);
  });
  it("carries a last run's permits over: at 1,000/s then 10/s, or 3/s then 5/s, no window holds more than the new rate", () => {
    for (const [before, after] of [
      [1000, 10],
      [3, 5],
      [10, 10],
    ] as const) {
      let now = 5000;
      const first = new RatePacer(before, now);
      const taken: number[] = [];
      for (const end = now + 2000; now < end; now += 0.5) if (first.take(now)) taken.push(now);
      const second = new RatePacer(after, now);
      second.carryOver(first, now);
      const since = taken.length;
      for (const end = now + 3000; now < end; now += 0.5) if (second.take(now)) taken.push(now);
      assert.ok(maxInWindow(taken.slice(since)) <= after);
      // the window across the restart: the new run's permits and the last run's before them
      const cap = Math.max(before, after);
      assert.ok(maxInWindow(taken) <= cap, `${before} then ${after}: ${maxInWindow(taken)}`);
      const straddling = taken.filter((t) => t > taken[since]! - RATE_WINDOW_MS && t <= taken[since]!).length;
      assert.ok(
        straddling <= Math.max(after, 1),
        `${before} then ${after}: ${straddling} in the first new permit's window`,
      );
    }
  });
});
