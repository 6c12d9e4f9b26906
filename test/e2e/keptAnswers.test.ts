import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Json } from "../helpers/iota.js";
import { waitForReferenced } from "../helpers/milestones.js";
import { client, NodeProcess } from "../helpers/nodeProcess.js";
import { DevWallet } from "../helpers/wallet.js";

/**
 * The answers the read routes keep between two milestones (api/milestoneAnswers.ts) on a real
 * node process whose milestones come only when asked (`--milestones manual`), so no new
 * milestone clears them: pruning changes what a kept answer shows (a spent output below the
 * horizon is gone, a booking milestone's commitment is forgotten) and the next read shows it.
 */
describe("kept answers and pruning, no milestone in between", { timeout: 60_000 }, () => {
  let node: NodeProcess;

  const post = async (path: string, body: unknown, token?: string): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${node.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };
  const milestones = async (count: number) => {
    const r = await post("/api/dev/v1/milestones", { count });
    assert.equal(r.status, 200, JSON.stringify(r.body));
  };

  before(async () => {
    node = await NodeProcess.create("kept", ["--milestones", "manual"]);
    node.start();
    await node.address();
  });

  after(async () => {
    await node?.stop();
  });

  it("a pruned output's kept answer is dropped, and a kept booking's commitment goes with its milestone", async () => {
    const wallet = new DevWallet(client(node));
    const first = await wallet.pay(1);
    await wallet.pay(2);
    const [paid, spentChange] = wallet.created;
    await milestones(1);
    const booked = (await waitForReferenced(client(node), first, 10_000, "the payments confirmed"))
      .referencedByMilestoneIndex as number;
    await milestones(30);

    // read twice at the latest milestone: the second answer is the kept one, the same text
    const read = async (id: string) => {
      const res = await fetch(`${node.url}/api/core/v3/outputs/${id}/full`);
      return { status: res.status, text: await res.text() };
    };
    const paidBefore = await read(paid!);
    assert.equal(paidBefore.status, 200);
    assert.deepEqual(await read(paid!), paidBefore);
    assert.match(paidBefore.text, /"included":\{"slot":\d+,"transactionId":"0x[0-9a-f]+","commitmentId"/);
    const spentBefore = await read(spentChange!);
    assert.equal(spentBefore.status, 200);
    assert.match(spentBefore.text, /"spent":\{/);

    const pruned = await post("/api/core/v2/control/database/prune", { depth: 20 }, node.token());
    assert.equal(pruned.status, 200, JSON.stringify(pruned.body));
    assert.ok((pruned.body.index as number) > booked, "the payments' milestone is below the horizon");
    const latest = (await node.info()).status.latestMilestone.index as number;

    // still the same latest milestone: only the pruning can have changed the answers
    assert.equal((await read(spentChange!)).status, 404, "a spent output below the horizon");
    const paidAfter = await read(paid!);
    assert.equal(paidAfter.status, 200);
    const included = (JSON.parse(paidAfter.text) as Json).metadata.included;
    assert.deepEqual(Object.keys(included), ["slot", "transactionId"], "no commitment of a pruned milestone");
    assert.equal((await node.info()).status.latestMilestone.index, latest);
  });
});
