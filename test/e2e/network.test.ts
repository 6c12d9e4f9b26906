import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { waitForMilestone, waitForReferenced } from "../helpers/milestones.js";
import { client, type NodeProcess, startNodes, unspentBasicOutputs } from "../helpers/nodeProcess.js";
import { waitFor } from "../helpers/waitFor.js";
import { DevWallet } from "../helpers/wallet.js";

/**
 * Issue #7's main acceptance test: three node processes on loopback in a line, A - B - C. A
 * started the dev network and runs the coordinator; B and C joined it with A's network config
 * file (no coordinator key) and confirm the milestones they receive themselves. Payments built
 * by iota.js are submitted to A only; they must be confirmed on B and C, and after 20
 * milestones the three ledgers must be identical: same milestones (IDs, Merkle roots), same
 * ledger changes per milestone, same unspent outputs.
 */
describe("three nodes: a coordinator and two followers (real processes)", () => {
  let a: NodeProcess;
  let b: NodeProcess;
  let c: NodeProcess;

  before(async () => {
    [a, b, c] = await startNodes(["a", "b", "c"]);
    await c.address();
  });

  after(async () => {
    for (const n of [c, b, a]) await n?.dispose();
  });

  it("the followers join without the coordinator key, follow A and report synced", async () => {
    for (const n of [b, c]) {
      const info = await waitForMilestone(n, 2, 30_000, `${n.name} synced`, { synced: true, peers: 1 });
      assert.equal(info.protocol.networkName, "dev");
      assert.equal(info.protocol.minPowScore, 10, "the network's PoW minimum comes with its config file");
      assert.equal(info.status.isHealthy, true);
      assert.match(info.network.peerId, /^12D3KooW/);
      assert.match(n.output, /follower/);
    }
    assert.match(a.output, /coordinator/);
    // B sits between A and C
    assert.equal((await b.info()).network.connectedPeers, 2);
    // the peers route is protected by default
    assert.equal((await b.get("/api/core/v2/peers")).status, 403);
  });

  it("confirms on B and C the transactions submitted to A", async () => {
    const wallet = new DevWallet(client(a));
    let last = "";
    for (let n = 1; n <= 8; n++) last = await wallet.pay(n);
    for (const n of [a, b, c]) {
      const meta = await waitForReferenced(client(n), last, 30_000, `the last payment confirmed on ${n.name}`);
      assert.equal(meta.ledgerInclusionState, "included", n.name);
    }
    // the same outputs, booked at the same milestone (the answers' ledgerIndex is each node's now)
    const read = async (n: NodeProcess, id: string) => {
      const { metadata, output } = await client(n).output(id);
      const { ledgerIndex: _, ...booked } = metadata;
      return { booked, output };
    };
    for (const id of wallet.created) {
      const [onA, onB, onC] = await Promise.all([a, b, c].map((n) => read(n, id)));
      assert.deepEqual(onB, onA, `output ${id} on B`);
      assert.deepEqual(onC, onA, `output ${id} on C`);
    }
  });

  it("after 20 milestones the three ledgers are identical", async () => {
    await Promise.all([a, b, c].map((n) => waitForMilestone(n, 20, 30_000, `20 milestones on ${n.name}`)));
    for (let index = 1; index <= 20; index++) {
      const [msA, msB, msC] = await Promise.all(
        [a, b, c].map((n) => n.json(`/api/core/v2/milestones/by-index/${index}`)),
      );
      assert.deepEqual(msB, msA, `milestone ${index} on B`);
      assert.deepEqual(msC, msA, `milestone ${index} on C`);
      assert.match(msA.inclusionMerkleRoot, /^0x[0-9a-f]{64}$/);
      const [dA, dB, dC] = await Promise.all(
        [a, b, c].map((n) => n.json(`/api/core/v2/milestones/by-index/${index}/utxo-changes`)),
      );
      assert.deepEqual(dB, dA, `ledger changes of milestone ${index} on B`);
      assert.deepEqual(dC, dA, `ledger changes of milestone ${index} on C`);
    }
    // the unspent outputs, read from each node at the same ledger index
    const same = await waitFor(
      async () => {
        const lists = await Promise.all([a, b, c].map(unspentBasicOutputs));
        return lists.every((l) => l.ledgerIndex === lists[0]!.ledgerIndex) ? lists : undefined;
      },
      20_000,
      "the three indexers at the same ledger index",
    );
    assert.deepEqual(same[1]!.ids, same[0]!.ids);
    assert.deepEqual(same[2]!.ids, same[0]!.ids);
    assert.equal(same[0]!.ids.length, 9, "8 payments and the last change");
  });
});
