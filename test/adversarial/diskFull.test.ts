import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { closeSync, openSync, writeSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { waitForReferenced } from "../helpers/milestones.js";
import { removeDir, tempDir } from "../helpers/node.js";
import { client, NodeProcess } from "../helpers/nodeProcess.js";
import { waitFor } from "../helpers/waitFor.js";

/**
 * Fault: the disk fills up under load. The data dir is a 64 MiB tmpfs where the machine lets the
 * test mount one (root), else storage that fails its writes on cue (helpers/failingDisk.ts). Once
 * the database refuses a write, submissions answer 503 with the reason, `/health` answers 503,
 * reads are still served, one log line says what to do (not one per tick), no milestone is
 * confirmed, and a restart with space resumes: the confirmed ledger and the blocks taken in
 * before the disk filled are there, milestones and intake go on (docs/decisions.md, Threats).
 */
describe("fault: the disk fills up under load", () => {
  let base: string;
  let node: NodeProcess;
  let mode: "tmpfs" | "cue";
  const cueFile = () => join(base, "disk-full");
  const filler = () => join(node.dataDir, "filler");
  const url = (path: string) => `${node.url}${path}`;

  const start = async () => {
    node.start([], {
      execArgv: mode === "cue" ? ["--import", join(import.meta.dirname, "helpers", "failingDisk.js")] : [],
      env: { LEDGER_NODE_TEST_FAIL_WRITES_WHEN: cueFile() },
    });
    await node.waitHealthy(20_000);
  };
  const stop = () => node.stop();

  before(async () => {
    base = await tempDir("disk");
    node = await NodeProcess.create(
      "disk",
      ["--p2p-port", "0", "--milestone-interval", "300", "--min-pow-score", "0", "--log-level", "warn"],
      { networkDefaults: false },
    );
    mode = "cue";
    // LEDGER_NODE_TEST_DISK=cue runs the other way on a machine that could mount
    if (process.env.LEDGER_NODE_TEST_DISK !== "cue") {
      try {
        execFileSync("mount", ["-t", "tmpfs", "-o", "size=64m", "tmpfs", node.dataDir], { stdio: "ignore" });
        mode = "tmpfs";
      } catch {
        // not root, or no mount in this container: storage fails on cue instead
      }
    }
  });
  after(async () => {
    await node.stop("SIGKILL");
    if (mode === "tmpfs") execFileSync("umount", ["-l", node.dataDir]);
    await node.dispose();
    await removeDir(base);
  });

  const status = async (path: string) => {
    const res = await fetch(url(path));
    // biome-ignore lint/suspicious/noExplicitAny: node answers are JSON, asserted field by field
    return { status: res.status, body: (await res.json().catch(() => ({}))) as Record<string, any> };
  };
  let n = 0;
  /** A tagged-data block of about 8 KB without a nonce (the network asks no PoW here). */
  const submit = async () => {
    n++;
    const res = await fetch(url("/api/core/v2/blocks"), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        protocolVersion: 2,
        payload: { type: 5, tag: `0x${n.toString(16).padStart(8, "0")}`, data: `0x${"ab".repeat(8000)}` },
      }),
    });
    return { status: res.status, body: (await res.json()) as { blockId?: string; error?: { details: string } } };
  };
  const confirmedIndex = async () => (await status("/api/core/v2/info")).body.status.confirmedMilestone.index as number;
  const fillDisk = async () => {
    if (mode === "cue") return writeFile(cueFile(), "");
    const fd = openSync(filler(), "w");
    const chunk = Buffer.alloc(1 << 20);
    try {
      for (;;) writeSync(fd, chunk);
    } catch (e) {
      assert.equal((e as NodeJS.ErrnoException).code, "ENOSPC");
    } finally {
      closeSync(fd);
    }
  };
  const freeDisk = () => rm(mode === "cue" ? cueFile() : filler(), { force: true });

  it("refuses blocks with 503, reports unhealthy, serves reads, and resumes after a restart with space", async (t) => {
    t.diagnostic(mode === "tmpfs" ? "data dir on a 64 MiB tmpfs" : "storage failing on cue");
    await start();
    // 1. load before the disk fills: every block acknowledged is taken in, milestones confirm
    const before: string[] = [];
    const loadUntil = Date.now() + 1_500;
    await Promise.all(
      [1, 2, 3, 4].map(async () => {
        while (Date.now() < loadUntil) {
          const r = await submit();
          assert.equal(r.status, 201, JSON.stringify(r.body));
          before.push(r.body.blockId!);
        }
      }),
    );
    const lastBefore = before[before.length - 1]!;
    await waitForReferenced(client(node), lastBefore, 20_000, "the blocks before the fill referenced");
    const confirmedBefore = await confirmedIndex();
    const milestoneBefore = (await status(`/api/core/v2/milestones/by-index/${confirmedBefore}`)).body;

    // 2. the disk fills under load: within a few blocks every submission answers 503 with the reason
    await fillDisk();
    let acceptedAfterFill = 0;
    const refusal = await waitFor(
      async () => {
        const r = await submit();
        if (r.status === 201) {
          acceptedAfterFill++;
          return undefined;
        }
        return r;
      },
      20_000,
      "the first refusal",
      0,
    );
    assert.equal(refusal.status, 503, JSON.stringify(refusal.body));
    assert.match(refusal.body.error!.details, /refuses writes.*No space left on device.*restart the node/);
    assert.ok(acceptedAfterFill < 200, `${acceptedAfterFill} blocks acknowledged after the disk filled`);
    for (let i = 0; i < 20; i++) assert.equal((await submit()).status, 503);

    // 3. unhealthy with the reason, reads still served, nothing confirmed, one log line
    const health = await status("/health");
    assert.equal(health.status, 503);
    assert.match(health.body.error.details, /refuses writes/);
    const info = await status("/api/core/v2/info");
    assert.equal(info.status, 200);
    assert.equal(info.body.status.isHealthy, false);
    assert.equal((await status(`/api/core/v2/blocks/${before[0]}`)).status, 200);
    assert.equal((await status(`/api/core/v2/outputs/0x${"00".repeat(34)}`)).status, 200);
    assert.equal((await status("/api/indexer/v1/outputs/basic")).status, 200);
    const stuckAt = await confirmedIndex();
    await new Promise((r) => setTimeout(r, 2_000));
    assert.equal(await confirmedIndex(), stuckAt, "no milestone confirmed on a disk that refuses writes");
    const said = node.output.split("\n").filter((l) => /refuses writes/.test(l));
    assert.equal(said.length, 1, `one log line, not one per tick:\n${said.join("\n")}`);
    assert.match(said[0]!, /free disk space or fix the I\/O error, then restart the node/);

    // 4. space again, restart: the ledger and the blocks taken in before the fill are there
    await stop();
    await freeDisk();
    await start();
    assert.ok((await confirmedIndex()) >= confirmedBefore);
    assert.deepEqual((await status(`/api/core/v2/milestones/by-index/${confirmedBefore}`)).body, milestoneBefore);
    for (const id of before) assert.equal((await status(`/api/core/v2/blocks/${id}`)).status, 200, id);
    const after = await submit();
    assert.equal(after.status, 201, JSON.stringify(after.body));
    await waitForReferenced(client(node), after.body.blockId!, 20_000, "a block taken in after the restart referenced");
    assert.equal((await status("/health")).status, 200);
    await stop();
  });
});
