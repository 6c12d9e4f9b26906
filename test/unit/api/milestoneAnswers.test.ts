import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MilestoneAnswers } from "../../../src/api/milestoneAnswers.js";
import type { MilestoneInfo } from "../../../src/tangle/events.js";

const milestone = (index: number): MilestoneInfo => ({
  index,
  milestoneId: new Uint8Array(32).fill(index),
  blockId: new Uint8Array(32),
  timestamp: 1_700_000_000 + index,
});

describe("MilestoneAnswers", () => {
  it("serves an answer only at the milestone it was made at", () => {
    const answers = new MilestoneAnswers();
    const a = milestone(1);
    assert.equal(answers.get(a, "x"), undefined);
    answers.set(a, "x", "answer at 1");
    assert.equal(answers.get(a, "x"), "answer at 1");
    // the same index in a new object (a revert, then the milestone again) is a new ledger
    const b = milestone(1);
    assert.equal(answers.get(b, "x"), undefined);
    assert.equal(answers.size, 0);
    // an answer of a milestone that is no longer the latest is not kept
    answers.set(a, "x", "stale");
    assert.equal(answers.get(b, "x"), undefined);
  });

  it("holds at most its entries and characters, dropping the oldest", () => {
    const answers = new MilestoneAnswers(3, 1600);
    const m = milestone(2);
    answers.get(m, "");
    for (const k of ["a", "b", "c", "d"]) answers.set(m, k, k.repeat(10));
    assert.equal(answers.size, 3);
    assert.equal(answers.get(m, "a"), undefined);
    assert.equal(answers.get(m, "d"), "d".repeat(10));
    // one answer above a sixteenth of the characters is never kept; the characters bound the rest
    answers.set(m, "big", "x".repeat(98));
    assert.equal(answers.get(m, "big"), undefined);
    const byChars = new MilestoneAnswers(100, 1600);
    byChars.get(m, "");
    // keys count too: "k10".."k19" and 97 characters are 100 each
    for (let i = 10; i < 30; i++) byChars.set(m, `k${i}`, "y".repeat(97));
    assert.equal(byChars.size, 16);
    assert.equal(byChars.get(m, "k13"), undefined);
    assert.equal(byChars.get(m, "k29"), "y".repeat(97));
  });
});
