import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { readSnapshotHeader, SnapshotType } from "../../src/snapshot/index.js";
import {
  HORNET_DELTA as DELTA,
  HORNET_FULL as FULL,
  HORNET_MIGRATION as MIGRATION,
  networkFileFor,
  HORNET_SUPPLY as SUPPLY,
  started,
  HORNET_TARGET_OUTPUT as TARGET_OUTPUT,
} from "../helpers/hornetSnapshots.js";
import { iota } from "../helpers/iota.js";
import { removeDir, tempDir } from "../helpers/node.js";
import { NodeProcess } from "../helpers/nodeProcess.js";

/**
 * Hornet's own test snapshots (test/fixtures/hornet) through the real node process, as Hornet's
 * `TestSnapshot` and migration tests use them:
 * - full + delta: refused without `--snapshot-unverified` (their milestones are placeholders),
 *   with the reason and the flag named; with it, output `0x09…09` holds 40,000,000 and the
 *   treasury the token supply less 40,000,000 (milestone 5's receipt moved 10,000,000), the
 *   receipt is listed (all, by its migratedAt, none at another index), `/metrics` shows the
 *   treasury, a restart keeps it, and a snapshot the node writes carries it in its header and
 *   starts another node with the same treasury, receipt and output;
 * - `migration_full_snapshot.bin` (no milestones, so no flag needed): a treasury of
 *   10,000,000,000 and no receipts.
 * The nodes follow network `alphanet1` (a network file with the snapshot's parameters; its
 * coordinator key is nobody's), with no peers: they serve what they imported.
 */

const ZERO_ID = `0x${"00".repeat(32)}`;

/** The treasury gauge of `/metrics`. */
async function treasuryGauge(node: NodeProcess, token: string): Promise<bigint> {
  const res = await fetch(`${node.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(res.status, 200);
  const line = (await res.text()).split("\n").find((l) => l.startsWith("iota_node_treasury_amount "));
  assert.ok(line, "the treasury gauge is exported");
  return BigInt(line.split(" ")[1]!);
}

describe("Hornet's test snapshots in the real node process", { timeout: 60_000 }, () => {
  let work: string;
  let network: string;
  const nodes: NodeProcess[] = [];
  const node = async (name: string, flags: string[]) => {
    const n = await NodeProcess.create(name, flags);
    nodes.push(n);
    return started(n);
  };

  before(async () => {
    work = await tempDir("hornet-snapshots");
    network = await networkFileFor(FULL, join(work, "alphanet1.json"));
  });
  after(async () => {
    for (const n of nodes) await n.dispose();
    await removeDir(work);
  });

  it("refuses the placeholder milestones without --snapshot-unverified, naming the flag", async () => {
    const dataDir = join(work, "refused");
    const r = spawnSync(
      process.execPath,
      [
        ...["dist/src/cli/main.js", "--data-dir", dataDir, "--api-port", "0", "--p2p-port", "0"],
        ...["--network-config", network, "--snapshot", FULL, "--delta-snapshot", DELTA],
      ],
      { encoding: "utf8", timeout: 30_000 },
    );
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /SNAPSHOT_UNVERIFIED/);
    assert.match(r.stderr, /signature \d of milestone 3 does not verify/);
    assert.match(r.stderr, /--snapshot-unverified/);
    await assert.rejects(stat(dataDir), "the data dir was not created");
  });

  it("with --snapshot-unverified: Hornet's TestSnapshot ledger and treasury, the receipt, metrics, restart, a snapshot of its own", async () => {
    const snapshotFlags = ["--snapshot", FULL, "--delta-snapshot", DELTA, "--snapshot-unverified"];
    const a = await node("hornet", ["--network-config", network, ...snapshotFlags]);
    assert.match(a.output, /"level":40.*--snapshot-unverified/, "the flag is logged at warn");
    const client = new iota.SingleNodeClient(a.url);
    const expectTreasury = async (n: NodeProcess, what: string) => {
      const t = await new iota.SingleNodeClient(n.url).treasury();
      assert.equal(BigInt(t.amount), SUPPLY - 40_000_000n, `${what}: the supply less 40,000,000`);
      const confirmed = (await n.info()).status.confirmedMilestone;
      assert.equal(confirmed.index, 5);
      assert.equal(t.milestoneId, confirmed.milestoneId, `${what}: made by milestone 5`);
      return t;
    };

    // Hornet's TestSnapshot: the output of 9s and the treasury
    const output = await client.output(TARGET_OUTPUT);
    assert.equal(output.output.amount, "40000000");
    assert.equal(output.metadata.milestoneIndexBooked, 5);
    const treasury = await expectTreasury(a, "imported");
    assert.notEqual(treasury.milestoneId, ZERO_ID);

    // the receipt of milestone 5 (migratedAt 9001, 10,000,000 to the zero address)
    const all = await client.receipts();
    assert.equal(all.receipts.length, 1);
    const { receipt, milestoneIndex } = all.receipts[0]!;
    assert.equal(milestoneIndex, 5);
    assert.equal(receipt.migratedAt, 9001);
    assert.equal(receipt.funds[0].deposit, "10000000");
    assert.equal(receipt.transaction.output.amount, treasury.amount);
    assert.deepEqual(await client.receipts(9001), all);
    assert.deepEqual(await client.receipts(9000), { receipts: [] });
    const token = a.token();
    assert.equal(await treasuryGauge(a, token), SUPPLY - 40_000_000n);

    // a restart resumes the data dir (the snapshot flags are ignored then) with the same treasury
    assert.equal(await a.stop(), 0);
    await started(a);
    assert.doesNotMatch(a.output, /--snapshot-unverified/, "nothing imported, nothing to warn of");
    assert.deepEqual(await expectTreasury(a, "after a restart"), treasury);
    assert.equal((await client.receipts()).receipts.length, 1);

    // a snapshot of its own: the treasury in the header, and it starts another node
    const res = await fetch(`${a.url}/api/core/v2/control/snapshot/create`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ index: 5 }),
    });
    assert.equal(res.status, 200);
    const { filePath } = (await res.json()) as { filePath: string };
    const header = await readSnapshotHeader(filePath);
    assert.equal(header.type, SnapshotType.Full);
    if (header.type !== SnapshotType.Full) return;
    assert.equal(header.treasuryOutputAmount, SUPPLY - 40_000_000n);
    assert.equal(`0x${Buffer.from(header.treasuryOutputMilestoneId).toString("hex")}`, treasury.milestoneId);
    const b = await node("rewritten", ["--network-config", network, "--snapshot", filePath, "--snapshot-unverified"]);
    assert.deepEqual(await expectTreasury(b, "re-imported"), treasury);
    assert.deepEqual(await new iota.SingleNodeClient(b.url).receipts(), all);
    assert.equal((await new iota.SingleNodeClient(b.url).output(TARGET_OUTPUT)).output.amount, "40000000");
  });

  it("migration_full_snapshot.bin: a treasury of 10,000,000,000 and no receipts", async () => {
    const config = await networkFileFor(MIGRATION, join(work, "migration.json"));
    const m = await node("migration", ["--network-config", config, "--snapshot", MIGRATION]);
    const client = new iota.SingleNodeClient(m.url);
    assert.deepEqual(await client.treasury(), { milestoneId: ZERO_ID, amount: "10000000000" });
    assert.deepEqual(await client.receipts(), { receipts: [] });
    assert.deepEqual(await client.receipts(0), { receipts: [] });
    assert.equal(await treasuryGauge(m, m.token()), 10_000_000_000n);
    // the one output holds the rest of the supply
    const outputs = (await m.json("/api/indexer/v1/outputs/basic")) as { items: string[] };
    assert.equal(outputs.items.length, 1);
    const amount = (await client.output(outputs.items[0]!)).output.amount;
    assert.equal(BigInt(amount) + 10_000_000_000n, SUPPLY);
  });
});
