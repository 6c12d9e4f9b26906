import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fromHex } from "../../../src/codec/hex.js";
import { DEV_KEY, devNetworkConfig } from "../../../src/node/devNetwork.js";
import { initDatabase } from "../../../src/node/initDatabase.js";
import { defaultKvStoreOptions, KvStore, StorageErrorCode } from "../../../src/storage/index.js";
import { removeDir, tempDir } from "../../helpers/node.js";

describe("initDatabase", () => {
  const dev = (minPowScore: number) => devNetworkConfig(minPowScore, fromHex(DEV_KEY.publicKey, "key", 32), 1000);

  it("writes the dev genesis once and refuses a database of another network", async () => {
    const dir = await tempDir("init");
    const store = await KvStore.open({ ...defaultKvStoreOptions, path: dir });
    try {
      const first = await initDatabase(store, dev(100));
      assert.equal(first.created, true);
      const second = await initDatabase(store, dev(250));
      assert.equal(second.created, false);
      assert.equal(second.protocolParameters.minPowScore, 250, "the PoW minimum is a node setting on dev");
      const other = dev(100);
      await assert.rejects(initDatabase(store, { ...other, protocol: { ...other.protocol, networkName: "other" } }), {
        code: StorageErrorCode.IncompatibleDatabase,
      });
    } finally {
      await store.close();
      await removeDir(dir);
    }
  });

  it("keeps a custom network's PoW minimum: only dev takes it from the node", async () => {
    const dir = await tempDir("init");
    const store = await KvStore.open({ ...defaultKvStoreOptions, path: dir });
    try {
      const d = dev(100);
      const custom = { ...d, genesis: { ...d.genesis, kind: "custom" as const } };
      await initDatabase(store, custom);
      const again = await initDatabase(store, { ...custom, protocol: { ...custom.protocol, minPowScore: 5 } });
      assert.equal(again.protocolParameters.minPowScore, 100);
    } finally {
      await store.close();
      await removeDir(dir);
    }
  });
});
