import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Json } from "../helpers/iota.js";
import { waitForMilestone } from "../helpers/milestones.js";
import { removeDir, tempDir } from "../helpers/node.js";
import { NodeProcess } from "../helpers/nodeProcess.js";
import { waitFor } from "../helpers/waitFor.js";

/**
 * A network of one's own, end to end through the CLI and two node processes: key files from
 * `keygen`, a network file with three allocations and a 2-of-3 coordinator, bad files refused
 * before anything is written, `init` of the coordinator's data dir with two of the three keys,
 * and a follower that joins from the `network.json` the coordinator wrote. Both agree on every
 * milestone and on the genesis ledger.
 */

const cli = (...args: string[]) => spawnSync(process.execPath, ["dist/src/cli/main.js", ...args], { encoding: "utf8" });

interface Key {
  keyFile: string;
  publicKey: string;
  address: string;
}

describe("a custom network: init, a 2-of-3 coordinator, a follower", () => {
  let dir: string;
  const keys: Key[] = [];
  let file: Json;
  let coordinator: NodeProcess;
  let follower: NodeProcess;
  const SUPPLY = 1_000_000_000_000n;
  const amounts = [500_000_000_000n, 300_000_000_000n, 200_000_000_000n];

  before(async () => {
    dir = await tempDir("custom");
    for (let i = 0; i < 7; i++) {
      const r = cli("keygen", "--out", join(dir, `key-${i}.key`), "--hrp", "myn");
      assert.equal(r.status, 0, r.stderr);
      keys.push(JSON.parse(r.stdout.trim()) as Key);
    }
    // keys 0-2: the coordinator's; 3-5: the holders of the three allocations, 3 the faucet's; 6: a fresh wallet
    file = {
      networkName: "e2e-net",
      bech32Hrp: "myn",
      tokenSupply: SUPPLY.toString(),
      protocolVersion: 2,
      minPowScore: 10,
      belowMaxDepth: 15,
      rentStructure: { vByteCost: 100, vByteFactorData: 1, vByteFactorKey: 10 },
      milestoneIntervalMs: 250,
      allocations: [3, 4, 5].map((k, i) => ({ address: keys[k]!.address, amount: amounts[i]!.toString() })),
      coordinator: { publicKeys: keys.slice(0, 3).map((k) => k.publicKey), threshold: 2 },
      faucet: { keyFile: "key-3.key" },
    };
    coordinator = await NodeProcess.create("coordinator");
  });

  after(async () => {
    await coordinator?.dispose();
    await follower?.dispose();
    await removeDir(dir);
  });

  it("refuses bad network files before anything is written, naming the field", async () => {
    const bad: [string, (f: Json) => Json][] = [
      ["bech32Hrp", (f) => ({ ...f, bech32Hrp: "My Net" })],
      [
        "allocations[1].address",
        (f) => ({
          ...f,
          allocations: f.allocations.map((a: Json, i: number) =>
            i === 1 ? { ...a, address: keys[4]!.address.replace("myn", "tst") } : a,
          ),
        }),
      ],
      ["allocations", (f) => ({ ...f, tokenSupply: (SUPPLY + 1n).toString() })],
      [
        "allocations[2].address",
        (f) => ({
          ...f,
          allocations: f.allocations.map((a: Json, i: number) => (i === 2 ? { ...a, address: "myn1notanaddress" } : a)),
        }),
      ],
      [
        "coordinator.publicKeys[2]",
        (f) => ({
          ...f,
          coordinator: { ...f.coordinator, publicKeys: [keys[0]!.publicKey, keys[1]!.publicKey, keys[0]!.publicKey] },
        }),
      ],
      ["coordinator.threshold", (f) => ({ ...f, coordinator: { ...f.coordinator, threshold: 4 } })],
    ];
    for (const [field, edit] of bad) {
      const path = join(dir, "bad.json");
      await writeFile(path, JSON.stringify(edit(file)));
      const target = join(dir, "bad-data");
      const r = cli("init", "--network", path, "--data-dir", target);
      assert.equal(r.status, 1, `${field}: ${r.stdout}${r.stderr}`);
      assert.ok(r.stderr.includes(`${field}:`), `the message names ${field}: ${r.stderr}`);
      assert.deepEqual(await readdir(target).catch(() => []), [], `${field}: nothing written`);
    }
  });

  it("creates the network with two of the coordinator's three keys, and its node signs 2 of 3", async () => {
    const path = join(dir, "network.json");
    await writeFile(path, JSON.stringify(file, null, 2));
    const refused = cli(
      "init",
      "--network",
      path,
      "--data-dir",
      coordinator.dataDir,
      "--coordinator-key",
      keys[3]!.keyFile,
    );
    assert.equal(refused.status, 1, "a key the network does not list");
    const r = cli(
      "init",
      ...["--network", path, "--data-dir", coordinator.dataDir],
      ...["--coordinator-key", keys[0]!.keyFile, "--coordinator-key", keys[2]!.keyFile],
    );
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /network "e2e-net" created/);
    coordinator.start();
    const info = await waitForMilestone(coordinator, 2, 30_000, "the coordinator's milestones");
    assert.equal(info.protocol.networkName, "e2e-net");
    assert.equal(info.protocol.bech32Hrp, "myn");
    assert.equal(info.protocol.tokenSupply, SUPPLY.toString());
    const ms = await coordinator.json("/api/core/v2/milestones/by-index/1");
    const signers = (ms.signatures as Json[]).map((s) => s.publicKey).sort();
    assert.deepEqual(signers, [keys[0]!.publicKey, keys[2]!.publicKey].sort(), "signed by the two keys it holds");
  });

  it("a follower joins from the coordinator's network.json; both agree after 20 milestones", async () => {
    const configPath = join(coordinator.dataDir, "network.json");
    const config = JSON.parse(await readFile(configPath, "utf8")) as Json;
    assert.equal(config.coordinatorThreshold, 2);
    assert.equal(config.genesis.kind, "custom");
    follower = await NodeProcess.follower("follower", coordinator, [await coordinator.address()]);
    follower.start();
    await waitForMilestone(follower, 20, 60_000, "the follower at milestone 20");
    for (let index = 1; index <= 20; index++) {
      const [a, b] = await Promise.all(
        [coordinator, follower].map((n) => n.json(`/api/core/v2/milestones/by-index/${index}`)),
      );
      assert.deepEqual(b, a, `milestone ${index}`);
    }
    const fInfo = await follower.info();
    assert.equal(fInfo.protocol.networkName, "e2e-net");
    // the genesis ledger: each allocation's address holds its amount on both nodes
    for (const [i, k] of [3, 4, 5].entries()) {
      for (const n of [coordinator, follower]) {
        const found = await n.json(`/api/indexer/v1/outputs/basic?address=${keys[k]!.address}`);
        assert.equal(found.items.length, 1, `${n.name}: allocation ${i}`);
        const out = await n.json(`/api/core/v2/outputs/${found.items[0]}`);
        assert.equal(out.output.amount, amounts[i]!.toString());
      }
    }
    // the network's faucet runs on the coordinator, from the key the file names
    const faucet = await coordinator.json("/api/faucet/v1/info");
    assert.equal(faucet.address, keys[3]!.address);
    assert.equal(faucet.bech32Hrp, "myn");
    assert.equal(BigInt(faucet.balance), amounts[0]);
    const enqueued = await fetch(`${coordinator.url}/api/faucet/v1/enqueue`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ address: keys[6]!.address }),
    });
    assert.equal(enqueued.status, 202, await enqueued.text());
    await waitFor(
      async () => {
        const found = await follower.json(`/api/indexer/v1/outputs/basic?address=${keys[6]!.address}`);
        return found.items.length > 0 ? true : undefined;
      },
      30_000,
      "the faucet's payment on the follower",
    );
    // the follower holds no coordinator key
    assert.deepEqual(
      (await readdir(join(follower.dataDir, "keys"))).filter((f) => f.startsWith("coordinator")),
      [],
    );
  });
});
