import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { after, before, describe, it } from "node:test";
import { waitForMilestone } from "../helpers/milestones.js";
import { NodeProcess } from "../helpers/nodeProcess.js";
import { freePort } from "../helpers/ports.js";

describe("the node process (npm start)", () => {
  let node: NodeProcess;
  let port: number;
  let explorerPort: number;

  const start = () => node.start([], { env: { LEDGER_NODE_MIN_POW_SCORE: "50" } });
  const info = () => node.info();
  const stop = (signal: NodeJS.Signals) => node.stop(signal);

  before(async () => {
    explorerPort = await freePort();
    node = await NodeProcess.create(
      "e2e",
      ["--explorer-port", String(explorerPort), "--milestone-interval", "200", "--log-level", "warn"],
      { networkDefaults: false },
    );
    port = node.apiPort;
  });
  after(async () => {
    await node.dispose();
  });

  it("starts a dev node that prints its API URL and the dev key, and issues milestones", async () => {
    start();
    await node.waitHealthy(15_000);
    const first = await waitForMilestone(node, 3, 15_000, "three milestones", { latest: true });
    assert.equal(first.protocol.networkName, "dev");
    assert.equal(first.protocol.bech32Hrp, "tst");
    assert.equal(first.protocol.tokenSupply, "2779530283277761");
    assert.equal(first.protocol.minPowScore, 50, "settings come from the environment too");
    assert.match(node.output, new RegExp(`http://127\\.0\\.0\\.1:${port}`));
    assert.match(node.output, /0x64c2f3f1072df53b06173af7aa8a4b8e794e7980fca78bf7f3472ecc57e92a3c/);
    // the explorer answers on its own port as well as on the API port
    for (const p of [explorerPort, port]) {
      const res = await fetch(`http://127.0.0.1:${p}/api/explorer/v2/milestones?pageSize=2&sort=oldest`).catch((e) => {
        throw new Error(`explorer on ${p} (api ${port}): ${e}; node said: ${node.output}`);
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
    const jwt = spawnSync(process.execPath, ["dist/src/cli/main.js", "jwt", "--data-dir", node.dataDir], {
      encoding: "utf8",
    });
    assert.equal(jwt.status, 0, jwt.stderr);
    const token = jwt.stdout.trim().split("\n").pop()!;
    assert.match(token, /^[\w-]+\.[\w-]+\.[\w-]+$/);
    start();
    const resumed = await waitForMilestone(node, before.index + 1, 15_000, "a milestone after restart", {
      latest: true,
    });
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
    const again = await waitForMilestone(node, beforeKill + 1, 15_000, "a milestone after SIGKILL", { latest: true });
    assert.ok(again.status.latestMilestone.index > beforeKill);
    assert.equal(await stop("SIGTERM"), 0);
  });
});
