import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { NodeProcess } from "../helpers/nodeProcess.js";
import { Rng } from "../helpers/random.js";

/**
 * Threat: a crash in the middle of a dev revert (README, Build against it). A revert writes what
 * differs from the saved state in one LevelDB batch before it builds the node anew, so a process
 * killed at any moment of it restarts into the state it had or the state it was put back to,
 * never a mix (docs/decisions.md, A node for builders). Each cycle saves, adds a few hundred
 * blocks and a milestone (a diff of thousands of keys), asks for the revert and kills the process
 * with SIGKILL somewhere within the time a revert takes; after the restart either every block
 * of the cycle is there and the ledger at the later milestone, or none is and the ledger at the
 * saved one. Set REVERT_CRASH_SEED to replay the kill moments of a run.
 */
describe("threat: SIGKILL in the middle of a revert", () => {
  const CYCLES = 8;
  const BLOCKS = 300;
  const seed = Number(process.env.REVERT_CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31));
  const rng = new Rng(seed);
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  let node: NodeProcess;
  before(async () => {
    node = await NodeProcess.create("revert-crash", ["--min-pow-score", "0", "--milestones", "manual"]);
    node.start();
    await node.waitHealthy();
  });
  after(() => node?.dispose());

  const post = async (path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> => {
    const init = {
      method: "POST",
      ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
    };
    // a pooled connection to the killed process fails once after the restart: asked again on a new one
    const res = await fetch(`${node.url}${path}`, init).catch(() => fetch(`${node.url}${path}`, init));
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const confirmed = async () => (await node.info()).status.confirmedMilestone.index as number;

  /** Saves, then adds `BLOCKS` tagged-data blocks and one milestone; answers the state's ID and the blocks. */
  const cycleWork = async (cycle: number) => {
    const saved = await post("/api/dev/v1/state");
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
    const ids: string[] = [];
    // 10 at a time: more new connections at once than the budget lets one address open per
    // second would be held back (api/connectionBudget.ts)
    for (let i = 0; i < BLOCKS; i += 10) {
      const batch = await Promise.all(
        Array.from({ length: 10 }, (_, j) =>
          post("/api/core/v2/blocks", {
            protocolVersion: 2,
            payload: {
              type: 5,
              tag: `0x${cycle.toString(16).padStart(2, "0")}`,
              data: `0x${(i + j).toString(16).padStart(4, "0")}`,
            },
          }),
        ),
      );
      for (const b of batch) {
        assert.equal(b.status, 201, JSON.stringify(b.body));
        ids.push(b.body.blockId as string);
      }
    }
    assert.equal((await post("/api/dev/v1/milestones")).status, 200);
    return { id: saved.body.id as string, savedAt: saved.body.milestoneIndex as number, ids };
  };

  it(`restarts into the old state or the new one, never a mix (seed ${seed})`, async () => {
    // one revert left to finish, to know how long a revert takes here
    const calibration = await cycleWork(0);
    const started = performance.now();
    const done = await post(`/api/dev/v1/state/${calibration.id}/revert`);
    const revertMs = performance.now() - started;
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.equal(await confirmed(), calibration.savedAt);

    const outcomes: string[] = [];
    for (let cycle = 1; cycle <= CYCLES; cycle++) {
      const work = await cycleWork(cycle);
      const later = await confirmed();
      // most kills early in the revert, where the batch is built and written
      const delay = rng.float() ** 2 * revertMs * 1.5;
      const asked = fetch(`${node.url}/api/dev/v1/state/${work.id}/revert`, { method: "POST" }).catch(() => undefined);
      await sleep(delay);
      await node.stop("SIGKILL");
      await asked;
      node.start();
      await node.waitHealthy();

      const index = await confirmed();
      // every 10th block of the cycle, the first and the last
      const sample = work.ids.filter((_, i) => i % 10 === 0 || i === work.ids.length - 1);
      let kept = 0;
      for (const id of sample) {
        const status = (await fetch(`${node.url}/api/core/v2/blocks/${id}/metadata`)).status;
        assert.ok(status === 200 || status === 404, `${status}`);
        if (status === 200) kept++;
      }
      if (index === later) {
        assert.equal(kept, sample.length, `cycle ${cycle}: the old state, whole`);
        outcomes.push("old");
      } else {
        assert.equal(index, work.savedAt, `cycle ${cycle}: the ledger at the saved milestone or the later one`);
        assert.equal(kept, 0, `cycle ${cycle}: the saved state, none of the later blocks`);
        outcomes.push("new");
      }
      // the node goes on from either: a block and a milestone
      const block = await post("/api/core/v2/blocks", {
        protocolVersion: 2,
        payload: { type: 5, tag: "0xff", data: "0x00" },
      });
      assert.equal(block.status, 201);
      assert.equal((await post("/api/dev/v1/milestones")).status, 200);
    }
    console.log(`revert ${revertMs.toFixed(0)} ms; after the kills: ${outcomes.join(", ")}`);
  });
});
