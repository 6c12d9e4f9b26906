import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFile, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type NodeProcess, startNodeProcess, waitFor } from "../helpers/nodeProcess.js";

/**
 * Issue #5 through the real process: node A takes automatic snapshots (`--snapshot-interval`);
 * `npm start -- --data-dir <empty> --snapshot <file>` starts node B from one, at that milestone,
 * with the same ledger, and B's coordinator carries on; `inspect` prints the file; a truncated
 * file is refused with a clear message and leaves the data dir untouched.
 */
describe("starting a node process from a snapshot", () => {
  let a: NodeProcess;
  let work: string;
  let snapshotPath: string;

  const get = async <T>(endpoint: string, path: string): Promise<T> =>
    (await (await fetch(`${endpoint}${path}`)).json()) as T;
  const latest = async (endpoint: string) =>
    (await get<{ status: { latestMilestone: { index: number } } }>(endpoint, "/api/core/v2/info")).status
      .latestMilestone.index;
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
    work = await mkdtemp(join(tmpdir(), "ledger-node-snapstart-"));
    a = await startNodeProcess([
      "--milestone-interval",
      "150",
      "--log-level",
      "warn",
      "--p2p-port",
      "0",
      "--snapshot-interval",
      "3",
    ]);
    const dataDir = /data in (\S+),/.exec(a.output())![1]!;
    const file = await waitFor(
      async () =>
        (await readdir(join(dataDir, "snapshots")).catch(() => [] as string[])).find(
          (f) => f === "full_snapshot_3.bin",
        ),
      20_000,
      "the automatic snapshot at milestone 3",
    );
    // the file appears complete only once renamed into place; copy it out of A's data dir
    snapshotPath = join(work, file);
    await copyFile(join(dataDir, "snapshots", file), snapshotPath);
    await copyFile(join(dataDir, "snapshots", `${file}.sha256`), `${snapshotPath}.sha256`).catch(() => {});
  });
  after(async () => {
    await a?.stop();
    await rm(work, { recursive: true, force: true });
  });

  it("inspect prints the file's header and counts", () => {
    const r = spawnSync(process.execPath, ["dist/src/cli/main.js", "inspect", snapshotPath], { encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /dev/);
    assert.match(r.stdout, /\b3\b/);
  });

  it("starts a second node from it at milestone 3 with the whole supply, and its coordinator carries on", async () => {
    const b = await startNodeProcess([
      "--snapshot",
      snapshotPath,
      "--milestone-interval",
      "150",
      "--log-level",
      "warn",
      "--p2p-port",
      "0",
    ]);
    try {
      // the startup line comes once the P2P layer is up, which may be after /health answers
      await waitFor(async () => (/milestone \d+/.test(b.output()) ? true : undefined), 20_000, "B's startup line");
      // B resumes at the snapshot's milestone 3 and confirms its own 4 before its API listens
      assert.match(b.output(), /milestone 4\b/, b.output());
      const [mine, theirs] = await Promise.all(
        [a.endpoint, b.endpoint].map(async (e) => (await fetch(`${e}/api/core/v2/milestones/by-index/3`)).json()),
      );
      assert.deepEqual(theirs, mine, "milestone 3 on B is A's");
      await waitFor(async () => ((await latest(b.endpoint)) > 4 ? true : undefined), 20_000, "B's own milestones");
      assert.equal(await ledgerTotal(b.endpoint), 2779530283277761n);
      assert.equal(await ledgerTotal(a.endpoint), 2779530283277761n);
    } finally {
      assert.equal(await b.stop(), 0);
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
