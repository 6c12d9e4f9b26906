import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RateLimitedLog } from "../../../src/util/rateLimitedLog.js";

function recorder() {
  const lines: { level: string; msg: string; obj: object }[] = [];
  return {
    lines,
    info: (obj: object, msg: string) => lines.push({ level: "info", msg, obj }),
    warn: (obj: object, msg: string) => lines.push({ level: "warn", msg, obj }),
  };
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("RateLimitedLog", () => {
  it("logs the first line of a kind at once, then one line with the count at the end of the interval", async () => {
    const out = recorder();
    const log = new RateLimitedLog(out, 50);
    for (let i = 0; i < 100; i++) log.warn("oversized", { i }, "oversized packet");
    log.info("publish", {}, "tried to publish");
    assert.deepEqual(
      out.lines.map((l) => [l.level, l.msg]),
      [
        ["warn", "oversized packet"],
        ["info", "tried to publish"],
      ],
    );
    await sleep(80);
    assert.equal(out.lines.length, 3);
    assert.equal(out.lines[2]!.msg, "oversized packet (99 more in the last 50 ms)");
    assert.equal((out.lines[2]!.obj as { more: number }).more, 99);
    // a steady flood: still one line per interval
    log.warn("oversized", {}, "oversized packet");
    assert.equal(out.lines.length, 3);
    await sleep(150);
    assert.equal(out.lines.length, 4);
    // after a quiet interval the next one is logged at once again
    log.warn("oversized", {}, "oversized packet");
    assert.equal(out.lines.length, 5);
    log.warn("oversized", {}, "oversized packet");
    log.close();
    assert.equal(out.lines.length, 6, "close logs what was counted");
  });
});
