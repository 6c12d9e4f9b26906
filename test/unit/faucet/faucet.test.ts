import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { addressToBech32, serializeAddressBytes } from "../../../src/codec/address.js";
import { decodeBlock, encodeBlock } from "../../../src/codec/block.js";
import { bytesEqual, fromHex } from "../../../src/codec/hex.js";
import { computeTransactionId, outputIdFromParts } from "../../../src/codec/ids.js";
import { decodeOutput } from "../../../src/codec/outputs/output.js";
import {
  type Address,
  type Ed25519Address,
  type Output,
  PayloadType,
  type TransactionPayload,
} from "../../../src/codec/types.js";
import {
  defaultFaucetOptions,
  Faucet,
  FaucetErrorCode,
  type FaucetOptions,
  isFaucetError,
} from "../../../src/faucet/index.js";
import { basicOutputDeposit } from "../../../src/faucet/transaction.js";
import { IndexedField } from "../../../src/indexer/index.js";
import { DEV_KEY, DEV_TOKEN_SUPPLY } from "../../../src/node/devNetwork.js";
import { InclusionState } from "../../../src/storage/index.js";
import { basicTo, devTransaction, type Harness, openHealthyHarness } from "../../helpers/coreHarness.js";
import { wallet } from "../../helpers/txBuilder.js";
import { devWallet } from "../../helpers/wallet.js";

/**
 * The faucet on a real node (in process, milestones issued by hand): the queue and its
 * refusals, one transaction per milestone paying a batch, settling when a milestone includes
 * it, and a conflicting transaction re-queued and paid once by the next.
 */

const AMOUNT = 1_000_000_000n;

function options(extra: Partial<FaucetOptions> = {}): FaucetOptions {
  return { ...defaultFaucetOptions, seed: fromHex(DEV_KEY.seed, "seed", 32), ...extra };
}

let counter = 0;
/** A fresh Ed25519 address and its bech32 form. */
function freshAddress(): { address: Ed25519Address; bech32: string } {
  const { address } = wallet(`faucet test ${counter++} ${process.pid}`);
  return { address, bech32: addressToBech32(address, "tst") };
}

/** The unspent outputs of `address` (a basic output's address unlock condition) with their IDs. */
async function outputsOf(h: Harness, address: Address): Promise<{ outputId: Uint8Array; output: Output }[]> {
  const page = await h.node.indexer.outputs({
    type: 3,
    fields: [{ field: IndexedField.Address, value: serializeAddressBytes(address) }],
    pageSize: 1000,
  });
  const records = await h.node.db.outputs.getMany(page.items);
  return records.map((r, i) => ({ outputId: page.items[i]!, output: decodeOutput(r!.outputBytes) }));
}

async function pendingTransaction(h: Harness, faucet: Faucet): Promise<TransactionPayload> {
  const blockId = faucet.pendingBlockId;
  assert.ok(blockId, "a transaction is pending");
  const block = decodeBlock((await h.node.tangle.getBlockBytes(blockId))!);
  assert.equal(block.payload?.type, PayloadType.Transaction);
  return block.payload as TransactionPayload;
}

async function rejects(p: Promise<unknown>, code: FaucetErrorCode, message: RegExp): Promise<void> {
  await assert.rejects(p, (e) => {
    assert.ok(isFaucetError(e, code), `${code}: ${(e as Error).message}`);
    assert.match((e as Error).message, message);
    return true;
  });
}

describe("faucet", () => {
  let h: Harness;
  const made: Faucet[] = [];
  const errors: unknown[] = [];
  /** A faucet over the harness's node that acts only when `tick` is called. */
  const manual = (extra: Partial<FaucetOptions> = {}) => {
    const f = new Faucet(
      {
        tangle: h.node.tangle,
        indexer: h.node.indexer,
        intake: h.node.intake,
        outputs: h.node.db.outputs,
        onError: (e: unknown) => errors.push(e),
      },
      options(extra),
    );
    made.push(f);
    return f;
  };
  /** Issues a milestone and lets `faucet` answer it. */
  const milestone = async (faucet: Faucet) => {
    const ms = await h.node.coordinator.issueMilestone();
    await faucet.tick();
    return ms;
  };

  before(async () => {
    h = await openHealthyHarness({ minPowScore: 0, faucet: false });
  });
  after(async () => {
    for (const f of made) await f.stop();
    await h.close();
  });

  it("pays a batch in one transaction after a milestone and settles once a milestone includes it", async () => {
    assert.equal(h.node.faucet, undefined, "--faucet false: the node runs none");
    const faucet = manual();
    const before = await faucet.balance();
    assert.equal(before, DEV_TOKEN_SUPPLY, "the dev key holds the genesis");
    const wanted = [freshAddress(), freshAddress(), freshAddress()];
    for (const [i, a] of wanted.entries()) {
      const r = await faucet.enqueue(a.bech32);
      assert.deepEqual(r, { address: a.bech32, waitingRequests: i + 1 });
    }
    assert.equal(await faucet.balance(), before - 3n * AMOUNT, "the balance counts what the queue will pay");

    await milestone(faucet);
    const tx = await pendingTransaction(h, faucet);
    assert.equal(faucet.queued, 0);
    assert.equal(faucet.waitingRequests, 3, "paid but not confirmed: still waiting");
    const outs = tx.essence.outputs;
    assert.equal(outs.length, 4, "three payments and the remainder");
    for (const [i, a] of wanted.entries()) assert.deepEqual(outs[i], basicTo(a.address.pubKeyHash, AMOUNT));
    assert.deepEqual(outs[3], basicTo(devWallet().address.pubKeyHash, DEV_TOKEN_SUPPLY - 3n * AMOUNT));
    assert.deepEqual(tx.essence.inputs.length, 1);
    assert.equal(new TextDecoder().decode(tx.essence.payload!.tag), "ledger-node faucet");

    const blockId = faucet.pendingBlockId!;
    await milestone(faucet);
    assert.equal(faucet.pendingBlockId, undefined);
    assert.equal(faucet.waitingRequests, 0);
    assert.equal((await h.node.tangle.getMetadata(blockId))?.inclusionState, InclusionState.Included);
    const txId = computeTransactionId(tx);
    for (const a of wanted) {
      const owned = await outputsOf(h, a.address);
      assert.equal(owned.length, 1);
      assert.equal(owned[0]!.output.amount, AMOUNT);
      assert.ok(bytesEqual(owned[0]!.outputId.subarray(0, 32), txId), "all paid by one transaction");
    }
    assert.equal(await faucet.balance(), before - 3n * AMOUNT);
  });

  it("pays at most batchSize requests per transaction, one transaction in flight at a time", async () => {
    const faucet = manual({ batchSize: 2 });
    const wanted = Array.from({ length: 5 }, freshAddress);
    for (const a of wanted) await faucet.enqueue(a.bech32);
    const paidBy: number[] = [];
    for (let round = 0; round < 4 && faucet.waitingRequests > 0; round++) {
      await milestone(faucet);
      if (faucet.pendingBlockId) paidBy.push((await pendingTransaction(h, faucet)).essence.outputs.length - 1);
    }
    assert.deepEqual(paidBy, [2, 2, 1], "three transactions, each after the previous one was included");
    assert.equal(faucet.waitingRequests, 0);
    for (const a of wanted) assert.equal((await outputsOf(h, a.address)).length, 1, "each paid once");
  });

  it("re-queues the requests of a conflicting transaction and pays them once with the next", async () => {
    const faucet = manual();
    const a = freshAddress();
    await faucet.enqueue(a.bech32);
    // a competing spend of the faucet's only output, made a tip before the faucet builds: the
    // faucet's block approves it, so white-flag applies it first and the faucet's conflicts
    const [own] = await outputsOf(h, devWallet().address);
    assert.ok(own);
    const competing = devTransaction([own], [own.output], devWallet().keyPair);
    await h.node.submitBlock(
      encodeBlock({ protocolVersion: 2, parents: h.node.tangle.selectParents(), payload: competing, nonce: 0n }),
    );
    await faucet.tick();
    const first = faucet.pendingBlockId!;
    assert.ok(first);
    await milestone(faucet);
    const meta = await h.node.tangle.getMetadata(first);
    assert.equal(meta?.inclusionState, InclusionState.Conflicting);
    assert.ok(faucet.pendingBlockId && !bytesEqual(faucet.pendingBlockId, first), "rebuilt at once");
    assert.ok(
      errors.some((e) => /conflicted/.test(String(e))),
      "the conflict is reported",
    );
    await milestone(faucet);
    assert.equal(faucet.waitingRequests, 0);
    assert.equal((await outputsOf(h, a.address)).length, 1, "paid exactly once");
  });

  it("refuses invalid addresses, duplicates, repeated and rich addresses, a full queue and busy clients", async () => {
    const faucet = manual({ queueSize: 2, perClient: { requests: 2, periodMs: 60_000, burst: 2 } });
    await rejects(
      faucet.enqueue("tst1notanaddress"),
      FaucetErrorCode.InvalidAddress,
      /^Invalid bech32 address provided!$/,
    );
    await rejects(
      faucet.enqueue(addressToBech32(freshAddress().address, "rms")),
      FaucetErrorCode.InvalidAddress,
      /^Invalid bech32 address provided! Address does not start with "tst"\.$/,
    );
    const rich = addressToBech32(devWallet().address, "tst");
    await rejects(
      faucet.enqueue(rich),
      FaucetErrorCode.EnoughFunds,
      /^You already have enough funds on your address\.$/,
    );
    const a = freshAddress();
    await faucet.enqueue(a.bech32);
    await rejects(faucet.enqueue(a.bech32), FaucetErrorCode.AlreadyQueued, /^Address is already in the queue\.$/);
    // the same address in upper case is the same address
    await rejects(faucet.enqueue(a.bech32.toUpperCase()), FaucetErrorCode.AlreadyQueued, /already in the queue/);
    await faucet.enqueue(freshAddress().bech32);
    await rejects(faucet.enqueue(freshAddress().bech32), FaucetErrorCode.QueueFull, /^Faucet queue is full/);

    // once paid, the address may not ask again within its period
    await milestone(faucet);
    await milestone(faucet);
    assert.equal(faucet.waitingRequests, 0);
    await rejects(faucet.enqueue(a.bech32), FaucetErrorCode.AddressRateLimited, /already requested funds recently/);

    faucet.takeClientRequest("192.0.2.1");
    faucet.takeClientRequest("192.0.2.1");
    assert.throws(
      () => faucet.takeClientRequest("192.0.2.1"),
      (e) => isFaucetError(e, FaucetErrorCode.ClientRateLimited) && /rate limit exceeded/.test((e as Error).message),
    );
    faucet.takeClientRequest("192.0.2.2");
  });

  it("refuses every request when its key holds nothing", async () => {
    const faucet = manual({ seed: new Uint8Array(32).fill(7) });
    assert.equal(await faucet.balance(), 0n);
    await rejects(faucet.enqueue(freshAddress().bech32), FaucetErrorCode.NoFunds, /does not have enough funds/);
  });

  it("refuses options it cannot work with", () => {
    for (const extra of [{ batchSize: 128 }, { batchSize: 0 }, { amount: 1n }, { maxAddressBalance: 1n }]) {
      assert.throws(
        () => manual(extra),
        (e) => isFaucetError(e, FaucetErrorCode.InvalidOptions),
        JSON.stringify(extra, (_k, v) => (typeof v === "bigint" ? String(v) : v)),
      );
    }
  });

  it("answers the node's milestones once listening to them, and stops", async () => {
    const faucet = new Faucet(
      {
        tangle: h.node.tangle,
        indexer: h.node.indexer,
        intake: h.node.intake,
        outputs: h.node.db.outputs,
        onError: (e: unknown) => errors.push(e),
      },
      options(),
    );
    const detach = h.node.events.on("milestoneConfirmed", () => faucet.milestoneConfirmed());
    const a = freshAddress();
    await faucet.enqueue(a.bech32);
    await h.node.coordinator.issueMilestone();
    await faucet.idle();
    assert.ok(faucet.pendingBlockId, "sent after the milestone");
    await h.node.coordinator.issueMilestone();
    await faucet.idle();
    assert.equal(faucet.waitingRequests, 0);
    await faucet.stop();
    await faucet.enqueue(freshAddress().bech32);
    await h.node.coordinator.issueMilestone();
    await faucet.idle();
    assert.equal(faucet.pendingBlockId, undefined, "a stopped faucet sends nothing");
    detach();
  });

  /**
   * 1,134 outputs of one storage deposit each on the faucet's (the dev key's) address, all older
   * in the listing than the output holding its funds: the first 1,000 the faucet reads are dust.
   * Resolves with the funds and the deposit of one dust output.
   */
  const crowd = async (): Promise<{ funds: bigint; dust: bigint }> => {
    const dev = devWallet();
    const dust = basicOutputDeposit(
      { type: 0, pubKeyHash: dev.address.pubKeyHash },
      h.node.tangle.protocolParameters.rentStructure,
    );
    const own = await outputsOf(h, dev.address);
    let held = [own.reduce((a, b) => (b.output.amount > a.output.amount ? b : a))];
    for (let k = 0; k < 9; k++) {
      const total = held[0]!.output.amount;
      const outputs = [
        ...Array.from({ length: 126 }, () => basicTo(dev.address.pubKeyHash, dust)),
        basicTo(dev.address.pubKeyHash, total - 126n * dust),
      ];
      const tx = devTransaction(held, outputs, dev.keyPair);
      await h.node.submitBlock(
        encodeBlock({ protocolVersion: 2, parents: h.node.tangle.selectParents(), payload: tx, nonce: 0n }),
      );
      await h.node.coordinator.issueMilestone();
      held = [{ outputId: outputIdFromParts(computeTransactionId(tx), 126), output: outputs[126]! }];
    }
    return { funds: held[0]!.output.amount, dust };
  };

  it("pays from funds hidden behind a crowd of dust, gathers the dust, and after a restart sweeps until it sees them", async () => {
    const dev = devWallet();
    const before = (await outputsOf(h, dev.address)).reduce((sum, o) => sum + o.output.amount, 0n);
    const { funds, dust } = await crowd();
    assert.ok(funds > 10n * AMOUNT);

    // a faucet that did not see its funds arrive (a restart) reads dust only: it refuses, and
    // with nobody waiting gathers 128 outputs per milestone until its funds come into view
    const restarted = manual();
    assert.ok((await restarted.balance()) < AMOUNT);
    await rejects(restarted.enqueue(freshAddress().bech32), FaucetErrorCode.NoFunds, /does not have enough funds/);
    let sweeps = 0;
    for (let i = 0; i < 6 && (await restarted.balance()) < AMOUNT; i++) {
      await milestone(restarted);
      if (restarted.pendingBlockId) {
        const tx = await pendingTransaction(h, restarted);
        assert.equal(tx.essence.inputs.length, 128, "a sweep spends as many outputs as it may");
        assert.equal(tx.essence.outputs.length, 1, "into one, the faucet's own");
        sweeps++;
      }
    }
    assert.ok(sweeps >= 1 && sweeps <= 3, `${sweeps} sweeps`);
    assert.ok((await restarted.balance()) >= funds, "its funds in view");

    // paying: the change is the newest output, behind the dust that is left, and still in view
    for (let round = 0; round < 3; round++) {
      const a = freshAddress();
      await restarted.enqueue(a.bech32);
      await milestone(restarted);
      const tx = await pendingTransaction(h, restarted);
      assert.equal(tx.essence.outputs.length, 2, "the payment and the change");
      await milestone(restarted);
      assert.equal(restarted.waitingRequests, 0, `round ${round} paid`);
      assert.equal((await outputsOf(h, a.address)).length, 1);
      assert.ok((await restarted.balance()) > funds - 4n * AMOUNT, `round ${round}: the change in view`);
    }
    // what is left of the crowd is gathered down to what one transaction can spend
    for (let i = 0; i < 10; i++) {
      if (!restarted.pendingBlockId && (await ownCount(h, dev.address)) <= 128) break;
      await milestone(restarted);
    }
    assert.ok((await ownCount(h, dev.address)) <= 128);
    assert.equal(
      (await restarted.balance()) + 3n * AMOUNT,
      funds + 1134n * dust,
      "every output of the crowd is the faucet's now, in view",
    );
    assert.equal(funds + 1134n * dust, before, "the crowd was made of the faucet's own funds");
  });

  it("gathers the crowd instead of dropping its queue when the 128 largest outputs in view cannot pay", async () => {
    const { funds, dust } = await crowd();
    // an amount the first 1,000 outputs cover (enqueue takes it) but 128 of them do not
    const amount = 300n * dust;
    const faucet = manual({ amount });
    const a = freshAddress();
    await faucet.enqueue(a.bech32);
    const before = errors.length;
    for (let i = 0; i < 8 && faucet.waitingRequests > 0; i++) await milestone(faucet);
    assert.equal(faucet.waitingRequests, 0, "paid");
    assert.equal((await outputsOf(h, a.address))[0]?.output.amount, amount);
    assert.ok(
      errors.slice(before).every((e) => !/cannot pay/.test(String(e))),
      "nothing dropped for want of funds",
    );
    assert.ok((await faucet.balance()) >= funds - amount);
  });
});

/** How many unspent basic outputs `address` holds (every page of the listing). */
async function ownCount(h: Harness, address: Address): Promise<number> {
  let count = 0;
  let cursor: Parameters<typeof h.node.indexer.outputs>[0]["cursor"];
  do {
    const page = await h.node.indexer.outputs({
      type: 3,
      fields: [{ field: IndexedField.Address, value: serializeAddressBytes(address) }],
      pageSize: 1000,
      cursor,
    });
    count += page.items.length;
    cursor = page.next;
  } while (cursor);
  return count;
}
