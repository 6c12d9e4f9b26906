import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { devProtocolParameters } from "../../../src/node/devNetwork.js";
import { initDatabase } from "../../../src/node/initDatabase.js";
import { defaultKvStoreOptions, KvStore, StorageErrorCode } from "../../../src/storage/index.js";

describe("initDatabase", () => {
  it("writes the dev genesis once, keeps its secrets, and refuses a database of another network", async () => {
    const dir = await mkdtemp(join(tmpdir(), "ledger-node-init-"));
    const store = await KvStore.open({ ...defaultKvStoreOptions, path: dir });
    try {
      const first = await initDatabase(store, devProtocolParameters(100));
      assert.equal(first.created, true);
      const second = await initDatabase(store, devProtocolParameters(250));
      assert.equal(second.created, false);
      assert.deepEqual(second.secrets, first.secrets);
      assert.equal(second.protocolParameters.minPowScore, 250, "the PoW minimum is a node setting");
      await assert.rejects(initDatabase(store, { ...devProtocolParameters(100), networkName: "other" }), {
        code: StorageErrorCode.IncompatibleDatabase,
      });
    } finally {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("refuses to write the dev genesis for a network other than dev", async () => {
    const dir = await mkdtemp(join(tmpdir(), "ledger-node-init-"));
    const store = await KvStore.open({ ...defaultKvStoreOptions, path: dir });
    try {
      await assert.rejects(initDatabase(store, { ...devProtocolParameters(100), networkName: "mainnet" }), {
        code: StorageErrorCode.IncompatibleDatabase,
      });
    } finally {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
