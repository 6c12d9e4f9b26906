import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { toHex } from "../../../src/codec/hex.js";
import { networkConfigPath } from "../../../src/network/index.js";
import { LedgerNode } from "../../../src/node/node.js";
import { defaultNodeOptions } from "../../../src/node/options.js";
import { startNode, until } from "../../helpers/network.js";
import { removeDir, tempDir } from "../../helpers/node.js";

/**
 * A snapshot carries its network (TIP-35 protocol parameters): a node started from a snapshot of
 * a custom network with that network's `network.json` follows it — it holds the ledger of the
 * snapshot's milestone, takes the coordinator's next milestones (2-of-2 signatures) and refuses
 * the dev network's snapshot names.
 */

const cli = (...args: string[]) => spawnSync(process.execPath, ["dist/src/cli/main.js", ...args], { encoding: "utf8" });

describe("a snapshot of a custom network", () => {
  let dir: string;
  let coordinator: LedgerNode;
  let cooAddress: string;
  let keys: { keyFile: string; publicKey: string; address: string }[];
  const opened: LedgerNode[] = [];

  before(async () => {
    dir = await tempDir("custom-snapshot");
    keys = [0, 1, 2].map((i) => {
      const r = cli("keygen", "--out", join(dir, `k${i}.key`), "--hrp", "snap");
      assert.equal(r.status, 0, r.stderr);
      return JSON.parse(r.stdout) as { keyFile: string; publicKey: string; address: string };
    });
    await writeFile(
      join(dir, "net.json"),
      JSON.stringify({
        networkName: "snap-net",
        bech32Hrp: "snap",
        tokenSupply: "5000000000",
        protocolVersion: 2,
        minPowScore: 0,
        belowMaxDepth: 15,
        rentStructure: { vByteCost: 100, vByteFactorData: 1, vByteFactorKey: 10 },
        milestoneIntervalMs: 1000,
        allocations: [{ address: keys[2]!.address, amount: "5000000000" }],
        coordinator: { publicKeys: [keys[0]!.publicKey, keys[1]!.publicKey], threshold: 2 },
      }),
    );
    const init = cli(
      ...["init", "--network", join(dir, "net.json"), "--data-dir", join(dir, "coo")],
      ...["--coordinator-key", keys[0]!.keyFile, "--coordinator-key", keys[1]!.keyFile],
    );
    assert.equal(init.status, 0, init.stderr);
    const started = await startNode(join(dir, "coo"));
    coordinator = started.node;
    cooAddress = started.address;
    opened.push(coordinator);
    assert.equal(coordinator.isCoordinator, true);
    for (let i = 0; i < 5; i++) await coordinator.coordinator.issueMilestone();
  });

  after(async () => {
    for (const n of opened) await n.close().catch(() => {});
    await removeDir(dir);
  });

  it("starts a follower at the snapshot's milestone that then takes the network's milestones", async () => {
    const snap = await coordinator.snapshots.create({ index: 5, type: "full" });
    assert.ok("filePath" in snap);
    const configPath = networkConfigPath(join(dir, "coo"));
    // without the network's file the node would be a dev node: the snapshot is refused
    await assert.rejects(
      LedgerNode.open({
        ...defaultNodeOptions,
        dataDir: join(dir, "dev"),
        snapshot: snap.filePath,
        logLevel: "silent",
      }),
      /snap-net/,
    );
    const follower = (
      await startNode(join(dir, "follower"), {
        snapshot: snap.filePath,
        networkConfig: configPath,
        peers: [cooAddress],
      })
    ).node;
    opened.push(follower);
    assert.equal(follower.isCoordinator, false);
    assert.equal(follower.tangle.protocolParameters.networkName, "snap-net");
    assert.equal(follower.tangle.protocolParameters.bech32Hrp, "snap");
    assert.equal(follower.tangle.latestMilestone.index, 5);
    // the coordinator's next milestones reach it over the network and are confirmed
    for (let i = 0; i < 3; i++) {
      const ms = await coordinator.coordinator.issueMilestone();
      await until(
        () => follower.tangle.latestMilestone.index >= ms.index,
        15_000,
        `milestone ${ms.index} on the follower`,
      );
      assert.equal(toHex(follower.tangle.latestMilestone.milestoneId), toHex(ms.milestoneId));
    }
  });

  it("is refused by a follower of another network of the same name, before the data dir is touched", async () => {
    const snap = await coordinator.snapshots.create({ index: 5, type: "full" });
    assert.ok("filePath" in snap);
    // the same network name and parameters, another coordinator key
    const config = JSON.parse(await readFile(networkConfigPath(join(dir, "coo")), "utf8")) as Record<string, unknown>;
    const other = join(dir, "other-net.json");
    await writeFile(
      other,
      JSON.stringify({ ...config, coordinatorPublicKeys: [keys[2]!.publicKey], coordinatorThreshold: 1 }),
    );
    const dataDir = join(dir, "other-follower");
    await assert.rejects(
      LedgerNode.open({
        ...defaultNodeOptions,
        dataDir,
        snapshot: snap.filePath,
        networkConfig: other,
        logLevel: "silent",
      }),
      (e) => {
        assert.match(
          String(e),
          /milestone \d+ carries 0 signatures of the network's coordinator keys, it needs 1: the file is of another network; the data dir was not touched/,
        );
        return true;
      },
    );
    assert.equal(existsSync(dataDir), false);
  });
});
