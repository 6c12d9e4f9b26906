import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { waitForMilestone } from "../helpers/milestones.js";
import { removeDir, tempDir } from "../helpers/node.js";
import { type NodeProcess, startNodeProcess } from "../helpers/nodeProcess.js";
import { waitFor } from "../helpers/waitFor.js";

/**
 * Issue #5 through the real process: node A takes automatic snapshots (`--snapshot-interval`);
 * `npm start -- --data-dir <empty> --snapshot <file>` starts node B from one, at that milestone,
 * with the same ledger, and B's coordinator carries on; `inspect` prints the file; a truncated
 * file is refused with a clear message and leaves the data dir untouched.
 */
/** Milestones every 150 ms, P2P on a port of its own. */
const FLAGS = ["--milestone-interval", "150", "--log-level", "warn", "--p2p-port", "0"];

describe("starting a node process from a snapshot", () => {
  let a: NodeProcess;
  let work: string;
  let snapshotPath: string;

  const get = async <T>(endpoint: string, path: string): Promise<T> =>
    (await (await fetch(`${endpoint}${path}`)).json()) as T;
  /** Every unspent basic output's amount, through the indexer and the output route. */
  const ledgerTotal = async (endpoint: string) => {
    const page = await get<{ items: string[] }>(endpoint, "/api/indexer/v1/outputs/basic?pageSize=1000");
    let total = 0n;
    for (const id of page.items)
      total += BigInt(
        (await get<{ output: { amount: string } }>(endpoint, `/api/core/v2/outputs/${id}`)).output.amount,
      );
    return total;
  };

  before(async () => {
    work = await tempDir("snapstart");
    a = await startNodeProcess([...FLAGS, "--snapshot-interval", "3"]);
    // its startup line names its data dir (it comes once the P2P layer is up, maybe after /health)
    await waitFor(() => a.output.includes(`data in ${a.dataDir},`), 20_000, "A's startup line");
    // the automatic snapshot at milestone 3, copied out of A's data dir
    snapshotPath = await a.copySnapshot("full_snapshot_3.bin", work, 20_000);
  });
  after(async () => {
    await a?.close();
    await removeDir(work);
  });

  it("inspect prints the file's header and counts", () => {
    const r = spawnSync(process.execPath, ["dist/src/cli/main.js", "inspect", snapshotPath], { encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /dev/);
    assert.match(r.stdout, /\b3\b/);
  });

  it("starts a second node from it at milestone 3 with the whole supply, and its coordinator carries on", async () => {
    const b = await startNodeProcess(["--snapshot", snapshotPath, ...FLAGS]);
    try {
      // the startup line comes once the P2P layer is up, which may be after /health answers
      await waitFor(async () => (/milestone \d+/.test(b.output) ? true : undefined), 20_000, "B's startup line");
      // B resumes at the snapshot's milestone 3 and confirms its own 4 before its API listens
      assert.match(b.output, /milestone 4\b/, b.output);
      const [mine, theirs] = await Promise.all(
        [a.url, b.url].map(async (e) => (await fetch(`${e}/api/core/v2/milestones/by-index/3`)).json()),
      );
      assert.deepEqual(theirs, mine, "milestone 3 on B is A's");
      await waitForMilestone(b, 5, 20_000, "B's own milestones", { latest: true });
      assert.equal(await ledgerTotal(b.url), 2779530283277761n);
      assert.equal(await ledgerTotal(a.url), 2779530283277761n);
      // restarted with the same command line: the database has data, so --snapshot is ignored,
      // and the network.json B wrote (its own coordinator key) is not held against A's file
      assert.equal(await b.stop(), 0);
      b.start();
      await b.waitHealthy();
      await waitForMilestone(b, 6, 20_000, "B's milestones after its restart", { latest: true });
    } finally {
      assert.equal(await b.close(), 0);
    }
  });

  it("refuses a truncated file with a clear message and leaves the data dir untouched", async () => {
    const bytes = await readFile(snapshotPath);
    const truncated = join(work, "truncated.bin");
    await writeFile(truncated, bytes.subarray(0, Math.floor(bytes.length / 2)));
    const dataDir = join(work, "never-created");
    const r = spawnSync(
      process.execPath,
      ["dist/src/cli/main.js", "--data-dir", dataDir, "--snapshot", truncated, "--api-port", "0"],
      {
        encoding: "utf8",
        timeout: 30_000,
      },
    );
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /snapshot|truncated/i);
    await assert.rejects(stat(dataDir), "the data dir was not created");
  });
});
