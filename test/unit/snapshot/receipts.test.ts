import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { blockIdFromBytes, computeMilestoneId, outputIdFromParts } from "../../../src/codec/ids.js";
import { decodeReceipt } from "../../../src/codec/milestoneOptions.js";
import { encodeOutput } from "../../../src/codec/outputs/output.js";
import { encodePayload } from "../../../src/codec/payload.js";
import {
  AddressType,
  InputType,
  MilestoneOptionType,
  type MilestonePayload,
  OutputType,
  PayloadType,
  type ProtocolParameters,
  type ReceiptMilestoneOption,
} from "../../../src/codec/types.js";
import { WriteStream } from "../../../src/codec/writeStream.js";
import { ed25519KeyPairFromSeed, ed25519Sign } from "../../../src/crypto/ed25519.js";
import {
  encodeDeltaHeader,
  encodeFullHeader,
  encodeMilestoneDiff,
  importSnapshot,
  isSnapshotError,
  type MilestoneDiff,
  milestoneBlockBytes,
  protocolParamsOption,
  readSnapshotHeader,
  SnapshotErrorCode,
  type SnapshotOutput,
  SnapshotType,
  writeFullSnapshot,
  writeSnapshotOutput,
} from "../../../src/snapshot/index.js";
import { defaultKvStoreOptions, KvStore, Repositories, type TreasuryRecord } from "../../../src/storage/index.js";
import { HORNET_DELTA, HORNET_FULL, HORNET_SUPPLY, HORNET_TARGET_OUTPUT } from "../../helpers/hornetSnapshots.js";
import { removeDir, tempDir } from "../../helpers/node.js";
import { readLedgerState } from "../../helpers/snapshotHistory.js";
import { alice, basic, bob } from "../../helpers/txBuilder.js";

/**
 * Receipts (TIP-34) in snapshot files (TIP-35), on generated files whose milestones are signed:
 * a delta whose milestones 2 and 3 carry receipts moves the migrated funds out of the treasury
 * into the outputs its diffs create; the node's treasury is the last receipt's treasury output
 * under its milestone's ID, the receipts are stored by migratedAt, and the ledger holds the
 * supply less the treasury. A snapshot written from that database carries the treasury in its
 * header and the spent treasury in each receipt's diff, and rolls back to an older target with
 * the treasury of that target. A diff that spends another treasury than the one of its moment,
 * or creates other than what its receipt migrates, is refused and nothing is written.
 */

const SUPPLY = 1_000_000_000_000n;
const GENESIS_AMOUNT = 400_000_000n;
const PARAMS: ProtocolParameters = {
  protocolVersion: 2,
  networkName: "migration-test",
  bech32Hrp: "rms",
  minPowScore: 0,
  belowMaxDepth: 15,
  rentStructure: { vByteCost: 0, vByteFactorData: 0, vByteFactorKey: 0 },
  tokenSupply: SUPPLY,
};
const ZERO32 = new Uint8Array(32);
const COORDINATOR = ed25519KeyPairFromSeed(new Uint8Array(32).fill(7));
const SEP = new Uint8Array(32).fill(0xee);

const output = (fill: number, amount: bigint, bookedIndex: number): SnapshotOutput => ({
  outputId: outputIdFromParts(new Uint8Array(32).fill(fill), 0),
  blockId: new Uint8Array(32).fill(fill),
  bookedIndex,
  bookedTimestamp: 1000 + bookedIndex,
  outputBytes: encodeOutput(basic(fill % 2 ? alice.address : bob.address, { amount })),
});

/** A receipt of `migratedAt` moving `deposits` out of `treasury` (TIP-34). */
function receipt(migratedAt: number, deposits: bigint[], treasury: TreasuryRecord): ReceiptMilestoneOption {
  return {
    type: MilestoneOptionType.Receipt,
    migratedAt,
    final: false,
    funds: deposits.map((deposit, i) => ({
      tailTransactionHash: new Uint8Array(49).fill(i + 1),
      address: { type: AddressType.Ed25519, pubKeyHash: new Uint8Array(32).fill(migratedAt % 251) },
      deposit,
    })),
    transaction: {
      type: PayloadType.TreasuryTransaction,
      input: { type: InputType.Treasury, milestoneId: treasury.milestoneId },
      output: { type: OutputType.Treasury, amount: treasury.amount - deposits.reduce((a, b) => a + b, 0n) },
    },
  };
}

/** Milestone `index` after `previous`, on `parents`, signed by the coordinator key. */
function milestone(
  index: number,
  previousMilestoneId: Uint8Array,
  parents: Uint8Array[],
  r?: ReceiptMilestoneOption,
): MilestonePayload {
  const m: MilestonePayload = {
    type: PayloadType.Milestone,
    index,
    timestamp: 1000 + index,
    protocolVersion: 2,
    previousMilestoneId,
    parents,
    inclusionMerkleRoot: ZERO32,
    appliedMerkleRoot: ZERO32,
    metadata: new Uint8Array(0),
    options: r ? [r] : [],
    signatures: [],
  };
  const signature = ed25519Sign(COORDINATOR, computeMilestoneId(m));
  m.signatures = [{ type: 0, publicKey: COORDINATOR.publicKey, signature }];
  return m;
}

const diffOf = (m: MilestonePayload, created: SnapshotOutput[], treasuryInput?: TreasuryRecord): MilestoneDiff => ({
  milestone: m,
  milestoneBytes: encodePayload(m),
  ...(treasuryInput ? { treasuryInput } : {}),
  created,
  consumed: [],
});

describe("receipts in snapshot files", () => {
  let dir: string;
  let fullPath: string;
  let deltaPath: string;
  let stores = 0;
  const opened: KvStore[] = [];
  const store = async () => {
    const s = await KvStore.open({ ...defaultKvStoreOptions, path: join(dir, `db-${stores++}`) });
    opened.push(s);
    return s;
  };

  // the history: genesis output + treasury at milestone 1; milestone 2 migrates 30 M and 20 M
  // (two created outputs), milestone 3 migrates 5 M more
  const genesisTreasury: TreasuryRecord = { milestoneId: ZERO32, amount: SUPPLY - GENESIS_AMOUNT };
  const r2 = receipt(100, [30_000_000n, 20_000_000n], genesisTreasury);
  const m2 = milestone(2, ZERO32, [SEP], r2);
  const m2Id = computeMilestoneId(m2);
  const afterM2: TreasuryRecord = { milestoneId: m2Id, amount: r2.transaction.output.amount };
  const r3 = receipt(101, [5_000_000n], afterM2);
  // milestone 3 references milestone 2's block, so an importer keeps that block (and its payload)
  const m3 = milestone(3, m2Id, [blockIdFromBytes(milestoneBlockBytes(m2))], r3);
  const afterM3: TreasuryRecord = { milestoneId: computeMilestoneId(m3), amount: r3.transaction.output.amount };
  const created2 = [output(0x21, 30_000_000n, 2), output(0x22, 20_000_000n, 2)];
  const created3 = [output(0x31, 5_000_000n, 3)];

  const writeFull = async (path: string) => {
    const w = new WriteStream(1024);
    w.bytes(
      encodeFullHeader({
        genesisMilestoneIndex: 0,
        targetMilestoneIndex: 1,
        targetMilestoneTimestamp: 1001,
        targetMilestoneId: ZERO32,
        ledgerMilestoneIndex: 1,
        treasuryOutputMilestoneId: genesisTreasury.milestoneId,
        treasuryOutputAmount: genesisTreasury.amount,
        protocolParameters: protocolParamsOption(0, PARAMS),
        outputCount: 1,
        milestoneDiffCount: 0,
        sepCount: 1,
      }),
    );
    writeSnapshotOutput(w, output(0x10, GENESIS_AMOUNT, 1));
    w.bytes(SEP);
    await writeFile(path, w.finish());
  };

  const writeDelta = async (path: string, diffs: MilestoneDiff[]) => {
    const body = diffs.map(encodeMilestoneDiff);
    const sepFileOffset = 56 + body.reduce((n, b) => n + b.length, 0);
    const header = encodeDeltaHeader({
      targetMilestoneIndex: 1 + diffs.length,
      targetMilestoneTimestamp: 1001 + diffs.length,
      fullSnapshotTargetMilestoneId: ZERO32,
      sepFileOffset,
      milestoneDiffCount: diffs.length,
      sepCount: 1,
    });
    await writeFile(path, Buffer.concat([header, ...body, SEP]));
  };

  const receiptsOf = async (s: KvStore) =>
    (await Repositories.of(s).receipts.list({ limit: 100 })).map((r) => ({
      migratedAt: r.migratedAt,
      milestoneIndex: r.milestoneIndex,
      receipt: decodeReceipt(r.bytes),
    }));

  before(async () => {
    dir = await tempDir("receipts");
    fullPath = join(dir, "full.bin");
    deltaPath = join(dir, "delta.bin");
    await writeFull(fullPath);
    await writeDelta(deltaPath, [diffOf(m2, created2, genesisTreasury), diffOf(m3, created3, afterM2)]);
  });
  after(async () => {
    for (const s of opened) await s.close().catch(() => {});
    await removeDir(dir);
  });

  it("a full snapshot's treasury becomes the node's; no receipts", async () => {
    const s = await store();
    const r = await importSnapshot(s, { fullPath, expectedNetworkName: PARAMS.networkName });
    assert.deepEqual(r.treasury, genesisTreasury);
    assert.deepEqual(await Repositories.of(s).nodeState.treasury(), genesisTreasury);
    assert.deepEqual(await receiptsOf(s), []);
    assert.equal((await readLedgerState(s)).total, GENESIS_AMOUNT);
  });

  it("a delta's receipts move the migrated funds from the treasury into the ledger", async () => {
    const s = await store();
    const r = await importSnapshot(s, { fullPath, deltaPath, expectedNetworkName: PARAMS.networkName });
    assert.equal(r.ledgerIndex, 3);
    assert.deepEqual(r.treasury, afterM3);
    assert.deepEqual(await Repositories.of(s).nodeState.treasury(), afterM3);
    assert.equal(afterM3.amount, SUPPLY - GENESIS_AMOUNT - 55_000_000n);
    const ledger = await readLedgerState(s);
    assert.equal(ledger.total + afterM3.amount, SUPPLY);
    for (const o of [...created2, ...created3]) {
      assert.ok(ledger.outputs.has(`0x${Buffer.from(o.outputId).toString("hex")}`), "a migrated output is unspent");
    }
    assert.deepEqual(await receiptsOf(s), [
      { migratedAt: 100, milestoneIndex: 2, receipt: r2 },
      { migratedAt: 101, milestoneIndex: 3, receipt: r3 },
    ]);
    assert.deepEqual(
      (await Repositories.of(s).receipts.list({ migratedAt: 101, limit: 10 })).map((x) => x.milestoneIndex),
      [3],
    );
    assert.deepEqual(await Repositories.of(s).receipts.list({ migratedAt: 102, limit: 10 }), []);

    // written back: the treasury in the header, each receipt's spent treasury in its diff; the
    // file at 2 rolls milestone 3 back, so its importer has milestone 2's treasury and receipt
    const at3 = join(dir, "at3.bin");
    await writeFullSnapshot(s, 3, at3);
    const header3 = await readSnapshotHeader(at3);
    assert.ok(header3.type === SnapshotType.Full);
    assert.deepEqual({ milestoneId: header3.treasuryOutputMilestoneId, amount: header3.treasuryOutputAmount }, afterM3);
    const at2 = join(dir, "at2.bin");
    await writeFullSnapshot(s, 2, at2);
    const rolledBack = await store();
    const imported = await importSnapshot(rolledBack, { fullPath: at2, expectedNetworkName: PARAMS.networkName });
    assert.equal(imported.ledgerIndex, 2);
    assert.deepEqual(imported.treasury, afterM2);
    assert.deepEqual(await receiptsOf(rolledBack), [{ migratedAt: 100, milestoneIndex: 2, receipt: r2 }]);
    assert.equal((await readLedgerState(rolledBack)).total, GENESIS_AMOUNT + 50_000_000n);
    const again = await store();
    assert.deepEqual(
      (await importSnapshot(again, { fullPath: at3, expectedNetworkName: PARAMS.networkName })).treasury,
      afterM3,
    );
  });

  const refusedWith = async (diffs: MilestoneDiff[], reason: RegExp) => {
    const path = join(dir, `bad-${stores}.bin`);
    await writeDelta(path, diffs);
    const s = await store();
    const e = await importSnapshot(s, { fullPath, deltaPath: path, expectedNetworkName: PARAMS.networkName }).then(
      () => undefined,
      (err: unknown) => err,
    );
    assert.ok(isSnapshotError(e) && e.code === SnapshotErrorCode.Corrupted, `expected Corrupted, got ${e}`);
    assert.match(e.message, reason);
    let keys = 0;
    for await (const _ of s.scanKeys({ prefix: new Uint8Array(0), limit: 1 })) keys++;
    assert.equal(keys, 0, "nothing was written");
  };

  it("refuses a receipt that spends another treasury than the one of its moment", async () => {
    // milestone 3 names milestone 2's treasury with a wrong amount
    const wrong = { ...afterM2, amount: afterM2.amount + 1n };
    const r = receipt(101, [5_000_000n], wrong);
    const m = milestone(3, m2Id, [SEP], r);
    await refusedWith([diffOf(m2, created2, genesisTreasury), diffOf(m, created3, wrong)], /spends the treasury/);
    // or the genesis treasury again, which milestone 2 already spent
    const twice = milestone(3, m2Id, [SEP], receipt(101, [5_000_000n], genesisTreasury));
    await refusedWith(
      [diffOf(m2, created2, genesisTreasury), diffOf(twice, created3, genesisTreasury)],
      /the treasury is/,
    );
  });

  it("refuses a diff whose created outputs are not what its receipt migrates", async () => {
    await refusedWith([diffOf(m2, created2.slice(1), genesisTreasury)], /its receipt migrates 50000000/);
    // a treasury input whose amount is not the new treasury plus what the receipt migrates
    const off = { ...genesisTreasury, amount: genesisTreasury.amount + 7n };
    await refusedWith([diffOf(m2, created2, off)], /takes 50000007 out of the treasury and migrates 50000000/);
  });
});

describe("Hornet's test snapshots (test/fixtures/hornet)", () => {
  let dir: string;
  before(async () => {
    dir = await tempDir("hornet-unit");
  });
  after(async () => {
    await removeDir(dir);
  });

  it("are refused as unverified by default; with `unverified`, TestSnapshot's treasury and receipt", async () => {
    const s = await KvStore.open({ ...defaultKvStoreOptions, path: join(dir, "db") });
    try {
      const files = { fullPath: HORNET_FULL, deltaPath: HORNET_DELTA, expectedNetworkName: "alphanet1" };
      await assert.rejects(importSnapshot(s, files), (e: unknown) => {
        return isSnapshotError(e) && e.code === SnapshotErrorCode.Unverified && /milestone 3/.test(e.message);
      });
      const r = await importSnapshot(s, { ...files, unverified: true });
      assert.equal(r.ledgerIndex, 5);
      assert.equal(r.treasury.amount, HORNET_SUPPLY - 40_000_000n);
      assert.deepEqual(
        (await Repositories.of(s).receipts.list({ limit: 10 })).map((x) => [x.migratedAt, x.milestoneIndex]),
        [[9001, 5]],
      );
      const ledger = await readLedgerState(s);
      assert.equal(ledger.total, 40_000_000n);
      assert.ok(ledger.outputs.has(HORNET_TARGET_OUTPUT));
    } finally {
      await s.close();
    }
  });
});
