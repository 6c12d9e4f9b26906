import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import {
  NetworkErrorCode,
  networkConfigFromJson,
  networkConfigPath,
  networkConfigToJson,
  peersForFile,
  readNetworkConfig,
} from "../../../src/network/index.js";
import { LedgerNode } from "../../../src/node/node.js";
import { defaultNodeOptions } from "../../../src/node/options.js";
import { removeNode, startCoordinator, startFollower, type TestNode } from "../../helpers/network.js";
import { tempDir } from "../../helpers/node.js";

describe("the network config file and a node's role", () => {
  const nodes: TestNode[] = [];
  after(async () => {
    for (const n of nodes) await removeNode(n);
  });

  it("the coordinator writes it with its key, protocol, genesis and addresses; it reads back the same", async () => {
    const a = await startCoordinator({ minPowScore: 7 });
    nodes.push(a);
    const config = await readNetworkConfig(networkConfigPath(a.dir));
    assert.equal(config.networkName, "dev");
    assert.equal(config.protocol.minPowScore, 7);
    assert.deepEqual(config.coordinatorPublicKeys, [a.node.coordinatorPublicKey]);
    assert.deepEqual(config.peers, a.network.listenAddresses());
    assert.match(config.peers[0]!, new RegExp(`/p2p/${a.network.peerId}$`));
    assert.deepEqual(networkConfigFromJson(networkConfigToJson(config)), config);
  });

  it("a follower keeps a copy, holds no coordinator key, and restarts as a follower without the flag", async () => {
    const a = nodes[0]!;
    const b = await startFollower(a, [a.address]);
    nodes.push(b);
    assert.equal(b.node.isCoordinator, false);
    assert.deepEqual(b.node.secrets.coordinatorSeeds, []);
    assert.throws(() => b.node.coordinator, { code: "TANGLE_NOT_COORDINATOR" });
    assert.deepEqual(b.node.coordinatorPublicKeys, [a.node.coordinatorPublicKey]);
    assert.equal(b.node.tangle.protocolParameters.minPowScore, 7, "the network's PoW minimum");
    assert.deepEqual(
      JSON.parse(await readFile(networkConfigPath(b.dir), "utf8")),
      JSON.parse(await readFile(networkConfigPath(a.dir), "utf8")),
    );
    const peerId = b.network.peerId;
    await b.close();
    const again = await LedgerNode.open({ ...defaultNodeOptions, dataDir: b.dir, logLevel: "silent" });
    try {
      assert.equal(again.isCoordinator, false);
      const net = await again.startNetwork(undefined, { port: 0, listenHost: "127.0.0.1" });
      assert.equal(net.peerId, peerId, "the identity key is kept in the data dir");
    } finally {
      await again.close();
    }
  });

  it("lists at most 64 addresses a follower can dial, whatever the coordinator listens on", () => {
    const id = "12D3KooWFiwsTc4CLbk73vdbt71z88H17qnxMt3U8oU7Cr28kMsQ";
    const listening = [
      `/ip4/127.0.0.1/tcp/1/ws/p2p/${id}`,
      ...Array.from({ length: 70 }, (_, i) => `/ip4/10.0.${i}.1/tcp/15600/p2p/${id}`),
    ];
    const listed = peersForFile(listening);
    assert.equal(listed.length, 64);
    assert.equal(listed[0], `/ip4/10.0.0.1/tcp/15600/p2p/${id}`);
  });

  it("refuses a file that is not a usable network description", async () => {
    const good = networkConfigToJson(await readNetworkConfig(networkConfigPath(nodes[0]!.dir)));
    const variants: Record<string, unknown>[] = [
      { ...good, coordinatorPublicKeys: [] },
      { ...good, networkName: "other" },
      { ...good, genesis: { kind: "snapshot", outputs: [] } },
      { ...good, extra: 1 },
      { ...good, coordinatorPublicKeys: ["0x1234"] },
      // more static peers than a node keeps, and one it could never dial
      { ...good, peers: Array.from({ length: 65 }, (_, i) => `/ip4/127.0.0.1/tcp/${1000 + i}`) },
      { ...good, peers: ["garbage"] },
      { ...good, peers: ["/ip4/127.0.0.1/tcp/1/ws"] },
    ];
    for (const v of variants) {
      assert.throws(
        () => networkConfigFromJson(v),
        { code: NetworkErrorCode.InvalidNetworkConfig },
        JSON.stringify(v).slice(0, 80),
      );
    }
    // a follower refuses a genesis other than the dev genesis it would build
    const dir = await tempDir("bad-genesis");
    const path = join(dir, "other.json");
    const outputs = (good.genesis as { outputs: { output: { amount: string } }[] }).outputs;
    await writeFile(
      path,
      JSON.stringify({
        ...good,
        genesis: { kind: "dev", outputs: [{ ...outputs[0], output: { ...outputs[0]!.output, amount: "1" } }] },
      }),
    );
    await assert.rejects(
      LedgerNode.open({ ...defaultNodeOptions, dataDir: join(dir, "node"), networkConfig: path, logLevel: "silent" }),
      { code: NetworkErrorCode.InvalidNetworkConfig },
    );
    await assert.rejects(
      LedgerNode.open({ ...defaultNodeOptions, dataDir: join(dir, "node2"), networkConfig: join(dir, "missing.json") }),
      { code: NetworkErrorCode.InvalidNetworkConfig },
    );
  });
});
