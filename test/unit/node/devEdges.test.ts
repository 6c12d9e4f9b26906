import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { MAX_TIMESTAMP } from "../../../src/tangle/nodeClock.js";
import { assertError, CORE, type Harness, inject, openHarness } from "../../helpers/coreHarness.js";

/**
 * Edges of the dev tools (docs/decisions.md, A node for builders) found in review: each test
 * is the smallest request sequence that showed a wrong answer.
 */

const DEV = "/api/dev/v1";
const post = (h: Harness, url: string, payload?: object) =>
  inject(h.app, { method: "POST", url, ...(payload ? { payload } : {}) });
const json = <T>(res: { json(): unknown }) => res.json() as T;

describe("the clock at the largest milestone timestamp", () => {
  let h: Harness;
  before(async () => {
    h = await openHarness({ milestones: "manual", minPowScore: 0 });
    await h.node.startNow();
  });
  after(() => h.close());

  it("issues no milestone whose timestamp a u32 cannot hold; the one at the limit stays the latest", async () => {
    assert.equal((await post(h, `${DEV}/time`, { timestamp: MAX_TIMESTAMP })).statusCode, 200);
    const [last] = json<{ milestones: { index: number; timestamp: number }[] }>(
      await post(h, `${DEV}/milestones`),
    ).milestones;
    assert.equal(last!.timestamp, MAX_TIMESTAMP);
    // the next one would need MAX_TIMESTAMP + 1: refused, nothing issued
    assertError(await post(h, `${DEV}/milestones`), 400, /timestamp/);
    assert.equal(h.node.tangle.latestMilestone.index, last!.index);
    const stored = json<{ index: number; timestamp: number }>(
      await inject(h.app, `${CORE}/milestones/by-index/${last!.index}`),
    );
    assert.equal(stored.timestamp, MAX_TIMESTAMP, "the stored milestone says what the node says");
    assert.equal((await inject(h.app, `${CORE}/milestones/by-index/${last!.index + 1}`)).statusCode, 404);
  });
});
