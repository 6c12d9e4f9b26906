import assert from "node:assert/strict";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { WriteStream } from "../../../src/codec/writeStream.js";
import { isSnapshotError } from "../../../src/snapshot/errors.js";
import {
  CHECKSUM_SUFFIX,
  encodeFullHeader,
  encodeMilestoneDiff,
  FULL_HEADER,
  type ImportSnapshotOptions,
  importSnapshot,
  milestoneDiffFromStore,
  readImportState,
  readSnapshotHeader,
  SnapshotErrorCode,
  SnapshotFileWriter,
  SnapshotType,
  verifyFullSnapshot,
  writeSnapshotOutput,
} from "../../../src/snapshot/index.js";
import {
  Bucket,
  decodeMilestoneRecord,
  defaultKvStoreOptions,
  idKey,
  indexKey,
  KvStore,
} from "../../../src/storage/index.js";
import { openNode } from "../../helpers/node.js";
import { Rng } from "../../helpers/random.js";
import { assertSameLedger, History, readLedgerState } from "../../helpers/snapshotHistory.js";

/**
 * Importing snapshot files: damaged files (truncated at any offset, bytes flipped, another
 * network, another version or type, a delta on the wrong full snapshot) are refused with a
 * SnapshotError and leave the database empty; a crash half-way is detected at the next start;
 * a file that rolls the ledger back (Hornet's way of writing an older index) imports to the same
 * state as one written at that index.
 */

const code = (c: SnapshotErrorCode) => (e: unknown) => isSnapshotError(e) && e.code === c;

describe("importing snapshot files", () => {
  let h: History;
  let full: string;
  let delta: string;
  const FULL = 5;
  const DELTA = 8;
  let storeCount = 0;

  /** A fresh empty store; closed by the caller. */
  const freshStore = async () => KvStore.open({ ...defaultKvStoreOptions, path: join(h.dir, `store-${storeCount++}`) });

  const keysOf = async (store: KvStore) => {
    let n = 0;
    for await (const _ of store.scanKeys({ prefix: new Uint8Array(0) })) n++;
    return n;
  };

  /** Imports and expects a SnapshotError (returned) with the store left empty. */
  const refused = async (
    files: { fullPath: string; deltaPath?: string; verified?: ImportSnapshotOptions["verified"] },
    network = "dev",
  ) => {
    const store = await freshStore();
    try {
      const e = await importSnapshot(store, { ...files, expectedNetworkName: network }).then(
        () => undefined,
        (err: unknown) => err,
      );
      assert.ok(isSnapshotError(e), `expected a SnapshotError, got ${e}`);
      assert.equal(await keysOf(store), 0, "the database is left empty");
      return e;
    } finally {
      await store.close();
    }
  };

  before(async () => {
    h = await History.create("import", DELTA + 1, 3);
    const m = h.snapshots();
    full = (await m.createFull(FULL)).filePath;
    delta = (await m.createDelta(DELTA)).deltaFilePath;
  });
  after(async () => {
    await h.dispose();
  });

  it("refuses a file truncated at any offset (Truncated), for full and delta files", async () => {
    const rng = new Rng(35);
    for (const [name, path] of [
      ["full", full],
      ["delta", delta],
    ] as const) {
      const bytes = await readFile(path);
      const offsets = new Set([0, 1, 2, 10, 60, 91, 92, 100, bytes.length - 32, bytes.length - 1]);
      while (offsets.size < 40) offsets.add(rng.int(0, bytes.length - 1));
      for (const at of offsets) {
        const cut = join(h.dir, `cut-${name}-${at}.bin`);
        await writeFile(cut, bytes.subarray(0, at));
        const files = name === "full" ? { fullPath: cut } : { fullPath: full, deltaPath: cut };
        const e = await refused(files);
        assert.equal(e.code, SnapshotErrorCode.Truncated, `${name} cut at ${at}: ${e.code} ${e.message}`);
        await rm(cut);
      }
    }
  });

  it("refuses a file with a flipped byte anywhere when its checksum file is beside it", async () => {
    const rng = new Rng(36);
    const bytes = await readFile(full);
    const checksum = await readFile(full + CHECKSUM_SUFFIX);
    for (let i = 0; i < 40; i++) {
      const at = i < 8 ? i * 13 : rng.int(0, bytes.length - 1);
      const flipped = Buffer.from(bytes);
      flipped[at]! ^= 1 << rng.int(0, 7);
      const path = join(h.dir, `flip-${at}.bin`);
      await writeFile(path, flipped);
      await writeFile(path + CHECKSUM_SUFFIX, checksum);
      await refused({ fullPath: path });
      await rm(path);
      await rm(path + CHECKSUM_SUFFIX);
    }
  });

  it("without a checksum file, refuses flips in every checked header field, never fails uncleanly", async () => {
    const bytes = await readFile(full);
    const optionLength = bytes.readUInt16LE(FULL_HEADER.protocolParamsOptionLength);
    const counts = FULL_HEADER.protocolParamsOption + optionLength;
    // fields the content pins down: version, type, genesis, target index, timestamp and ID,
    // ledger index, treasury amount, the option's length, type and target index, the counts
    const checked = [
      0,
      1,
      2,
      5,
      6,
      9,
      10,
      13,
      14,
      30,
      45,
      46,
      49,
      82,
      89,
      90,
      91,
      92,
      93,
      96,
      counts,
      counts + 7,
      counts + 8,
      counts + 11,
      counts + 12,
      counts + 13,
    ];
    const rng = new Rng(37);
    const anywhere = Array.from({ length: 40 }, () => rng.int(0, bytes.length - 1));
    for (const at of [...checked, ...anywhere]) {
      const flipped = Buffer.from(bytes);
      flipped[at]! ^= 0x10;
      const path = join(h.dir, `flip-bare-${at}.bin`);
      await writeFile(path, flipped);
      const store = await freshStore();
      try {
        await importSnapshot(store, { fullPath: path, expectedNetworkName: "dev" });
        // accepted: the flip hit a byte no rule covers (an address, a block ID, the treasury's
        // milestone ID); the ledger still adds up
        assert.ok(!checked.includes(at), `a flip at header offset ${at} was accepted`);
        assert.equal((await readLedgerState(store)).total, h.states.get(FULL)!.total);
      } catch (e) {
        assert.ok(isSnapshotError(e), `flip at ${at}: ${e}`);
        assert.equal(await keysOf(store), 0);
      } finally {
        await store.close();
        await rm(path);
      }
    }
  });

  it("refuses a snapshot of another network (WrongNetwork)", async () => {
    assert.equal((await refused({ fullPath: full }, "mainnet")).code, SnapshotErrorCode.WrongNetwork);
    // the same file with its network name changed in place: "dev" becomes "xyz"
    const bytes = Buffer.from(await readFile(full));
    const at = bytes.indexOf(Buffer.from("\x03dev"), FULL_HEADER.protocolParamsOption);
    bytes.write("\x03xyz", at, "latin1");
    const forged = join(h.dir, "forged.bin");
    await writeFile(forged, bytes);
    assert.equal((await refused({ fullPath: forged })).code, SnapshotErrorCode.WrongNetwork);
  });

  it("refuses another format version, the wrong type, and a delta on another full snapshot", async () => {
    const bytes = Buffer.from(await readFile(full));
    bytes[0] = 1;
    const v1 = join(h.dir, "v1.bin");
    await writeFile(v1, bytes);
    assert.equal((await refused({ fullPath: v1 })).code, SnapshotErrorCode.UnsupportedVersion);
    assert.equal((await refused({ fullPath: delta })).code, SnapshotErrorCode.WrongType);
    assert.equal((await refused({ fullPath: full, deltaPath: full })).code, SnapshotErrorCode.WrongType);
    const other = h.snapshots(join(h.dir, "other"));
    const laterFull = (await other.createFull(FULL + 1)).filePath;
    assert.equal((await refused({ fullPath: laterFull, deltaPath: delta })).code, SnapshotErrorCode.NotMergeable);
  });

  it("refuses a database that is not empty (DatabaseNotEmpty)", async () => {
    const store = await freshStore();
    try {
      await store.put(Uint8Array.of(0x0f, 1), Uint8Array.of(1));
      await assert.rejects(
        importSnapshot(store, { fullPath: full, expectedNetworkName: "dev" }),
        code(SnapshotErrorCode.DatabaseNotEmpty),
      );
    } finally {
      await store.close();
    }
  });

  it("detects an import cut short by a crash: the next import and the node refuse the directory", async () => {
    const dataDir = join(h.dir, "crashed");
    const path = join(dataDir, "db");
    const store = await KvStore.open({ ...defaultKvStoreOptions, path });
    let closed = false;
    await assert.rejects(
      importSnapshot(store, {
        fullPath: full,
        deltaPath: delta,
        expectedNetworkName: "dev",
        batchSize: 4,
        // the process "dies" during the writes: the database goes away under the importer
        onProgress: async (p) => {
          if (p.phase === "import" && !closed) {
            closed = true;
            await store.close();
          }
        },
      }),
    );
    const reopened = await KvStore.open({ ...defaultKvStoreOptions, path });
    try {
      assert.equal(await readImportState(reopened), "inProgress");
      await assert.rejects(
        importSnapshot(reopened, { fullPath: full, expectedNetworkName: "dev" }),
        code(SnapshotErrorCode.IncompleteImport),
      );
    } finally {
      await reopened.close();
    }
    // the node checks for an unfinished import before anything else and says so
    await assert.rejects(openNode(dataDir), code(SnapshotErrorCode.IncompleteImport));
  });

  it("imports in small batches to the ledger of the target, marked complete", async () => {
    const store = await freshStore();
    try {
      const r = await importSnapshot(store, {
        fullPath: full,
        deltaPath: delta,
        expectedNetworkName: "dev",
        batchSize: 3,
      });
      assert.equal(r.ledgerIndex, DELTA);
      assert.equal(r.pruningIndex, FULL);
      assert.equal(await readImportState(store), "complete");
      assertSameLedger(await readLedgerState(store), h.states.get(DELTA)!, "full + delta");
    } finally {
      await store.close();
    }
  });

  it("imports files checked beforehand, and refuses them when they changed since the check", async () => {
    const checked = { full: await verifyFullSnapshot(full, "dev") };
    const store = await freshStore();
    try {
      const r = await importSnapshot(store, { fullPath: full, expectedNetworkName: "dev", verified: checked });
      assert.equal(r.ledgerIndex, FULL);
      assertSameLedger(await readLedgerState(store), h.states.get(FULL)!, "checked beforehand");
    } finally {
      await store.close();
    }
    const copy = join(h.dir, "changing.bin");
    const bytes = Buffer.from(await readFile(full));
    await writeFile(copy, bytes);
    const before = { full: await verifyFullSnapshot(copy, "dev") };
    bytes[bytes.length - 1]! ^= 1; // another entry point
    await writeFile(copy, bytes);
    const e = await refused({ fullPath: copy, verified: before });
    assert.equal(e.code, SnapshotErrorCode.Corrupted);
    assert.match(e.message, /changed/);
  });

  it("imports a file from another writer: newest first diffs only, no payload of the target", async () => {
    // the ledger at DELTA and the diffs DELTA..FULL+1, as a writer that keeps no extra diff writes it
    const store = h.node.store;
    const header = await readSnapshotHeader(full);
    assert.equal(header.type, SnapshotType.Full);
    if (header.type !== SnapshotType.Full) return;
    const outputs = h.states.get(DELTA)!.outputs;
    const diffs = [];
    for (let m = DELTA; m > FULL; m--) diffs.push((await milestoneDiffFromStore(store, m))!);
    const path = join(h.dir, "foreign.bin");
    const w = await SnapshotFileWriter.create(path);
    await w.write(
      encodeFullHeader({
        ...header,
        ledgerMilestoneIndex: DELTA,
        outputCount: outputs.size,
        milestoneDiffCount: diffs.length,
        sepCount: 1,
      }),
    );
    for (const [id, rec] of outputs) {
      const s = new WriteStream(256);
      writeSnapshotOutput(s, {
        outputId: Uint8Array.from(Buffer.from(id.slice(2), "hex")),
        blockId: rec.subarray(0, 32),
        bookedIndex: Buffer.from(rec).readUInt32LE(32),
        bookedTimestamp: Buffer.from(rec).readUInt32LE(36),
        outputBytes: rec.subarray(40),
      });
      await w.write(s.finish());
    }
    for (const d of diffs) await w.write(encodeMilestoneDiff(d));
    const fileBytes = await readFile(full);
    const sep = fileBytes.subarray(
      fileBytes.length - 32 * header.sepCount,
      fileBytes.length - 32 * header.sepCount + 32,
    );
    await w.write(sep);
    await w.commit();

    const dataDir = join(h.dir, "foreign-node");
    const target = await KvStore.open({ ...defaultKvStoreOptions, path: join(dataDir, "db") });
    try {
      const r = await importSnapshot(target, { fullPath: path, expectedNetworkName: "dev" });
      assert.equal(r.ledgerIndex, FULL);
      assertSameLedger(await readLedgerState(target), h.states.get(FULL)!, "rolled back to the target");
      // without the target's payload, the milestone's block is taken to be the first entry point
      const rec = decodeMilestoneRecord((await target.get(indexKey(Bucket.MilestoneByIndex, FULL)))!);
      assert.deepEqual(rec.blockId, new Uint8Array(sep));
      assert.equal(await target.has(idKey(Bucket.Block, rec.blockId)), false);
    } finally {
      await target.close();
    }
    const node = await openNode(dataDir);
    try {
      assert.equal((await node.coordinator.issueMilestone()).index, FULL + 1);
    } finally {
      await node.close();
    }
  });

  it("starts from --snapshot into an empty data dir only: a database resumes without reading the files", async () => {
    /** Opens a node on `dataDir` with `--snapshot file`: at the full snapshot's milestone, imported or resumed. */
    const opens = async (dataDir: string, file: string, imported: boolean) => {
      const node = await openNode(dataDir, { snapshot: file });
      try {
        assert.equal(node.importedSnapshot, imported);
        assert.equal(node.tangle.latestMilestone.index, FULL);
      } finally {
        await node.close();
      }
    };
    const dataDir = join(h.dir, "resuming");
    await opens(dataDir, full, true);
    // the flags still name the file, now gone: the node resumes its database, unread
    const gone = join(h.dir, "removed-since.bin");
    await opens(dataDir, gone, false);
    // a database left empty (an import that failed cleared it) takes the snapshot after all,
    // checked first as into a fresh directory
    const emptied = join(h.dir, "emptied");
    await (await KvStore.open({ ...defaultKvStoreOptions, path: join(emptied, "db") })).close();
    await assert.rejects(openNode(emptied, { snapshot: gone }), /removed-since\.bin/);
    await opens(emptied, full, true);
  });
});
