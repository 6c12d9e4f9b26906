import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { parseArgs } from "../../../src/cli/flags.js";
import { isUsageError } from "../../../src/cli/usageError.js";
import { fromHex } from "../../../src/codec/hex.js";
import { DEV_KEY } from "../../../src/node/devNetwork.js";
import { isNodeError, NodeErrorCode } from "../../../src/node/errors.js";
import { faucetOptionsOf } from "../../../src/node/faucetOptions.js";
import { LedgerNode } from "../../../src/node/node.js";
import { defaultNodeOptions } from "../../../src/node/options.js";
import { removeDir, tempDir } from "../../helpers/node.js";

/** Where the faucet's key comes from, and the flags that set it. */

describe("faucet options of a node", () => {
  let dir: string;
  const devCoordinator = { networkName: "dev", runsCoordinator: true };
  before(async () => {
    dir = await tempDir("faucet");
  });
  after(async () => {
    await removeDir(dir);
  });

  it("the dev coordinator pays from the dev key; a follower or another network has no faucet without a key", async () => {
    const o = await faucetOptionsOf(defaultNodeOptions, devCoordinator);
    assert.deepEqual(o?.seed, fromHex(DEV_KEY.seed, "seed", 32));
    assert.equal(o?.amount, 1_000_000_000n);
    assert.equal(await faucetOptionsOf(defaultNodeOptions, { networkName: "dev", runsCoordinator: false }), undefined);
    assert.equal(await faucetOptionsOf(defaultNodeOptions, { networkName: "mine", runsCoordinator: true }), undefined);
    assert.equal(await faucetOptionsOf({ ...defaultNodeOptions, faucet: false }, devCoordinator), undefined);
  });

  it("a key file wins over the data directory's key, which wins over the dev key", async () => {
    const path = join(dir, "faucet.hex");
    await writeFile(path, `  0x${"ab".repeat(32)}\n`);
    const stored = new Uint8Array(32).fill(9);
    const fromFile = await faucetOptionsOf(
      { ...defaultNodeOptions, faucetKeyFile: path },
      { ...devCoordinator, storedSeed: stored },
    );
    assert.deepEqual(fromFile?.seed, new Uint8Array(32).fill(0xab));
    const fromStore = await faucetOptionsOf(defaultNodeOptions, {
      networkName: "mine",
      runsCoordinator: false,
      storedSeed: stored,
    });
    assert.deepEqual(fromStore?.seed, stored);
  });

  it("refuses a key file that is not 32 bytes of hex, without echoing its content", async () => {
    const path = join(dir, "bad.hex");
    await writeFile(path, "secret-words that are not hex");
    await assert.rejects(faucetOptionsOf({ ...defaultNodeOptions, faucetKeyFile: path }, devCoordinator), (e) => {
      assert.ok(isNodeError(e, NodeErrorCode.InvalidKeyFile));
      assert.doesNotMatch((e as Error).message, /secret/);
      return true;
    });
    await assert.rejects(
      faucetOptionsOf({ ...defaultNodeOptions, faucetKeyFile: join(dir, "missing") }, devCoordinator),
      (e) => isNodeError(e, NodeErrorCode.InvalidKeyFile),
    );
    // a node given such a file (the faucet's or the spammer's) refuses it before its data dir exists
    for (const key of ["faucetKeyFile", "spammerKeyFile"] as const) {
      const dataDir = join(dir, `node-${key}`);
      await assert.rejects(LedgerNode.open({ ...defaultNodeOptions, dataDir, [key]: path, logLevel: "silent" }), (e) =>
        isNodeError(e, NodeErrorCode.InvalidKeyFile),
      );
      assert.equal(existsSync(dataDir), false, key);
    }
  });

  it("flags: --faucet takes true or false, the limits are integers", () => {
    const { options } = parseArgs(
      ["--faucet", "false", "--faucet-amount", "5000000", "--faucet-batch-size", "10", "--faucet-client-requests", "3"],
      {},
    );
    assert.equal(options.faucet, false);
    assert.equal(options.faucetAmount, 5_000_000);
    assert.equal(options.faucetBatchSize, 10);
    assert.equal(options.faucetClientRequests, 3);
    assert.equal(parseArgs([], { LEDGER_NODE_FAUCET: "false" }).options.faucet, false);
    assert.throws(() => parseArgs(["--faucet", "no"], {}), isUsageError);
    assert.throws(() => parseArgs(["--faucet-amount", "-1"], {}), isUsageError);
  });
});
