import assert from "node:assert/strict";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { encodeOutput } from "../../../src/codec/outputs/output.js";
import { WriteStream } from "../../../src/codec/writeStream.js";
import { devGenesisOutput, devProtocolParameters } from "../../../src/node/devNetwork.js";
import { isSnapshotError } from "../../../src/snapshot/errors.js";
import {
  CHECKSUM_SUFFIX,
  encodeDeltaHeader,
  encodeFullHeader,
  protocolParamsOption,
  readSnapshot,
  readSnapshotHeader,
  SnapshotErrorCode,
  SnapshotFileWriter,
  SnapshotType,
  sha256OfFile,
  writeSnapshotOutput,
} from "../../../src/snapshot/index.js";
import { removeDir, tempDir } from "../../helpers/node.js";

/** The file writer (temporary name, checksum) and the reader's answers to malformed files. */
describe("snapshot files", () => {
  let dir: string;
  let minimal: Uint8Array;

  const code = (c: SnapshotErrorCode) => (e: unknown) => isSnapshotError(e) && e.code === c;
  const file = async (name: string, bytes: Uint8Array) => {
    const path = join(dir, name);
    await writeFile(path, bytes);
    return path;
  };

  before(async () => {
    dir = await tempDir("format");
    // a full snapshot of the dev genesis: one output, no diffs, the null block as entry point
    const w = new WriteStream(512);
    w.bytes(
      encodeFullHeader({
        genesisMilestoneIndex: 0,
        targetMilestoneIndex: 0,
        targetMilestoneTimestamp: 0,
        targetMilestoneId: new Uint8Array(32),
        ledgerMilestoneIndex: 0,
        treasuryOutputMilestoneId: new Uint8Array(32),
        treasuryOutputAmount: 0n,
        protocolParameters: protocolParamsOption(0, devProtocolParameters(100)),
        outputCount: 1,
        milestoneDiffCount: 0,
        sepCount: 1,
      }),
    );
    writeSnapshotOutput(w, {
      outputId: new Uint8Array(34),
      blockId: new Uint8Array(32),
      bookedIndex: 0,
      bookedTimestamp: 0,
      outputBytes: encodeOutput(devGenesisOutput()),
    });
    w.bytes(new Uint8Array(32));
    minimal = w.finish();
  });
  after(async () => {
    await removeDir(dir);
  });

  it("reads a minimal full snapshot and its header", async () => {
    const path = await file("genesis.bin", minimal);
    const header = await readSnapshotHeader(path);
    assert.equal(header.type, SnapshotType.Full);
    if (header.type !== SnapshotType.Full) return;
    assert.equal(header.protocolParameters.parameters.networkName, "dev");
    assert.equal(header.outputCount, 1);
    const seen: string[] = [];
    const r = await readSnapshot(path, {
      output: () => void seen.push("output"),
      sep: () => void seen.push("sep"),
    });
    assert.deepEqual(seen, ["output", "sep"]);
    assert.equal(r.fileSize, minimal.length);
    assert.equal(r.sha256, await sha256OfFile(path));
  });

  it("answers malformed files with the matching code", async () => {
    /** A copy of the file with `value` written at `offset` (a byte, or a u32 when `u32`). */
    const variant = (offset: number, value: number, u32 = false) => {
      const b = Buffer.from(minimal);
      if (u32) b.writeUInt32LE(value, offset);
      else b[offset] = value;
      return b;
    };
    // the output's bytes end where the SEP starts; its length field is just before them
    const outputAt = minimal.length - 32 - encodeOutput(devGenesisOutput()).length;
    const cases: [string, Uint8Array, SnapshotErrorCode][] = [
      ["empty", new Uint8Array(0), SnapshotErrorCode.Truncated],
      ["trailing", Buffer.concat([minimal, Uint8Array.of(0)]), SnapshotErrorCode.Corrupted],
      ["version 3", variant(0, 3), SnapshotErrorCode.UnsupportedVersion],
      ["type 2", variant(1, 2), SnapshotErrorCode.Corrupted],
      ["option type 0", variant(92, 0), SnapshotErrorCode.Corrupted],
      ["output length 0", variant(outputAt - 4, 0, true), SnapshotErrorCode.Corrupted],
      ["output length 40000", variant(outputAt - 4, 40_000, true), SnapshotErrorCode.Corrupted],
      ["bad output type", variant(outputAt, 9), SnapshotErrorCode.Corrupted],
    ];
    for (const [name, bytes, expected] of cases) {
      const path = await file(`${name}.bin`, bytes);
      await assert.rejects(readSnapshot(path), code(expected), name);
    }
    await assert.rejects(readSnapshot(join(dir, "absent.bin")), code(SnapshotErrorCode.Unreadable));
    const genesis = await file("typed.bin", minimal);
    await assert.rejects(
      readSnapshot(genesis, {}, { expectedType: SnapshotType.Delta }),
      code(SnapshotErrorCode.WrongType),
    );
    const delta = encodeDeltaHeader({
      targetMilestoneIndex: 3,
      targetMilestoneTimestamp: 3,
      fullSnapshotTargetMilestoneId: new Uint8Array(32),
      sepFileOffset: 9999,
      milestoneDiffCount: 0,
      sepCount: 0,
    });
    await assert.rejects(readSnapshot(await file("delta-offset.bin", delta)), code(SnapshotErrorCode.Truncated));
  });

  it("writes to a temporary name, renames on commit with a checksum beside, removes it on abort", async () => {
    const target = join(dir, "written", "full_snapshot_0.bin");
    const aborted = await SnapshotFileWriter.create(target);
    await aborted.write(minimal);
    await aborted.abort();
    assert.deepEqual(await readdir(join(dir, "written")), []);

    const w = await SnapshotFileWriter.create(target);
    assert.match(w.tempPath, /\/\.full_snapshot_0\.bin\.\d+-[0-9a-f]+\.tmp$/);
    await w.write(minimal.subarray(0, 10));
    await w.write(minimal.subarray(10));
    await w.patch(0, Uint8Array.of(2));
    const digest = await w.commit();
    assert.deepEqual(new Uint8Array(await readFile(target)), minimal);
    assert.equal(await readFile(target + CHECKSUM_SUFFIX, "utf8"), `${digest}  full_snapshot_0.bin\n`);
    assert.deepEqual((await readdir(join(dir, "written"))).sort(), [
      "full_snapshot_0.bin",
      "full_snapshot_0.bin.sha256",
    ]);
  });
});
