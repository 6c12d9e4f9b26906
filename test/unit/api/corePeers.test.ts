import { peerIdFromString } from "@libp2p/peer-id";
import "../../../src/network/polyfill.js";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import { generateKeyPair } from "@libp2p/crypto/keys";
import { peerIdFromPrivateKey } from "@libp2p/peer-id";
import type { FastifyInstance } from "fastify";
import { issueApiToken } from "../../../src/api/auth.js";
import { buildServer } from "../../../src/api/server.js";
import { MAX_STATIC_PEERS, peeringFilePath } from "../../../src/network/peeringFile.js";
import { assertError, openHarness } from "../../helpers/coreHarness.js";
import { removeNode, startCoordinator, startFollower, startNode, type TestNode, until } from "../../helpers/network.js";

const PEERS = "/api/core/v2/peers";

/** A fresh libp2p peer ID nobody listens as. */
async function strangerId(): Promise<string> {
  return peerIdFromPrivateKey(await generateKeyPair("Ed25519")).toString();
}

/**
 * Static peers added and removed at runtime through the peers routes (TIP-25 `AddPeerRequest`,
 * Hornet's `addPeer` / `removePeer`), on in-process nodes with their P2P layer: A, whose API is
 * driven, and B, which never dials A by itself (its only static peer is a dead port), so every
 * connection between them is A's doing.
 */
describe("POST and DELETE /api/core/v2/peers", () => {
  let a: TestNode;
  let b: TestNode;
  let app: FastifyInstance;
  let token: string;
  let bId: string;

  const open = async (node: TestNode) => {
    await app?.close();
    app = buildServer(node.node, "silent");
    token = await issueApiToken(node.node.jwtSecret);
  };
  const send = (method: "POST" | "DELETE" | "GET", url: string, body?: unknown, auth = true) =>
    app.inject({
      method,
      url,
      headers: {
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...(auth ? { authorization: `Bearer ${token}` } : {}),
      },
      ...(body === undefined ? {} : { payload: typeof body === "string" ? body : JSON.stringify(body) }),
    });
  const stored = async (dir: string) =>
    JSON.parse(await readFile(peeringFilePath(dir), "utf8")) as { peers: { multiAddress: string; alias?: string }[] };
  const connectedTo = (from: TestNode, id: string) => from.network.peers().some((p) => p.id === id && p.connected);

  before(async () => {
    a = await startCoordinator();
    b = await startFollower(a, [`/ip4/127.0.0.1/tcp/1/p2p/${a.network.peerId}`]);
    bId = b.network.peerId;
    await open(a);
  });
  after(async () => {
    await app?.close();
    for (const n of [b, a]) if (n) await removeNode(n);
  });

  it("adds a static peer: dialled at once, answered as GET /peers/{peerId} shows it, kept in peering.json", async () => {
    assert.equal(connectedTo(a, bId), false);
    assertError(await send("POST", PEERS, { multiAddress: b.address }, false), 403);
    const r = await send("POST", PEERS, { multiAddress: b.address, alias: "b" });
    assert.equal(r.statusCode, 200, r.body);
    const peer = r.json();
    assert.equal(peer.id, bId);
    assert.equal(peer.relation, "known");
    assert.equal(peer.connected, true);
    assert.equal(peer.alias, "b");
    assert.equal(connectedTo(a, bId), true);
    const got = (await send("GET", `${PEERS}/${bId}`)).json();
    assert.equal(got.relation, "known");
    assert.equal(got.alias, "b");
    // the same peer by its CID spelling; an ID that is none is a 400
    const cid = peerIdFromString(bId).toCID().toString();
    assert.equal((await send("GET", `${PEERS}/${cid}`)).json().id, bId);
    assertError(await send("GET", `${PEERS}/0OIl`), 400, /peerId/);
    assert.deepEqual(await stored(a.dir), { peers: [{ multiAddress: b.address, alias: "b" }] });
    // adding it again keeps one entry and takes the new alias
    const again = await send("POST", PEERS, { multiAddress: b.address, alias: "bee" });
    assert.equal(again.json().alias, "bee");
    assert.deepEqual(await stored(a.dir), { peers: [{ multiAddress: b.address, alias: "bee" }] });
  });

  it("keeps the added peer static across a restart and dials it again", async () => {
    await app.close();
    await a.close();
    a = await startNode(a.dir);
    await open(a);
    await until(() => connectedTo(a, bId), 10_000, "A dialling B after its restart");
    const peer = (await send("GET", `${PEERS}/${bId}`)).json();
    assert.equal(peer.relation, "known");
    assert.equal(peer.alias, "bee");
  });

  it("refuses an address that names no peer, this node, or another transport, and bodies out of shape", async () => {
    const refusals: [unknown, RegExp][] = [
      [{ multiAddress: "/ip4/127.0.0.1/tcp/15600" }, /must name the peer once, with \/p2p\/<peer id>/],
      [{ multiAddress: `/ip4/127.0.0.1/udp/15600/p2p/${bId}` }, /only TCP addresses can be dialled/],
      [{ multiAddress: `/tcp/1/p2p/${bId}` }, /only TCP addresses can be dialled/],
      [{ multiAddress: `/unix/tmp%2Fx/tcp/1/p2p/${bId}` }, /only TCP addresses can be dialled/],
      [{ multiAddress: `/ip4/127.0.0.1/tcp/1/ws/p2p/${bId}` }, /only TCP addresses can be dialled/],
      [{ multiAddress: `/ip4/127.0.0.1/tcp/1/p2p-circuit/p2p/${bId}` }, /only TCP addresses can be dialled/],
      [{ multiAddress: `/ip4/127.0.0.1/tcp/1/tcp/2/p2p/${bId}` }, /only TCP addresses can be dialled/],
      [{ multiAddress: `/ip4/127.0.0.1/tcp/0/p2p/${bId}` }, /port 0 cannot be dialled/],
      [{ multiAddress: "/ip4/127.0.0.1/tcp/15600/p2p/notAPeerId" }, /is not a libp2p peer ID/],
      [{ multiAddress: `${b.address}/p2p/${bId}` }, /must name the peer once/],
      [{ multiAddress: a.address }, new RegExp(`^${a.network.peerId} is this node's own peer ID$`)],
      [{ multiAddress: "not a multiaddr" }, /^"not a multiaddr": /],
      [{ multiAddress: "" }, /^multiAddress: must NOT have fewer than 1 characters$/],
      [{ multiAddress: `/ip4/127.0.0.1/tcp/1/p2p/${"1".repeat(1100)}` }, /^multiAddress: must NOT have more than 1024/],
      [{ multiAddress: b.address, alias: "x".repeat(129) }, /^alias: must NOT have more than 128 characters$/],
      [{ multiAddress: b.address, alias: 7 }, /^alias: expected a string, got 7$/],
      [{ alias: "b" }, /^multiAddress: is required$/],
      [{ multiAddress: b.address, relation: "known" }, /^relation: unknown field$/],
      ["[]", /^body: expected an object, got an array$/],
    ];
    for (const [body, reason] of refusals) assertError(await send("POST", PEERS, body), 400, reason);
    assert.deepEqual((await stored(a.dir)).peers.length, 1, "nothing refused was stored");
  });

  it(`keeps at most ${MAX_STATIC_PEERS} static peers`, async () => {
    const strangers: string[] = [];
    for (let i = a.network.peers().filter((p) => p.relation === "known").length; i < MAX_STATIC_PEERS; i++) {
      const id = await strangerId();
      strangers.push(id);
      const r = await send("POST", PEERS, { multiAddress: `/ip4/127.0.0.1/tcp/1/p2p/${id}` });
      assert.equal(r.statusCode, 200, r.body);
      assert.equal(r.json().connected, false);
    }
    assertError(
      await send("POST", PEERS, { multiAddress: `/ip4/127.0.0.1/tcp/1/p2p/${await strangerId()}` }),
      400,
      new RegExp(`^the node keeps at most ${MAX_STATIC_PEERS} static peers; remove one first$`),
    );
    // a static peer already kept may still be added again (a new address)
    assert.equal((await send("POST", PEERS, { multiAddress: b.address, alias: "bee" })).statusCode, 200);
    for (const id of strangers) assert.equal((await send("DELETE", `${PEERS}/${id}`)).statusCode, 204);
    assert.deepEqual(await stored(a.dir), { peers: [{ multiAddress: b.address, alias: "bee" }] });
  });

  it("removes a peer: disconnected, no longer static, 404 afterwards, and so after a restart", async () => {
    assertError(await send("DELETE", `${PEERS}/${bId}`, undefined, false), 403);
    const r = await send("DELETE", `${PEERS}/${bId}`);
    assert.equal(r.statusCode, 204, r.body);
    assert.equal(r.body, "");
    await until(() => !connectedTo(a, bId), 10_000, "A disconnected from B");
    assertError(await send("GET", `${PEERS}/${bId}`), 404);
    assertError(await send("DELETE", `${PEERS}/${bId}`), 404, new RegExp(`^no peer ${bId}$`));
    assert.deepEqual(await stored(a.dir), { peers: [] });
    // B does not come back on its own: no redial from A
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(connectedTo(a, bId), false);

    await app.close();
    await a.close();
    a = await startNode(a.dir);
    await open(a);
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(connectedTo(a, bId), false);
    assertError(await send("GET", `${PEERS}/${bId}`), 404);
  });

  it("refuses a peer ID that is not one", async () => {
    assertError(await send("DELETE", `${PEERS}/not-a-peer!`), 400, /^peerId: expected a libp2p peer ID/);
    assertError(await send("DELETE", `${PEERS}/Qmaaaaaaaaaa`), 400, /^peerId: "Qmaaaaaaaaaa" is not a libp2p peer ID/);
    assertError(await send("DELETE", `${PEERS}/${await strangerId()}`), 404, /^no peer /);
  });
});

describe("the peers routes without a P2P layer", () => {
  it("answer 503", async () => {
    const h = await openHarness();
    try {
      const token = await issueApiToken(h.node.jwtSecret);
      const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
      const id = await strangerId();
      assertError(
        await h.app.inject({
          method: "POST",
          url: PEERS,
          headers,
          payload: JSON.stringify({ multiAddress: `/ip4/127.0.0.1/tcp/1/p2p/${id}` }),
        }),
        503,
        /^this node runs without its P2P layer$/,
      );
      assertError(
        await h.app.inject({
          method: "DELETE",
          url: `${PEERS}/${id}`,
          headers: { authorization: headers.authorization },
        }),
        503,
      );
    } finally {
      await h.close();
    }
  });
});
