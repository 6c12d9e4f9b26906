import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { PeerScores } from "../../../src/network/peerScores.js";

describe("peer scores", () => {
  const options = { penalty: 20, halfLifeMs: 60_000, banThreshold: -100, banMs: 300_000 };

  it("remember a bounded number of peers, banned ones last to go", () => {
    let now = 0;
    const scores = new PeerScores(options, () => now, 100);
    for (let i = 0; i < 5; i++) scores.penalize("bad");
    assert.equal(scores.isBanned("bad"), true);
    // a flood of fresh peer IDs, each scored once
    for (let i = 0; i < 10_000; i++) {
      now++;
      scores.penalize(`peer-${i}`);
    }
    assert.equal(scores.size, 100);
    assert.equal(scores.isBanned("bad"), true, "the banned peer is kept");
    assert.equal(scores.score("peer-9999"), -20 * 0.5 ** (0 / 60_000));
  });

  it("forget a disconnected peer only when nothing is held against it", () => {
    const scores = new PeerScores(options, () => 0);
    scores.score("clean");
    scores.penalize("scored");
    scores.forgetIfClean("clean");
    scores.forgetIfClean("scored");
    assert.equal(scores.size, 1);
    assert.equal(scores.score("scored"), -20);
  });
});
