import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseArgs } from "../../../src/cli/flags.js";
import { isUsageError } from "../../../src/cli/usageError.js";

const A = "/ip4/127.0.0.1/tcp/15600/p2p/12D3KooWFiwsTc4CLbk73vdbt71z88H17qnxMt3U8oU7Cr28kMsQ";
const B = "/ip4/10.0.0.2/tcp/15601";

describe("P2P flags", () => {
  it("--peer repeats and adds up; the P2P settings come from flags or the environment", () => {
    const { options } = parseArgs(
      ["--peer", A, `--peer=${B}`, "--p2p-port", "15700", "--network-config", "a/network.json"],
      {},
    );
    assert.deepEqual(options.peers, [A, B]);
    assert.equal(options.p2pPort, 15700);
    assert.equal(options.p2pHost, "0.0.0.0");
    assert.equal(options.networkConfig, "a/network.json");
    const fromEnv = parseArgs([], { LEDGER_NODE_PEER: `${A},${B}`, LEDGER_NODE_P2P_HOST: "127.0.0.1" }).options;
    assert.deepEqual(fromEnv.peers, [A, B]);
    assert.equal(fromEnv.p2pHost, "127.0.0.1");
    assert.equal(parseArgs([], {}).options.p2pPort, 15600);
  });

  it("refuses a peer address that cannot be dialled before anything starts", () => {
    for (const bad of ["127.0.0.1:15600", "/ip4/1.2.3/tcp/1", "/ip4/127.0.0.1/udp/1"]) {
      assert.throws(
        () => parseArgs(["--peer", bad], {}),
        (e) => isUsageError(e),
        bad,
      );
    }
    const many = Array.from({ length: 65 }, (_, i) => `/ip4/127.0.0.1/tcp/${1000 + i}`).join(",");
    assert.throws(
      () => parseArgs(["--peer", many], {}),
      (e) => isUsageError(e) && /--peer names 65 peers; the node keeps at most 64/.test((e as Error).message),
    );
  });
});
