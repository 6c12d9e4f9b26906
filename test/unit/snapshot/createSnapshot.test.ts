import assert from "node:assert/strict";
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { isSnapshotError } from "../../../src/snapshot/errors.js";
import {
  outputRecordOf,
  readSnapshot,
  SnapshotErrorCode,
  SnapshotFileWriter,
  SnapshotManager,
  SnapshotType,
  verifyFullSnapshot,
} from "../../../src/snapshot/index.js";
import { Bucket, idKey } from "../../../src/storage/index.js";
import { assertSameLedger, History, type LedgerState, ledgerEntry } from "../../helpers/snapshotHistory.js";

/** The ledger at the target of a full snapshot file: its outputs rolled back by its diffs. */
async function ledgerInFile(path: string): Promise<LedgerState> {
  const outputs = new Map<string, Uint8Array>();
  const hex = (id: Uint8Array) => `0x${Buffer.from(id).toString("hex")}`;
  let target = 0;
  await readSnapshot(path, {
    header(h) {
      if (h.type === SnapshotType.Full) target = h.targetMilestoneIndex;
    },
    output(o) {
      outputs.set(hex(o.outputId), ledgerEntry(outputRecordOf(o)));
    },
    diff(d) {
      if (d.milestone.index <= target) return;
      for (const s of d.consumed) outputs.set(hex(s.output.outputId), ledgerEntry(outputRecordOf(s.output)));
      for (const o of d.created) outputs.delete(hex(o.outputId));
    },
  });
  let total = 0n;
  for (const rec of outputs.values()) total += new DataView(rec.buffer, rec.byteOffset + 41, 8).getBigUint64(0, true);
  return { outputs, total };
}

const code = (c: SnapshotErrorCode) => (e: unknown) => isSnapshotError(e) && e.code === c;

describe("creating snapshots", () => {
  let h: History;
  let manager: SnapshotManager;
  let latest: number;

  before(async () => {
    h = await History.create("create", 12, 2);
    latest = h.latest;
    manager = h.snapshots();
  });
  after(async () => {
    await h.dispose();
  });

  it("refuses a missing, zero, negative, fractional or future index with BadIndex", async () => {
    for (const index of [0, -1, 1.5, Number.NaN, "3", undefined, latest + 1]) {
      await assert.rejects(manager.create({ index: index as number }), code(SnapshotErrorCode.BadIndex), String(index));
    }
  });

  it("refuses a delta without a full snapshot (NoFullSnapshot) and one not newer than it (BadIndex)", async () => {
    const empty = h.snapshots(join(h.dir, "none"));
    await assert.rejects(empty.createDelta(5), code(SnapshotErrorCode.NoFullSnapshot));
    await empty.createFull(6);
    await assert.rejects(empty.createDelta(6), code(SnapshotErrorCode.BadIndex));
    await assert.rejects(empty.createDelta(4), code(SnapshotErrorCode.BadIndex));
    const r = await empty.create({ index: 9, type: "delta" });
    assert.deepEqual(
      { ...r, deltaFilePath: undefined, fullFilePath: undefined },
      { deltaIndex: 9, fullIndex: 6, deltaFilePath: undefined, fullFilePath: undefined },
    );
  });

  it("writes the ledger of an older milestone while the node keeps confirming", async () => {
    const index = latest - 4;
    const [file] = await Promise.all([manager.createFull(index), h.run(3, 2)]);
    assertSameLedger(await ledgerInFile(file.filePath), h.states.get(index)!, `file at ${index}`);
    const verified = await verifyFullSnapshot(file.filePath, "dev");
    assert.equal(verified.header.targetMilestoneIndex, index);
    assert.ok(verified.header.ledgerMilestoneIndex >= latest, "the outputs are those of the ledger index");
  });

  it("serializes concurrent requests: each file complete, answered in request order", async () => {
    latest = h.latest;
    // count the files open for writing at once
    let open = 0;
    let most = 0;
    const create = SnapshotFileWriter.create;
    const commit = SnapshotFileWriter.prototype.commit;
    SnapshotFileWriter.create = async (path: string) => {
      open++;
      most = Math.max(most, open);
      return create.call(SnapshotFileWriter, path);
    };
    SnapshotFileWriter.prototype.commit = async function (this: SnapshotFileWriter) {
      try {
        return await commit.call(this);
      } finally {
        open--;
      }
    };
    const order: number[] = [];
    const requests = [latest, 3, latest, 5].map((index, i) =>
      manager.createFull(index).then((r) => {
        order.push(i);
        return r;
      }),
    );
    const results = await Promise.all(requests).finally(() => {
      SnapshotFileWriter.create = create;
      SnapshotFileWriter.prototype.commit = commit;
    });
    assert.equal(most, 1, "one file is written at a time");
    assert.deepEqual(order, [0, 1, 2, 3]);
    for (const r of results) {
      assertSameLedger(await ledgerInFile(r.filePath), h.states.get(r.index)!, `file at ${r.index}`);
    }
    const names = await readdir(join(h.dir, "snapshots"));
    assert.deepEqual(
      names.filter((n) => n.endsWith(".tmp")),
      [],
      "no temporary file is left",
    );
    assert.ok(names.includes(`full_snapshot_${latest}.bin.sha256`));
  });

  it("fails with WriteFailed when the file cannot be written, leaving no partial file", async () => {
    const snapshots = join(h.dir, "blocked");
    await mkdir(join(snapshots, "full_snapshot_4.bin"), { recursive: true });
    await writeFile(join(snapshots, "full_snapshot_4.bin", "keep"), "a directory where the file should go");
    const blocked = h.snapshots(snapshots);
    await assert.rejects(blocked.createFull(4), code(SnapshotErrorCode.WriteFailed));
    assert.deepEqual(await readdir(snapshots), ["full_snapshot_4.bin"]);

    const file = join(h.dir, "a-file");
    await writeFile(file, "");
    const impossible = h.snapshots(join(file, "sub"));
    await assert.rejects(impossible.createFull(4), code(SnapshotErrorCode.WriteFailed));
  });

  it("refuses to write a ledger that does not add up (LedgerInconsistent), leaving no partial file", async () => {
    const isolated = await History.create();
    try {
      await isolated.run(3, 2);
      // an output booked before milestone 3: the writer meets its missing record mid-stream
      const [someId] = [...isolated.states.get(3)!.outputs].find(([, rec]) => Buffer.from(rec).readUInt32LE(32) < 3)!;
      const id = Uint8Array.from(Buffer.from(someId!.slice(2), "hex"));
      const record = (await isolated.node.store.get(idKey(Bucket.Output, id)))!;
      await isolated.node.store.batch().del(idKey(Bucket.Output, id)).write();
      const snapshots = join(h.dir, "inconsistent");
      const m = new SnapshotManager({ store: isolated.node.store, belowMaxDepth: 15 }, { directory: snapshots });
      await assert.rejects(m.createFull(3), code(SnapshotErrorCode.LedgerInconsistent));
      assert.deepEqual(await readdir(snapshots), []);
      await isolated.node.store.put(idKey(Bucket.Output, id), record);
      await m.createFull(3);
    } finally {
      await isolated.dispose();
    }
  });

  it("takes full snapshots every `interval` milestones, belowMaxDepth + 1 behind, and keeps the newest `keepFull` of its own", async () => {
    const snapshots = join(h.dir, "auto");
    const errors: unknown[] = [];
    const auto = new SnapshotManager(
      { store: h.node.store, belowMaxDepth: 15, onError: (e) => errors.push(e) },
      { directory: snapshots, interval: 3, keepFull: 2 },
    );
    // written on request, at an index the schedule never writes, and a delta on it: the operator's
    await auto.createFull(2);
    await auto.createDelta(4);
    // milestone 3's snapshot waits for milestone 19: a new block may attach to 3's window until then
    for (let i = 1; i <= 18; i++) auto.onConfirmed(i);
    await auto.idle();
    assert.deepEqual(
      (await readdir(snapshots)).filter((n) => n.endsWith(".bin")).sort(),
      ["delta_snapshot_4.bin", "full_snapshot_2.bin"],
      "nothing written by the schedule before milestone 19",
    );
    for (let i = 19; i <= 26; i++) auto.onConfirmed(i);
    await auto.idle();
    assert.deepEqual(errors, []);
    const names = (await readdir(snapshots)).filter((n) => n.endsWith(".bin")).sort();
    assert.deepEqual(names, [
      "delta_snapshot_4.bin",
      "full_snapshot_2.bin",
      "full_snapshot_6.bin",
      "full_snapshot_9.bin",
    ]);
    const off = h.snapshots(join(h.dir, "off"));
    off.onConfirmed(19);
    await off.idle();
    await assert.rejects(readdir(join(h.dir, "off")));
    const newest = await auto.newestFullSnapshot();
    assert.equal(newest?.header.type, SnapshotType.Full);
    assert.equal(newest?.header.targetMilestoneIndex, 9);
  });
});
