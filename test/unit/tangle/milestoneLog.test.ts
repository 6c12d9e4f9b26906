import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { WhiteFlagResult } from "../../../src/ledger/whiteFlag.js";
import { NodeEvents } from "../../../src/tangle/events.js";
import { logConfirmedMilestones } from "../../../src/tangle/milestoneLog.js";

/** The operator's milestone lines: every milestone at debug, at info the first and then one per 10 s with the rate. */
describe("confirmed milestones in the log", () => {
  const confirm = (events: NodeEvents, index: number, referenced: number) =>
    events.emit("milestoneConfirmed", {
      milestone: { index, milestoneId: new Uint8Array(32), blockId: new Uint8Array(32), timestamp: index },
      result: { referenced: new Array(referenced).fill({}) } as unknown as WhiteFlagResult,
    });

  it("writes one info line at most every 10 s, with the milestones and blocks since the last", () => {
    const events = new NodeEvents();
    const info: { obj: Record<string, unknown>; msg: string }[] = [];
    let debug = 0;
    let clock = 1_000_000;
    const stop = logConfirmedMilestones(
      events,
      { debug: () => debug++, info: (obj, msg) => info.push({ obj: obj as Record<string, unknown>, msg: msg! }) },
      10_000,
      () => clock,
    );
    // one milestone a second for 25 s, 3 blocks each
    for (let i = 1; i <= 25; i++) {
      confirm(events, i, 3);
      clock += 1000;
    }
    assert.equal(debug, 25, "each milestone at debug");
    assert.deepEqual(
      info.map((l) => l.obj.index),
      [1, 11, 21],
    );
    assert.equal(info[0]!.msg, "milestone 1 confirmed");
    assert.deepEqual(info[1]!.obj, {
      index: 11,
      milestones: 10,
      seconds: 10,
      milestonesPerSecond: 1,
      referencedBlocks: 30,
    });
    assert.equal(info[1]!.msg, "milestone 11 confirmed: 10 milestones in 10.0 s (1.00/s), 30 blocks referenced");
    // after a silence the next milestone is written at once, its rate over the whole gap
    clock += 60_000;
    confirm(events, 26, 0);
    assert.equal(info.length, 4);
    assert.equal(info[3]!.obj.milestones, 5);
    stop();
    confirm(events, 27, 0);
    assert.equal(debug, 26, "unsubscribed");
  });
});
