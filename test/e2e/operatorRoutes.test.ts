import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Json } from "../helpers/iota.js";
import { confirmedIndex, waitForMilestone, waitForReferenced } from "../helpers/milestones.js";
import { client, NodeProcess } from "../helpers/nodeProcess.js";
import { freePort } from "../helpers/ports.js";
import { waitFor } from "../helpers/waitFor.js";
import { DevWallet } from "../helpers/wallet.js";
import { checkOutputIdProof } from "./helpers/outputIdProof.js";

/**
 * The operator routes on real node processes: A, a coordinator whose API is driven, and B, a
 * follower of A's network that never dials A by itself (its one static peer is A's ID on a dead
 * port), so every connection between them is A's doing.
 * - A static peer added with `POST /api/core/v2/peers` is dialled at once, is still static after
 *   A restarts (and dialled again), and `DELETE` removes it for good, also across a restart.
 * - Pruning by depth on a node with history frees the blocks of the pruned milestones (404) and
 *   keeps what an unspent output's proof needs.
 */
describe("operator routes on real processes", () => {
  let a: NodeProcess;
  let b: NodeProcess;
  let token: string;
  let idB: string;
  let addressB: string;

  const call = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${a.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Json) : {} };
  };
  const peersOfA = async (): Promise<Json[]> => {
    const r = await call("GET", "/api/core/v2/peers");
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body as unknown as Json[];
  };
  const restartA = async () => {
    assert.equal(await a.stop(), 0, a.output);
    a.start();
    await waitFor(async () => ((await a.info()).network ? true : undefined), 20_000, "A answering after its restart");
  };

  before(async () => {
    a = await NodeProcess.create("a");
    a.start();
    await a.address();
    const idA = (await a.info()).network.peerId as string;
    token = a.token();
    const dead = `/ip4/127.0.0.1/tcp/${await freePort()}/p2p/${idA}`;
    b = await NodeProcess.follower("b", a, [dead]);
    b.start();
    addressB = await b.address();
    idB = (await b.info()).network.peerId as string;
  });
  after(async () => {
    for (const n of [b, a]) await n?.dispose();
  });

  it("a peer added at runtime is dialled, stays static across a restart, and DELETE removes it for good", async () => {
    assert.equal((await call("GET", `/api/core/v2/peers/${idB}`)).status, 404, "B never dials A itself");
    const added = await call("POST", "/api/core/v2/peers", { multiAddress: addressB, alias: "b" });
    assert.equal(added.status, 200, JSON.stringify(added.body));
    assert.equal(added.body.id, idB);
    assert.equal(added.body.relation, "known");
    assert.equal(added.body.alias, "b");
    const connected = await waitFor(
      async () => (await peersOfA()).find((p) => p.id === idB && p.connected && p.gossip),
      20_000,
      "A connected to B, exchanging heartbeats",
    );
    assert.equal(connected.relation, "known");
    assert.equal((await b.info()).network.connectedPeers, 1);
    const stored = JSON.parse(await readFile(join(a.dataDir, "p2p", "peering.json"), "utf8"));
    assert.deepEqual(stored, { peers: [{ multiAddress: addressB, alias: "b" }] });

    await restartA();
    const again = await waitFor(
      async () => (await peersOfA()).find((p) => p.id === idB && p.connected),
      20_000,
      "A dialling B again after its restart",
    );
    assert.equal(again.relation, "known");
    assert.equal(again.alias, "b");

    const removed = await call("DELETE", `/api/core/v2/peers/${idB}`);
    assert.equal(removed.status, 204, JSON.stringify(removed.body));
    await waitFor(
      async () => ((await peersOfA()).some((p) => p.id === idB) ? undefined : true),
      20_000,
      "B gone from A's peers",
    );
    assert.equal((await call("GET", `/api/core/v2/peers/${idB}`)).status, 404);
    assert.equal((await call("DELETE", `/api/core/v2/peers/${idB}`)).status, 404);

    await restartA();
    // several redial periods of a static peer (0.5 s doubling) pass without a connection
    await new Promise((r) => setTimeout(r, 3_000));
    assert.equal((await call("GET", `/api/core/v2/peers/${idB}`)).status, 404);
    assert.equal((await b.info()).network.connectedPeers, 0);
  });

  it("prunes by depth: the pruned milestones' blocks answer 404, an unspent output keeps its proof", async () => {
    const wallet = new DevWallet(client(a));
    const first = await wallet.pay(1);
    await wallet.pay(2);
    const [paidOutput, spentChange] = wallet.created;
    const meta = await waitForReferenced(client(a), first, 20_000, "the first payment confirmed");
    assert.equal(meta.ledgerInclusionState, "included");
    const block = await a.json(`/api/core/v2/blocks/${first}`);
    const booked = meta.referencedByMilestoneIndex as number;
    // 30 milestones beyond the payment
    await waitForMilestone(a, booked + 30, 30_000, "30 milestones after the payment");
    const pruned = await call("POST", "/api/core/v2/control/database/prune", { depth: 20 });
    assert.equal(pruned.status, 200, JSON.stringify(pruned.body));
    const horizon = pruned.body.index as number;
    assert.ok(horizon > booked + 1, `pruning index ${horizon} above the payment's milestone ${booked}`);
    assert.equal((await a.info()).status.pruningIndex, horizon);

    assert.equal((await a.get(`/api/core/v2/blocks/${first}`)).status, 404);
    assert.equal((await a.get(`/api/core/v2/milestones/by-index/${booked}`)).status, 404);
    assert.equal((await a.get(`/api/core/v2/outputs/${spentChange}`)).status, 404, "an output spent below the horizon");
    assert.equal((await a.get(`/api/core/v2/milestones/by-index/${horizon}`)).status, 200);
    const full = await a.json(`/api/core/v3/outputs/${paidOutput}/full`);
    assert.equal(full.metadata.included.slot, booked);
    assert.equal(full.outputIdProof.slot, booked);
    assert.equal(checkOutputIdProof(full.outputIdProof, block.payload.essence, 0), undefined);

    // refusals: too shallow, nothing left to prune
    const shallow = await call("POST", "/api/core/v2/control/database/prune", { depth: 3 });
    assert.equal(shallow.status, 400);
    assert.match(shallow.body.error.details, /keeps fewer than the 16 milestones/);
    const again = await call("POST", "/api/core/v2/control/database/prune", { index: horizon });
    assert.equal(again.status, 400);
    assert.match(again.body.error.details, /^nothing to prune/);
    // the node confirms on and keeps serving the payment's output
    const at = await confirmedIndex(a);
    await waitForMilestone(a, at + 3, 10_000, "milestones after pruning");
    assert.equal((await a.get(`/api/core/v2/outputs/${paidOutput}`)).status, 200);
  });
});
