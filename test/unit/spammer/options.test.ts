import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  defaultSpammerSettings,
  isSpammerError,
  MAX_BPS_RATE_LIMIT,
  MAX_SPAMMER_WORKERS,
  mergeSettings,
  SpammerErrorCode,
} from "../../../src/spammer/index.js";

/** The start settings: each optional, a left-out one kept, every bad one refused with its field named. */
describe("spammer settings", () => {
  it("keeps what is left out and takes what is given", () => {
    assert.deepEqual(mergeSettings(defaultSpammerSettings, undefined), defaultSpammerSettings);
    assert.deepEqual(mergeSettings(defaultSpammerSettings, null), defaultSpammerSettings);
    assert.deepEqual(mergeSettings(defaultSpammerSettings, {}), defaultSpammerSettings);
    const changed = mergeSettings(defaultSpammerSettings, { bpsRateLimit: 0.5, cpuMaxUsage: 1 });
    assert.deepEqual(changed, { ...defaultSpammerSettings, bpsRateLimit: 0.5, cpuMaxUsage: 1 });
    assert.deepEqual(mergeSettings(changed, { spammerWorkers: 1, valueSpamEnabled: true }), {
      ...changed,
      spammerWorkers: 1,
      valueSpamEnabled: true,
    });
    assert.equal(mergeSettings(changed, { bpsRateLimit: MAX_BPS_RATE_LIMIT }).bpsRateLimit, MAX_BPS_RATE_LIMIT);
  });

  const bad: [unknown, string][] = [
    [{ bpsRateLimit: 0 }, "bpsRateLimit"],
    [{ bpsRateLimit: -1 }, "bpsRateLimit"],
    [{ bpsRateLimit: 1e9 }, "bpsRateLimit"],
    [{ bpsRateLimit: MAX_BPS_RATE_LIMIT + 0.5 }, "bpsRateLimit"],
    [{ bpsRateLimit: "50" }, "bpsRateLimit"],
    [{ bpsRateLimit: Number.NaN }, "bpsRateLimit"],
    [{ cpuMaxUsage: 0 }, "cpuMaxUsage"],
    [{ cpuMaxUsage: 1.01 }, "cpuMaxUsage"],
    [{ cpuMaxUsage: true }, "cpuMaxUsage"],
    [{ spammerWorkers: 0 }, "spammerWorkers"],
    [{ spammerWorkers: -3 }, "spammerWorkers"],
    [{ spammerWorkers: 1.5 }, "spammerWorkers"],
    [{ spammerWorkers: MAX_SPAMMER_WORKERS + 1 }, "spammerWorkers"],
    [{ spammerWorkers: 2 ** 53 }, "spammerWorkers"],
    [{ valueSpamEnabled: "true" }, "valueSpamEnabled"],
    [{ rate: 5 }, "rate"],
    [[1], "object"],
    ["start", "object"],
  ];
  for (const [given, field] of bad) {
    it(`refuses ${JSON.stringify(given)}, naming ${field}`, () => {
      assert.throws(
        () => mergeSettings(defaultSpammerSettings, given),
        (e) => isSpammerError(e, SpammerErrorCode.InvalidSettings) && e.message.includes(field),
      );
    });
  }
});
