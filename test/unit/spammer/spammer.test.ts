import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { afterEach, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { Block } from "../../../src/codec/types.js";
import { PayloadType } from "../../../src/codec/types.js";
import { devProtocolParameters } from "../../../src/node/devNetwork.js";
import { isSpammerError, Spammer, SpammerErrorCode } from "../../../src/spammer/index.js";
import { RATE_WINDOW_MS } from "../../../src/spammer/ratePacer.js";
import type { BlockDraft } from "../../../src/tangle/blockCompletion.js";
import { IgnoreReason, type IntakeVerdict } from "../../../src/tangle/intake.js";

/**
 * The spammer over a stand-in intake that takes every draft at once (the e2e test drives the real
 * node): it holds the rate, never above it in any 1-s window; it issues nothing while the CPU is
 * over its limit or the intake refuses clients' blocks; `stop` returns within a second and
 * nothing is issued after it; refused settings change nothing.
 */

const params = devProtocolParameters(0);
const TIP = new Uint8Array(32).fill(7);

function harness() {
  const taken: { at: number; block: Block }[] = [];
  const state = { cpu: 0, refused: false as boolean };
  const spammer = new Spammer({
    tangle: {
      protocolParameters: params,
      latestMilestone: { index: 1 },
      getMetadata: async () => undefined,
      isBelowMaxDepth: async () => false,
    },
    intake: {
      refusal: () =>
        state.refused ? { kind: "ignored", reason: IgnoreReason.NotSynced, details: "not synced" } : undefined,
      submitDraft: async (draft: BlockDraft): Promise<IntakeVerdict> => {
        const block = typeof draft === "function" ? draft([TIP]) : draft;
        taken.push({ at: performance.now(), block });
        const blockId = new Uint8Array(randomBytes(32));
        return { kind: "accepted", blockId, block, bytes: new Uint8Array(0) };
      },
    },
    indexer: { outputs: async () => ({ items: [], ledgerIndex: 1 }) } as never,
    outputs: { getMany: async () => [] },
    onError: (e) => assert.fail(e as Error),
    cpu: { start() {}, stop() {}, usage: () => state.cpu },
  });
  return { spammer, taken, state };
}

function maxInWindow(times: readonly number[]): number {
  let best = 0;
  let lo = 0;
  for (let hi = 0; hi < times.length; hi++) {
    while (times[hi]! - times[lo]! > RATE_WINDOW_MS) lo++;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}

describe("Spammer", () => {
  let h: ReturnType<typeof harness>;
  afterEach(async () => {
    await h?.spammer.stop();
  });

  it("waits out a rate of one block in years in bounded timers: no timer overflow, no busy loop", async () => {
    h = harness();
    const overflows: string[] = [];
    const onWarning = (w: Error) => {
      if (w.name === "TimeoutOverflowWarning") overflows.push(w.message);
    };
    process.on("warning", onWarning);
    try {
      await h.spammer.start({ bpsRateLimit: 1e-9, spammerWorkers: 2, cpuMaxUsage: 1 });
      await sleep(300);
      await h.spammer.stop();
    } finally {
      process.off("warning", onWarning);
    }
    assert.equal(h.taken.length, 1, "the first permit only");
    assert.equal(overflows.length, 0, `${overflows.length} timer overflows: ${overflows[0]}`);
  });

  it("holds the rate across restarts: the last run's permits count in the new run's window", async () => {
    h = harness();
    for (let i = 0; i < 12; i++) {
      await h.spammer.start({ bpsRateLimit: 5, spammerWorkers: 2, cpuMaxUsage: 1 });
      await sleep(20);
    }
    await sleep(300);
    await h.spammer.stop();
    const times = h.taken.map((t) => t.at);
    assert.ok(times.length >= 1);
    assert.ok(maxInWindow(times) <= 5, `max ${maxInWindow(times)} in a 1-s window over ${times.length} blocks`);
  });

  it("holds 200 blocks/s from 4 submitters, never above it in a 1-s window, and stops within a second", async () => {
    h = harness();
    const status = await h.spammer.start({ bpsRateLimit: 200, spammerWorkers: 4, cpuMaxUsage: 1 });
    assert.equal(status.running, true);
    await sleep(2200);
    const t0 = performance.now();
    const stopped = await h.spammer.stop();
    const stopMs = performance.now() - t0;
    const count = h.taken.length;
    await sleep(300);
    assert.equal(h.taken.length, count, "nothing issued after stop");
    assert.ok(stopMs < 1000, `stop took ${stopMs} ms`);
    assert.equal(stopped.running, false);
    assert.equal(stopped.sentBlocks, count);
    const times = h.taken.map((t) => t.at);
    assert.ok(maxInWindow(times) <= 200, `max ${maxInWindow(times)} in a 1-s window`);
    const span = (times.at(-1)! - times[0]!) / 1000;
    const rate = (times.length - 1) / span;
    assert.ok(rate >= 180 && rate <= 200.5, `${rate} blocks/s`);
    assert.ok(stopped.blocksPerSecond >= 180 && stopped.blocksPerSecond <= 200, `status ${stopped.blocksPerSecond}`);
    // tagged data with the spammer's tag, unique data, parents from tip selection
    const first = h.taken[0]!.block;
    assert.equal(first.payload?.type, PayloadType.TaggedData);
    assert.deepEqual(first.parents, [TIP]);
    const data = new Set(h.taken.map((t) => Buffer.from((t.block.payload as { data: Uint8Array }).data).toString()));
    assert.equal(data.size, h.taken.length);
  });

  it("issues nothing while the CPU is above cpuMaxUsage or the intake refuses clients' blocks", async () => {
    h = harness();
    h.state.cpu = 0.95;
    await h.spammer.start({ bpsRateLimit: 500, cpuMaxUsage: 0.9, spammerWorkers: 2 });
    await sleep(300);
    assert.equal(h.taken.length, 0, "paused above the CPU limit");
    h.state.cpu = 0.5;
    await sleep(300);
    const resumed = h.taken.length;
    assert.ok(resumed > 50 && resumed <= 500, `${resumed} after the CPU fell`);
    h.state.refused = true;
    await sleep(250); // a submitter waits YIELD_MS before it asks again
    const atRefusal = h.taken.length;
    await sleep(400);
    assert.equal(h.taken.length, atRefusal, "nothing while the intake refuses");
    h.state.refused = false;
    await sleep(400);
    assert.ok(h.taken.length > atRefusal, "resumed");
  });

  it("holds its blocks back while pausedWhile runs (a dev revert), then goes on", async () => {
    h = harness();
    await h.spammer.start({ bpsRateLimit: 200, spammerWorkers: 2, cpuMaxUsage: 1 });
    await sleep(200);
    let during = -1;
    await h.spammer.pausedWhile(async () => {
      const at = h.taken.length;
      await sleep(400);
      during = h.taken.length - at;
    });
    assert.equal(during, 0, "no block issued while paused");
    const after = h.taken.length;
    await sleep(400);
    assert.ok(h.taken.length > after, "issuing again afterwards");
  });

  it("refuses bad settings and value spam without a funded key, changing nothing", async () => {
    h = harness();
    await h.spammer.start({ bpsRateLimit: 20 });
    assert.throws(
      () => h.spammer.start({ bpsRateLimit: 0 }),
      (e) => isSpammerError(e, SpammerErrorCode.InvalidSettings),
    );
    assert.throws(
      () => h.spammer.start({ valueSpamEnabled: true }),
      (e) => isSpammerError(e, SpammerErrorCode.NoFundedKey),
    );
    const status = h.spammer.status();
    assert.equal(status.running, true);
    assert.equal(status.bpsRateLimit, 20);
    assert.equal(status.valueSpamEnabled, false);
  });
});
