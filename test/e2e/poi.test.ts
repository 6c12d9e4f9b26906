import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Json } from "../helpers/iota.js";
import { waitForMilestone } from "../helpers/milestones.js";
import { NodeProcess } from "../helpers/nodeProcess.js";
import { waitFor } from "../helpers/waitFor.js";

/**
 * Proofs of inclusion (inx-poi's routes) between real node processes: a coordinator issuing
 * milestones only when asked (`--milestones manual`, so 300 blocks share one milestone) and a
 * follower of its network. Every block of the 300-block cone gets a proof on the coordinator
 * that validates there and on the follower; the follower makes the same proofs byte for byte;
 * proofs made before a restart still validate after it, and are made again the same.
 */

const POI = "/api/poi/v1";
const BLOCKS = 300;
/** Requests in flight at most (the node's connection budget, test/README). */
const CONCURRENCY = 10;

/** Runs `fn` over `items` with at most CONCURRENCY calls at a time; answers the results in order. */
async function inParallel<T, R>(items: readonly T[], fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return out;
}

async function post(node: NodeProcess, path: string, body: unknown): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${node.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

/** Issues one milestone on the coordinator (the dev route) and answers its index. */
async function issueMilestone(node: NodeProcess): Promise<number> {
  const res = await post(node, "/api/dev/v1/milestones", { count: 1 });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.milestones[0].index as number;
}

async function proofOn(node: NodeProcess, blockId: string): Promise<Json> {
  const { status, body } = await node.get(`${POI}/create/${blockId}`);
  assert.equal(status, 200, `${node.name} create ${blockId}: ${JSON.stringify(body)}`);
  return body;
}

async function validOn(node: NodeProcess, proof: Json): Promise<boolean> {
  const res = await post(node, `${POI}/validate`, proof);
  assert.equal(res.status, 200, `${node.name} validate: ${JSON.stringify(res.body)}`);
  return res.body.valid as boolean;
}

describe("proofs of inclusion between node processes", () => {
  let a: NodeProcess;
  let b: NodeProcess;
  let index: number;
  let cone: string[];
  let proofs: Json[];

  before(async () => {
    a = await NodeProcess.create("poi-a", ["--milestones", "manual"]);
    a.start();
    await waitFor(async () => (await fetch(`${a.url}/api/core/v2/info`)).ok, 20_000, "poi-a's API");
    await issueMilestone(a);
    await a.waitHealthy();
    b = await NodeProcess.follower("poi-b", a, [await a.address()]);
    b.start();
    await waitForMilestone(b, 1, 20_000, "poi-b synced", { synced: true, peers: 1 });
  });
  after(async () => {
    await b?.dispose();
    await a?.dispose();
  });

  it("proves every block of a 300-block milestone cone; each proof validates on the coordinator and the follower", async () => {
    const submitted = await inParallel(
      Array.from({ length: BLOCKS }, (_, i) => i),
      async (i) => {
        const tag = `0x${i.toString(16).padStart(4, "0")}`;
        const res = await post(a, "/api/core/v2/blocks", { protocolVersion: 2, payload: { type: 5, tag, data: "0x" } });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        return res.body.blockId as string;
      },
    );
    index = await issueMilestone(a);
    const listing = await a.json(`/api/explorer/v2/milestones/by-index/${index}/blocks?pageSize=1000&sort=oldest`);
    cone = (listing.blocks as { blockId: string }[]).map((x) => x.blockId);
    for (const id of submitted) assert.ok(cone.includes(id), `${id} is in milestone ${index}'s cone`);
    assert.ok(cone.length > BLOCKS, `${cone.length} blocks`);

    proofs = await inParallel(cone, (id) => proofOn(a, id));
    for (const [i, p] of proofs.entries()) {
      assert.equal(p.milestone.index, index);
      assert.ok(JSON.stringify(p.proof).includes(`{"value":"${cone[i]}"}`));
    }
    await waitForMilestone(b, index, 20_000, `milestone ${index} on poi-b`);
    const onA = await inParallel(proofs, (p) => validOn(a, p));
    const onB = await inParallel(proofs, (p) => validOn(b, p));
    assert.deepEqual(onA, new Array(cone.length).fill(true));
    assert.deepEqual(onB, new Array(cone.length).fill(true));
  });

  it("makes the same proofs on the follower, byte for byte, and both refuse a tampered one", async () => {
    const sample = [0, 1, Math.floor(cone.length / 2), cone.length - 1];
    for (const i of sample) assert.deepEqual(await proofOn(b, cone[i]!), proofs[i], `block ${i}`);
    const tampered = structuredClone(proofs[1]!);
    tampered.milestone.signatures = [];
    assert.equal(await validOn(a, tampered), false);
    assert.equal(await validOn(b, tampered), false);
    const other = structuredClone(proofs[1]!);
    other.block = proofs[2]!.block;
    assert.equal(await validOn(b, other), false);
    const bad = await post(b, `${POI}/validate`, { ...proofs[1]!, extra: 1 });
    assert.equal(bad.status, 400);
    assert.equal((await a.get(`${POI}/create/0x${"00".repeat(31)}`)).status, 400);
  });

  it("validates the same proofs after a restart, and makes them again the same", async () => {
    await a.stop();
    a.start();
    await a.waitHealthy();
    const sample = proofs.filter((_, i) => i % 10 === 0);
    assert.deepEqual(await inParallel(sample, (p) => validOn(a, p)), new Array(sample.length).fill(true));
    for (const i of [0, cone.length - 1]) assert.deepEqual(await proofOn(a, cone[i]!), proofs[i]);
  });
});
