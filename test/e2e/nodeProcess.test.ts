import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { freePort, waitFor } from "../helpers/nodeProcess.js";

interface Info {
  status: { latestMilestone: { index: number; milestoneId: string; timestamp: number } };
  protocol: { networkName: string; bech32Hrp: string; tokenSupply: string; minPowScore: number };
}

describe("the node process (npm start)", () => {
  let dir: string;
  let port: number;
  let explorerPort: number;
  let child: ChildProcess | undefined;
  let output = "";

  const start = () => {
    output = "";
    child = spawn(
      process.execPath,
      [
        "dist/src/cli/main.js",
        "--data-dir",
        dir,
        "--api-port",
        String(port),
        "--explorer-port",
        String(explorerPort),
        "--milestone-interval",
        "200",
        "--log-level",
        "warn",
      ],
      { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, LEDGER_NODE_MIN_POW_SCORE: "50" } },
    );
    child.stdout!.on("data", (d) => (output += d));
    child.stderr!.on("data", (d) => (output += d));
  };
  const info = async (): Promise<Info> =>
    (await fetch(`http://127.0.0.1:${port}/api/core/v2/info`)).json() as Promise<Info>;
  const stop = async (signal: NodeJS.Signals): Promise<number | null> => {
    const c = child!;
    const exited = new Promise<number | null>((resolve) => c.once("exit", (code) => resolve(code)));
    c.kill(signal);
    return exited;
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "ledger-node-e2e-"));
    port = await freePort();
    explorerPort = await freePort();
  });
  after(async () => {
    if (child && child.exitCode === null) await stop("SIGKILL");
    await rm(dir, { recursive: true, force: true });
  });

  it("starts a dev node that prints its API URL and the dev key, and issues milestones", async () => {
    start();
    await waitFor(
      async () => ((await fetch(`http://127.0.0.1:${port}/health`)).status === 200 ? true : undefined),
      15_000,
      "health",
    );
    const first = await waitFor(
      async () => {
        const i = await info();
        return i.status.latestMilestone.index >= 3 ? i : undefined;
      },
      15_000,
      "three milestones",
    );
    assert.equal(first.protocol.networkName, "dev");
    assert.equal(first.protocol.bech32Hrp, "tst");
    assert.equal(first.protocol.tokenSupply, "2779530283277761");
    assert.equal(first.protocol.minPowScore, 50, "settings come from the environment too");
    assert.match(output, new RegExp(`http://127\\.0\\.0\\.1:${port}`));
    assert.match(output, /0x64c2f3f1072df53b06173af7aa8a4b8e794e7980fca78bf7f3472ecc57e92a3c/);
    // the explorer answers on its own port as well as on the API port
    for (const p of [explorerPort, port]) {
      const res = await fetch(`http://127.0.0.1:${p}/api/explorer/v2/milestones?pageSize=2&sort=oldest`).catch((e) => {
        throw new Error(`explorer on ${p} (api ${port}): ${e}; node said: ${output}`);
      });
      assert.equal(res.status, 200);
      const body = (await res.json()) as { items: { index: number }[] };
      assert.deepEqual(
        body.items.map((i) => i.index),
        [1, 2],
      );
    }
    // protected by default
    const denied = await fetch(`http://127.0.0.1:${port}/api/core/v2/control/snapshot/create`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ index: 1 }),
    });
    assert.equal(denied.status, 403);
  });

  it("shuts down cleanly on SIGTERM and resumes the milestone chain after SIGKILL", async () => {
    const before = (await info()).status.latestMilestone;
    assert.equal(await stop("SIGTERM"), 0);
    // while it is stopped, the jwt command prints a token for its data dir
    const jwt = spawnSync(process.execPath, ["dist/src/cli/main.js", "jwt", "--data-dir", dir], { encoding: "utf8" });
    assert.equal(jwt.status, 0, jwt.stderr);
    const token = jwt.stdout.trim().split("\n").pop()!;
    assert.match(token, /^[\w-]+\.[\w-]+\.[\w-]+$/);
    start();
    const resumed = await waitFor(
      async () => {
        const i = await info();
        return i.status.latestMilestone.index > before.index ? i : undefined;
      },
      15_000,
      "a milestone after restart",
    );
    assert.ok(resumed.status.latestMilestone.timestamp > before.timestamp);
    const allowed = await fetch(`http://127.0.0.1:${port}/api/core/v2/control/snapshot/create`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ index: 1 }),
    });
    assert.notEqual(allowed.status, 403, await allowed.text());

    // kill -9 at an arbitrary moment: the next start finds the last confirmed milestone
    await new Promise((r) => setTimeout(r, 350));
    const beforeKill = (await info()).status.latestMilestone.index;
    await stop("SIGKILL");
    start();
    const again = await waitFor(
      async () => {
        const i = await info();
        return i.status.latestMilestone.index > beforeKill ? i : undefined;
      },
      15_000,
      "a milestone after SIGKILL",
    );
    assert.ok(again.status.latestMilestone.index > beforeKill);
    assert.equal(await stop("SIGTERM"), 0);
  });
});
