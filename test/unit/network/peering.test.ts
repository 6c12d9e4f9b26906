import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Multiaddr } from "@multiformats/multiaddr";
import { backoffDelay, NetworkErrorCode, PeerScores, parsePeerAddress } from "../../../src/network/index.js";
import { Peering, type PeeringHost } from "../../../src/network/peering.js";

const PEER = "12D3KooWFiwsTc4CLbk73vdbt71z88H17qnxMt3U8oU7Cr28kMsQ";

describe("static peering", () => {
  it("doubles the redial delay up to the cap, with ±25 % jitter", () => {
    const mid = () => 0.5;
    assert.deepEqual(
      [0, 1, 2, 3, 4, 5, 6, 40].map((n) => backoffDelay(n, 500, 30_000, mid)),
      [500, 1000, 2000, 4000, 8000, 16000, 30000, 30000],
    );
    assert.equal(
      backoffDelay(2, 500, 30_000, () => 0),
      1500,
    );
    assert.equal(
      backoffDelay(2, 500, 30_000, () => 0.999999),
      2500,
    );
  });

  it("reads --peer multiaddrs with or without a peer ID and refuses others", () => {
    assert.equal(parsePeerAddress(`/ip4/127.0.0.1/tcp/15600/p2p/${PEER}`).peerId, PEER);
    assert.equal(parsePeerAddress("/ip4/10.0.0.1/tcp/15600").peerId, undefined);
    for (const bad of ["127.0.0.1:15600", "/ip4/127.0.0.1/udp/15600", "/ip4/1.2.3/tcp/1"]) {
      assert.throws(() => parsePeerAddress(bad), { code: NetworkErrorCode.InvalidPeerAddress }, bad);
    }
  });

  it("redials a lost static peer with backoff and resets it on success", async () => {
    let up = false;
    let connected = false;
    const dials: number[] = [];
    const host: PeeringHost = {
      async dial(_address: Multiaddr) {
        dials.push(Date.now());
        if (!up) throw new Error("connection refused");
        connected = true;
        return PEER;
      },
      isConnected: () => connected,
    };
    const peering = new Peering([`/ip4/127.0.0.1/tcp/1/p2p/${PEER}`], host, { reconnectMinMs: 20, reconnectMaxMs: 80 });
    peering.start();
    try {
      await new Promise((r) => setTimeout(r, 300));
      const failures = peering.states()[0]!.failures;
      assert.ok(failures >= 3, `${failures} failed dials`);
      // the gaps grow: the last ones are near the cap, never below the first
      const gaps = dials.slice(1).map((t, i) => t - dials[i]!);
      assert.ok(gaps.at(-1)! >= gaps[0]!, `gaps ${gaps}`);
      assert.match(peering.states()[0]!.lastError!, /refused/);
      up = true;
      await new Promise((r) => setTimeout(r, 150));
      assert.deepEqual(
        { connected: peering.states()[0]!.connected, failures: peering.states()[0]!.failures },
        { connected: true, failures: 0 },
      );
      assert.equal(peering.isStatic(PEER), true);
      // lost again: redialled after the (reset) minimum delay
      connected = false;
      peering.disconnected(PEER);
      const before = dials.length;
      await new Promise((r) => setTimeout(r, 60));
      assert.equal(dials.length, before + 1);
      assert.equal(peering.states()[0]!.connected, true);
    } finally {
      peering.stop();
    }
  });
});

describe("peer scores", () => {
  it("lose a penalty per invalid message, recover by half per half-life, and ban at the threshold", () => {
    let t = 0;
    const scores = new PeerScores({ penalty: 20, halfLifeMs: 1000, banThreshold: -100, banMs: 5000 }, () => t);
    assert.equal(scores.score("p"), 0);
    assert.equal(scores.penalize("p"), false);
    assert.equal(scores.score("p"), -20);
    t = 1000;
    assert.equal(scores.score("p"), -10);
    for (let i = 0; i < 4; i++) assert.equal(scores.penalize("p"), false);
    assert.equal(scores.penalize("p"), true, "-10 - 100 crosses -100");
    assert.equal(scores.isBanned("p"), true);
    assert.deepEqual(scores.bannedPeers(), ["p"]);
    assert.equal(scores.invalidCount("p"), 6);
    assert.equal(scores.penalize("p"), false, "a ban is reported once");
    t += 5001;
    assert.equal(scores.isBanned("p"), false);
    assert.equal(scores.bannedUntil("p"), 0);
    assert.equal(scores.isBanned("other"), false);
  });
});
