import assert from "node:assert/strict";
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { describe, it } from "node:test";
import type { Multiaddr } from "@multiformats/multiaddr";
import { NetworkErrorCode } from "../../../src/network/index.js";
import { Peering, type PeeringHost } from "../../../src/network/peering.js";
import {
  checkPeeringEntry,
  MAX_STATIC_PEERS,
  peeringFilePath,
  readPeeringFile,
  writePeeringFile,
} from "../../../src/network/peeringFile.js";
import { removeDir, tempDir } from "../../helpers/node.js";

const PEER = "12D3KooWFiwsTc4CLbk73vdbt71z88H17qnxMt3U8oU7Cr28kMsQ";
const OTHER = "12D3KooWFbt7xDRvTEmt1Cg1PwjzBSgNYunWcowTNvfeKiQ1f7MQ";
const address = (peer: string, port = 1) => `/ip4/127.0.0.1/tcp/${port}/p2p/${peer}`;

async function withDir(run: (dir: string) => Promise<void>): Promise<void> {
  const dir = await tempDir("peering");
  try {
    await run(dir);
  } finally {
    await removeDir(dir);
  }
}

describe("peering.json: the static peers added at runtime", () => {
  it("is empty when absent, and reads back what was written, without leftovers", async () => {
    await withDir(async (dir) => {
      assert.deepEqual(await readPeeringFile(dir), []);
      const entries = [{ multiAddress: address(PEER), alias: "a" }, { multiAddress: address(OTHER, 2) }];
      await writePeeringFile(dir, entries);
      assert.deepEqual(await readPeeringFile(dir), entries);
      await writePeeringFile(dir, entries.slice(1));
      assert.deepEqual(await readPeeringFile(dir), entries.slice(1));
      assert.deepEqual(await readdir(dirname(peeringFilePath(dir))), ["peering.json"]);
    });
  });

  it("refuses a damaged file with its path and the reason", async () => {
    await withDir(async (dir) => {
      const path = peeringFilePath(dir);
      await mkdir(dirname(path), { recursive: true });
      const cases: [string, RegExp][] = [
        ["{not json", /not JSON/],
        ['{"peers": {}}', /expected \{"peers": \[\.\.\.\]\}/],
        ['{"peers": [{"multiAddress": "/ip4/127.0.0.1/tcp/1"}]}', /must name the peer once/],
        [`{"peers": [{"multiAddress": "${address(PEER)}", "x": 1}]}`, /peers\[0\]\.x: unknown/],
        [
          JSON.stringify({
            peers: Array.from({ length: MAX_STATIC_PEERS + 1 }, () => ({ multiAddress: address(PEER) })),
          }),
          /more than 64 peers/,
        ],
      ];
      for (const [text, reason] of cases) {
        await writeFile(path, text);
        await assert.rejects(readPeeringFile(dir), (e: Error & { code?: string }) => {
          assert.equal(e.code, NetworkErrorCode.InvalidPeeringFile);
          assert.ok(e.message.startsWith(path), e.message);
          assert.match(e.message, reason);
          return true;
        });
      }
      // an address an earlier version stored and never dialled (a WebSocket, port 0) is left out
      await writeFile(
        path,
        JSON.stringify({
          peers: [
            { multiAddress: `/ip4/127.0.0.1/tcp/1/ws/p2p/${OTHER}` },
            { multiAddress: `/ip4/127.0.0.1/tcp/0/p2p/${OTHER}` },
            { multiAddress: address(PEER) },
          ],
        }),
      );
      assert.deepEqual(await readPeeringFile(dir), [{ multiAddress: address(PEER) }]);
    });
  });

  it("checks an entry as the API does: one /p2p/<peer id>, a TCP address, a short alias", () => {
    assert.deepEqual(checkPeeringEntry({ multiAddress: address(PEER), alias: "a" }, "body"), {
      multiAddress: address(PEER),
      peerId: PEER,
      alias: "a",
    });
    for (const bad of [
      { multiAddress: "/ip4/127.0.0.1/tcp/1" },
      { multiAddress: `${address(PEER)}/p2p/${OTHER}` },
      { multiAddress: "/ip4/127.0.0.1/tcp/1/p2p/abc" },
      { multiAddress: `/ip4/127.0.0.1/udp/1/p2p/${PEER}` },
      { multiAddress: address(PEER), alias: "x".repeat(129) },
      { multiAddress: 5 },
      null,
    ]) {
      assert.throws(
        () => checkPeeringEntry(bad, "body"),
        { code: NetworkErrorCode.InvalidPeerAddress },
        JSON.stringify(bad),
      );
    }
  });
});

describe("static peers added and removed at runtime", () => {
  it("dials an added peer at once, never redials a removed one, and hangs up a dial that ends after the removal", async () => {
    const dials: string[] = [];
    const hungUp: string[] = [];
    let answer: (() => void) | undefined;
    const host: PeeringHost = {
      async dial(a: Multiaddr) {
        const id = a.getComponents().find((c) => c.name === "p2p")!.value!;
        dials.push(id);
        if (id === OTHER) await new Promise<void>((r) => (answer = r));
        else throw new Error("connection refused");
        return id;
      },
      isConnected: () => false,
      hangUp: (peer) => hungUp.push(peer),
    };
    const peering = new Peering([], host, { reconnectMinMs: 10, reconnectMaxMs: 20 });
    peering.start();
    try {
      await peering.add(address(PEER), PEER, { runtime: true, alias: "p" });
      assert.deepEqual(dials, [PEER]);
      assert.equal(peering.isStatic(PEER), true);
      assert.equal(peering.aliasOf(PEER), "p");
      assert.equal(peering.size, 1);
      assert.deepEqual(peering.runtimeEntries(), [{ multiAddress: address(PEER), alias: "p" }]);
      // redialled with backoff while static
      await new Promise((r) => setTimeout(r, 60));
      assert.ok(dials.length >= 2, `${dials.length} dials`);
      assert.equal(peering.remove(PEER), true);
      const after = dials.length;
      await new Promise((r) => setTimeout(r, 80));
      assert.equal(dials.length, after, "no redial after the removal");
      assert.equal(peering.isStatic(PEER), false);
      assert.equal(peering.remove(PEER), false);

      // a dial under way when the peer is removed: its connection is closed at once
      const dialled = peering.add(address(OTHER), OTHER, { runtime: true });
      assert.equal(peering.remove(OTHER), true);
      answer!();
      await dialled;
      assert.deepEqual(hungUp, [OTHER]);
      assert.deepEqual(peering.runtimeEntries(), []);
    } finally {
      peering.stop();
    }
  });
});
