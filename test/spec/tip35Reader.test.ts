import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { after, before, describe, it } from "node:test";
import { decodeOutput, outputToJson } from "../../src/codec/outputs/output.js";
import {
  Bucket,
  decodeLedgerDiff,
  decodeMilestoneRecord,
  decodeOutputRecord,
  idKey,
  indexKey,
  type KvStore,
} from "../../src/storage/index.js";
import { History } from "../helpers/snapshotHistory.js";

/**
 * A TIP-35 (version 2) reader written from the TIP's tables alone, sharing nothing with the
 * node's reader or writer, reads the node's full and delta snapshot files back field by field
 * and compares every field with the database they were written from. Each output is decoded
 * by @iota/iota.js@2.0.0-rc.4, as are the milestone payloads and the protocol parameters option.
 */

interface IotaReadStream {
  unused(): number;
}
interface IotaOracle {
  deserializeOutput(r: IotaReadStream): { type: number; amount: string };
  deserializeMilestonePayload(r: IotaReadStream): { type: number; index: number; timestamp: number };
  deserializeProtocolParamsMilestoneOption(r: IotaReadStream): {
    type: number;
    targetMilestoneIndex: number;
    protocolVersion: number;
    params: string;
  };
}
const require = createRequire(import.meta.url);
const iota = require("@iota/iota.js") as IotaOracle;
const util = require("@iota/util.js") as { ReadStream: new (bytes: Uint8Array) => IotaReadStream };

const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString("hex")}`;
const plain = (x: unknown): unknown => JSON.parse(JSON.stringify(x));

/** Little-endian cursor over a whole file (the TIP: "All types are serialized in little-endian"). */
class Cursor {
  pos = 0;
  constructor(readonly buf: Buffer) {}
  u8 = () => this.buf.readUInt8(this.take(1));
  u16 = () => this.buf.readUInt16LE(this.take(2));
  u32 = () => this.buf.readUInt32LE(this.take(4));
  u64 = () => this.buf.readBigUInt64LE(this.take(8));
  bytes = (n: number) => {
    const at = this.take(n);
    return new Uint8Array(this.buf.subarray(at, at + n));
  };
  string8 = () => Buffer.from(this.bytes(this.u8())).toString("latin1");
  private take(n: number): number {
    assert.ok(this.pos + n <= this.buf.length, `read of ${n} bytes at ${this.pos} runs past the end`);
    const at = this.pos;
    this.pos += n;
    return at;
  }
}

interface TipOutput {
  outputId: Uint8Array;
  blockId: Uint8Array;
  milestoneIndexBooked: number;
  milestoneTimestampBooked: number;
  output: Uint8Array;
}

/** "Output": ID [34], block ID [32], index booked u32, timestamp booked u32, length u32, output. */
function readOutput(c: Cursor): TipOutput {
  const outputId = c.bytes(34);
  const blockId = c.bytes(32);
  const milestoneIndexBooked = c.u32();
  const milestoneTimestampBooked = c.u32();
  const output = c.bytes(c.u32());
  return { outputId, blockId, milestoneIndexBooked, milestoneTimestampBooked, output };
}

interface TipDiff {
  length: number;
  payload: Uint8Array;
  created: TipOutput[];
  consumed: { output: TipOutput; targetTransactionId: Uint8Array }[];
}

/** "Milestone Diff": length u32, payload length u32, payload, (no receipt here), created, consumed. */
function readDiff(c: Cursor): TipDiff {
  const start = c.pos;
  const length = c.u32();
  const payload = c.bytes(c.u32());
  const created = Array.from({ length: c.u32() }, () => readOutput(c));
  const consumed = Array.from({ length: c.u32() }, () => ({ output: readOutput(c), targetTransactionId: c.bytes(32) }));
  assert.equal(c.pos - start, length, "the milestone diff length counts the whole diff, its own field included");
  return { length, payload, created, consumed };
}

/** "Protocol Parameters": version, (u8) network name, (u8) bech32 HRP, min PoW score, BMD, rent, supply. */
function readProtocolParameters(bytes: Uint8Array) {
  const c = new Cursor(Buffer.from(bytes));
  const p = {
    protocolVersion: c.u8(),
    networkName: c.string8(),
    bech32Hrp: c.string8(),
    minPowScore: c.u32(),
    belowMaxDepth: c.u8(),
    rentStructure: { vByteCost: c.u32(), vBFactorData: c.u8(), vBFactorKey: c.u8() },
    tokenSupply: c.u64(),
  };
  assert.equal(c.pos, bytes.length);
  return p;
}

function readFull(path: string) {
  const c = new Cursor(readFileSync(path));
  const h = {
    version: c.u8(),
    type: c.u8(),
    genesisMilestoneIndex: c.u32(),
    targetMilestoneIndex: c.u32(),
    targetMilestoneTimestamp: c.u32(),
    targetMilestoneId: c.bytes(32),
    ledgerMilestoneIndex: c.u32(),
    treasuryOutputMilestoneId: c.bytes(32),
    treasuryOutputAmount: c.u64(),
    option: c.bytes(c.u16()),
    outputsCount: c.u64(),
    milestoneDiffsCount: c.u32(),
    sepsCount: c.u16(),
  };
  const outputs = Array.from({ length: Number(h.outputsCount) }, () => readOutput(c));
  const diffs = Array.from({ length: h.milestoneDiffsCount }, () => readDiff(c));
  const seps = Array.from({ length: h.sepsCount }, () => c.bytes(32));
  assert.equal(c.pos, c.buf.length, "nothing follows the SEPs");
  return { h, outputs, diffs, seps };
}

function readDelta(path: string) {
  const c = new Cursor(readFileSync(path));
  const h = {
    version: c.u8(),
    type: c.u8(),
    targetMilestoneIndex: c.u32(),
    targetMilestoneTimestamp: c.u32(),
    fullSnapshotTargetMilestoneId: c.bytes(32),
    sepFileOffset: c.u64(),
    milestoneDiffsCount: c.u32(),
    sepsCount: c.u16(),
  };
  const diffs = Array.from({ length: h.milestoneDiffsCount }, () => readDiff(c));
  const sepsAt = c.pos;
  const seps = Array.from({ length: h.sepsCount }, () => c.bytes(32));
  assert.equal(c.pos, c.buf.length, "nothing follows the SEPs");
  return { h, diffs, seps, sepsAt };
}

async function milestoneRecord(store: KvStore, index: number) {
  return decodeMilestoneRecord((await store.get(indexKey(Bucket.MilestoneByIndex, index)))!);
}

/** A diff from the file against the database: payload, created and consumed outputs, spenders. */
async function checkDiff(store: KvStore, d: TipDiff, index: number): Promise<void> {
  const payload = iota.deserializeMilestonePayload(new util.ReadStream(d.payload));
  assert.equal(payload.index, index);
  const block = (await store.get(idKey(Bucket.Block, (await milestoneRecord(store, index)).blockId)))!;
  assert.ok(
    Buffer.from(block).includes(Buffer.from(d.payload)),
    "the payload is the one the milestone's block carries",
  );
  const ledgerDiff = decodeLedgerDiff((await store.get(indexKey(Bucket.LedgerDiff, index)))!);
  assert.deepEqual(
    d.created.map((o) => hex(o.outputId)),
    ledgerDiff.created.map(hex),
  );
  assert.deepEqual(
    d.consumed.map((s) => hex(s.output.outputId)),
    ledgerDiff.consumed.map(hex),
  );
  for (const o of [...d.created, ...d.consumed.map((s) => s.output)]) await checkOutput(store, o);
  for (const s of d.consumed) {
    const spent = decodeOutputRecord((await store.get(idKey(Bucket.Output, s.output.outputId)))!).spent!;
    assert.equal(hex(s.targetTransactionId), hex(spent.transactionId));
    assert.equal(spent.spentIndex, index);
  }
}

/** An output entry against the node's record (or a LedgerState entry), and through iota.js's deserializer. */
async function checkOutput(store: KvStore, o: TipOutput, record?: Uint8Array): Promise<void> {
  const rec = record ?? (await store.get(idKey(Bucket.Output, o.outputId)));
  assert.ok(rec, `${hex(o.outputId)} is not an output of the node`);
  assert.equal(hex(o.blockId), hex(rec.subarray(0, 32)));
  assert.equal(o.milestoneIndexBooked, Buffer.from(rec).readUInt32LE(32));
  assert.equal(o.milestoneTimestampBooked, Buffer.from(rec).readUInt32LE(36));
  assert.equal(hex(o.output), hex(record ? rec.subarray(40) : decodeOutputRecord(rec).outputBytes));
  const r = new util.ReadStream(o.output);
  const theirs = iota.deserializeOutput(r);
  assert.equal(r.unused(), 0, "iota.js reads the output to its last byte");
  assert.deepEqual(plain(theirs), plain(outputToJson(decodeOutput(o.output))));
}

/** A node starting from the file keeps the milestone's block unreferenced on its parents: SEPs. */
async function checkMilestoneParentsAreSeps(store: KvStore, blockId: Uint8Array, seps: Uint8Array[]): Promise<void> {
  const block = Buffer.from((await store.get(idKey(Bucket.Block, blockId)))!);
  const listed = new Set(seps.map(hex));
  for (let i = 0; i < block[1]!; i++) {
    const parent = block.subarray(2 + 32 * i, 34 + 32 * i);
    assert.ok(listed.has(hex(parent)), `parent ${hex(parent)} of the milestone's block is a SEP`);
  }
}

describe("TIP-35 files read back by an independent reader", () => {
  let h: History;
  let files: { fullOld: string; fullLatest: string; delta: string };
  const OLD = 7;
  let latest: number;

  before(async () => {
    h = await History.create("tip35", 14, 3);
    latest = h.latest;
    const m = h.snapshots();
    const fullOld = (await m.createFull(OLD)).filePath;
    const delta = (await m.createDelta(latest)).deltaFilePath;
    const fullLatest = (await m.createFull(latest)).filePath;
    files = { fullOld, fullLatest, delta };
  });
  after(async () => {
    await h.dispose();
  });

  for (const which of ["old", "latest"] as const) {
    it(`reads the full snapshot at the ${which} index field by field`, async () => {
      const index = which === "old" ? OLD : latest;
      const store = h.node.store;
      const { h: header, outputs, diffs, seps } = readFull(which === "old" ? files.fullOld : files.fullLatest);
      const ms = await milestoneRecord(store, index);

      // header
      assert.equal(header.version, 2);
      assert.equal(header.type, 0);
      assert.equal(header.genesisMilestoneIndex, 0);
      assert.equal(header.targetMilestoneIndex, index);
      assert.equal(header.targetMilestoneTimestamp, ms.timestamp);
      assert.equal(hex(header.targetMilestoneId), hex(ms.milestoneId));
      // the outputs are the ledger when the file was written: the latest milestone
      assert.equal(header.ledgerMilestoneIndex, latest);
      assert.equal(hex(header.treasuryOutputMilestoneId), hex(new Uint8Array(32)));
      assert.equal(header.treasuryOutputAmount, 0n);

      // protocol parameters milestone option: by hand and by iota.js
      const option = new Cursor(Buffer.from(header.option));
      assert.equal(option.u8(), 1, "option type 1");
      assert.equal(option.u32(), 0, "in force from milestone 0");
      assert.equal(option.u8(), 2, "protocol version 2");
      const params = readProtocolParameters(option.bytes(option.u16()));
      assert.equal(option.pos, header.option.length);
      assert.deepEqual(params, {
        protocolVersion: 2,
        networkName: "dev",
        bech32Hrp: "tst",
        minPowScore: 0,
        belowMaxDepth: 15,
        rentStructure: { vByteCost: 100, vBFactorData: 1, vBFactorKey: 10 },
        tokenSupply: 2779530283277761n,
      });
      const theirs = iota.deserializeProtocolParamsMilestoneOption(new util.ReadStream(header.option));
      assert.deepEqual([theirs.type, theirs.targetMilestoneIndex, theirs.protocolVersion], [1, 0, 2]);

      // outputs: exactly the ledger the node held at the ledger index
      const atLedger = h.states.get(latest)!;
      assert.equal(Number(header.outputsCount), atLedger.outputs.size);
      let total = 0n;
      for (const o of outputs) {
        const rec = atLedger.outputs.get(hex(o.outputId));
        assert.ok(rec, `${hex(o.outputId)} was not unspent at ${latest}`);
        await checkOutput(store, o, rec);
        total += BigInt(iota.deserializeOutput(new util.ReadStream(o.output)).amount);
      }
      assert.equal(total, 2779530283277761n);

      // diffs: the ledger index down to the target + 1 ("the diffs to rollback the outputs state
      // to regain the ledger state of the snapshot Target Milestone Index"), then the target's own
      assert.equal(header.milestoneDiffsCount, latest - index + 1);
      for (const [i, d] of diffs.entries()) await checkDiff(store, d, latest - i);

      // rolled back as the TIP says, the outputs are the ledger the node held at the target
      const ledger = new Map(outputs.map((o) => [hex(o.outputId), o]));
      for (const d of diffs.slice(0, latest - index)) {
        for (const s of d.consumed) ledger.set(hex(s.output.outputId), s.output);
        for (const o of d.created) ledger.delete(hex(o.outputId));
      }
      const expected = h.states.get(index)!;
      assert.equal(ledger.size, expected.outputs.size);
      for (const [id, o] of ledger) {
        assert.ok(expected.outputs.has(id), `${id} was not unspent at ${index}`);
        await checkOutput(store, o, expected.outputs.get(id));
      }

      // the SEPs: each once, the parents of the milestone's block among them
      assert.equal(new Set(seps.map(hex)).size, seps.length, "each SEP once");
      await checkMilestoneParentsAreSeps(store, ms.blockId, seps);
    });
  }

  it("reads the delta snapshot field by field", async () => {
    const store = h.node.store;
    const { h: header, diffs, seps, sepsAt } = readDelta(files.delta);
    assert.equal(header.version, 2);
    assert.equal(header.type, 1);
    assert.equal(header.targetMilestoneIndex, latest);
    assert.equal(header.targetMilestoneTimestamp, (await milestoneRecord(store, latest)).timestamp);
    assert.equal(hex(header.fullSnapshotTargetMilestoneId), hex((await milestoneRecord(store, OLD)).milestoneId));
    assert.equal(Number(header.sepFileOffset), sepsAt);
    assert.equal(header.milestoneDiffsCount, latest - OLD);
    for (const [i, d] of diffs.entries()) await checkDiff(store, d, OLD + 1 + i);
    await checkMilestoneParentsAreSeps(store, (await milestoneRecord(store, latest)).blockId, seps);
  });
});
