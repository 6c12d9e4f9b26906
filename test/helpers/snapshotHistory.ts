/**
 * A ledger history for the snapshot tests: a real node (TangleBuilder) confirming milestones
 * with signed transactions that split, pay and consolidate outputs among a few wallets (plus an
 * NFT and an alias now and then), and after every milestone a copy of the ledger as the node
 * held it then (every unspent output with its stored record). Those copies are the oracle a
 * snapshot at an older index is compared with.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { encodeBlock } from "../../src/codec/block.js";
import { compareBytes, toHex } from "../../src/codec/hex.js";
import { networkIdFromName } from "../../src/codec/ids.js";
import { decodeOutput } from "../../src/codec/outputs/output.js";
import type { Output } from "../../src/codec/types.js";
import type { ConsumedOutput } from "../../src/ledger/semantic/types.js";
import { writeCoordinatorSeeds } from "../../src/node/keyFiles.js";
import type { LedgerNode } from "../../src/node/node.js";
import { importSnapshot, SnapshotManager } from "../../src/snapshot/index.js";
import { Bucket, decodeOutputRecord, defaultKvStoreOptions, idKey, KvStore } from "../../src/storage/index.js";
import { openNode, removeDir, tempDir } from "./node.js";
import { TangleBuilder } from "./tangleBuilder.js";
import { alias, basic, buildTransaction, nft, type Wallet, wallet } from "./txBuilder.js";
import { devWallet, genesisInput } from "./wallet.js";

/**
 * Every unspent output (hex ID → its booking and bytes: block ID ‖ booked index ‖ booked
 * timestamp ‖ output, the layout of a TIP-35 output entry) and their sum. The spending and the
 * proof kept in the `Output` record are left out: a node started from a snapshot has the genesis
 * form of the proof for the outputs it imported.
 */
export interface LedgerState {
  outputs: Map<string, Uint8Array>;
  total: bigint;
}

/** The `LedgerState` entry of an `Output` record: its booking and its output. */
export function ledgerEntry(record: Uint8Array): Uint8Array {
  return Buffer.concat([record.subarray(0, 40), decodeOutputRecord(record).outputBytes]);
}

export async function readLedgerState(store: KvStore): Promise<LedgerState> {
  const ids: Uint8Array[] = [];
  for await (const key of store.scanKeys({ prefix: Uint8Array.of(Bucket.Unspent) })) ids.push(key.slice(1));
  const records = await store.getMany(ids.map((id) => idKey(Bucket.Output, id)));
  const outputs = new Map<string, Uint8Array>();
  let total = 0n;
  ids.forEach((id, i) => {
    const rec = records[i];
    assert.ok(rec, `unspent output ${toHex(id)} has no record`);
    assert.equal(decodeOutputRecord(rec).spent, undefined, `unspent output ${toHex(id)} is marked spent`);
    const entry = ledgerEntry(rec);
    outputs.set(toHex(id), entry);
    total += decodeOutput(entry.subarray(40)).amount;
  });
  return { outputs, total };
}

/** Asserts two ledgers hold the same outputs with the same records. */
export function assertSameLedger(actual: LedgerState, expected: LedgerState, what: string): void {
  assert.equal(actual.outputs.size, expected.outputs.size, `${what}: number of unspent outputs`);
  for (const [id, rec] of expected.outputs) {
    const got = actual.outputs.get(id);
    assert.ok(got, `${what}: ${id} is missing`);
    assert.equal(toHex(got), toHex(rec), `${what}: record of ${id}`);
  }
  assert.equal(actual.total, expected.total, `${what}: total`);
}

interface Spendable {
  input: ConsumedOutput;
  owner: Wallet;
}

const WALLETS = ["alice", "bob", "carol", "dave"].map(wallet);

export class History {
  /** Ledger after each milestone (0 = genesis). */
  readonly states = new Map<number, LedgerState>();
  /** Basic outputs that can be spent, confirmed ones only. */
  private pool: Spendable[] = [];
  /** The owner of every basic output ever created (hex output ID). */
  readonly owners = new Map<string, Spendable>();
  private counter = 0;

  private constructor(
    readonly tb: TangleBuilder,
    /** A temporary directory for the test's files (snapshots, other nodes' data), removed by `dispose`. */
    readonly dir: string,
  ) {}

  /** A history on a fresh node, run for `milestones` milestones of `txs` transactions each. */
  static async create(name = "history", milestones = 0, txs = 3): Promise<History> {
    const h = new History(await TangleBuilder.create(), await tempDir(name));
    const genesis = { input: genesisInput(), owner: devWallet() };
    h.pool.push(genesis);
    h.owners.set(toHex(genesis.input.outputId), genesis);
    h.states.set(0, await readLedgerState(h.tb.node.store));
    await h.run(milestones, txs);
    return h;
  }

  get node(): LedgerNode {
    return this.tb.node;
  }

  /** The index of the node's latest milestone. */
  get latest(): number {
    return this.node.tangle.latestMilestone.index;
  }

  /** A snapshot manager of the node writing to `directory` (default: `snapshots` in `dir`). */
  snapshots(directory = join(this.dir, "snapshots")): SnapshotManager {
    return new SnapshotManager({ store: this.node.store, belowMaxDepth: 15 }, { directory });
  }

  /** Confirms `milestones` milestones carrying `txs` transactions each. */
  async run(milestones: number, txs = 3): Promise<void> {
    for (let i = 0; i < milestones; i++) await this.step(txs);
  }

  /** One milestone: `txs` transactions spending confirmed outputs, then the milestone. */
  async step(txs = 3): Promise<number> {
    const created: Spendable[] = [];
    const blocks: Uint8Array[] = [];
    for (let t = 0; t < txs && this.pool.length > 0; t++) {
      const n = this.counter++;
      this.pool.sort((a, b) => (a.input.output.amount < b.input.output.amount ? 1 : -1));
      // every fourth transaction consolidates the two smallest outputs; the others split the largest
      const consolidate = n % 4 === 3 && this.pool.length >= 3;
      const inputs = consolidate ? this.pool.splice(-2, 2) : this.pool.splice(0, 1);
      const sum = inputs.reduce((s, x) => s + x.input.output.amount, 0n);
      const to = WALLETS[n % WALLETS.length]!;
      const outputs: Output[] = [];
      const owners: Wallet[] = [];
      if (consolidate || sum < 5_000_000n) {
        outputs.push(basic(to.address, { amount: sum }));
        owners.push(to);
      } else {
        const pay = 1_000_000n + BigInt(n) * 1000n;
        outputs.push(basic(to.address, { amount: pay }));
        owners.push(to);
        let rest = sum - pay;
        if (n % 5 === 1) {
          outputs.push(nft({ owner: to.address, amount: 1_000_000n }));
          rest -= 1_000_000n;
        } else if (n % 7 === 2) {
          outputs.push(alias({ stateController: to.address, governor: to.address, amount: 1_000_000n }));
          rest -= 1_000_000n;
        }
        outputs.push(basic(inputs[0]!.owner.address, { amount: rest }));
        owners.push(inputs[0]!.owner);
      }
      const built = this.tb.transaction({
        inputs: inputs.map((x) => x.input),
        outputs,
        unlockers: inputs.map((x) => x.owner),
      });
      blocks.push(await this.tb.block(built.tx));
      let basicIndex = 0;
      built.outputs.forEach((o, i) => {
        if (o.output.type !== 3) return;
        const s = { input: { outputId: o.outputId, output: outputs[i]! }, owner: owners[basicIndex++]! };
        created.push(s);
        this.owners.set(toHex(o.outputId), s);
      });
    }
    const ms = await this.tb.milestone();
    for (const b of blocks)
      assert.equal((await this.tb.metadata(b)).inclusionState, 1, "a history transaction conflicted");
    this.pool.push(...created);
    this.states.set(ms.index, await readLedgerState(this.tb.node.store));
    return ms.index;
  }

  async dispose(): Promise<void> {
    await this.tb.dispose();
    await removeDir(this.dir);
  }
}

/** Imports snapshot files into a fresh data directory and opens a node on it. */
export async function nodeFromSnapshot(
  dataDir: string,
  files: { fullPath: string; deltaPath?: string },
  coordinatorSeed?: Uint8Array,
): Promise<LedgerNode> {
  const store = await KvStore.open({ ...defaultKvStoreOptions, path: join(dataDir, "db") });
  try {
    await importSnapshot(store, { ...files, expectedNetworkName: "dev" });
  } finally {
    await store.close();
  }
  // the node that wrote the files goes on as their coordinator: it keeps its key
  if (coordinatorSeed) await writeCoordinatorSeeds(dataDir, [coordinatorSeed]);
  return openNode(dataDir);
}

/** Submits a block with a transaction to `node` (tip selection for parents unless given). */
export async function submitTransaction(
  node: LedgerNode,
  spend: Spendable[],
  outputs: Output[],
  parents?: Uint8Array[],
): Promise<{ blockId: Uint8Array; transactionId: Uint8Array }> {
  const built = buildTransaction({
    networkId: networkIdFromName("dev"),
    inputs: spend.map((s) => s.input),
    outputs,
    unlockers: spend.map((s) => s.owner),
  });
  const block = encodeBlock({
    protocolVersion: 2,
    parents: [...(parents ?? node.tangle.selectParents())].sort(compareBytes),
    payload: built.tx,
    nonce: 0n,
  });
  const { blockId } = await node.submitBlock(block);
  return { blockId, transactionId: built.ctx.transactionId };
}
