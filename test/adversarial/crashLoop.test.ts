import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { addressToBech32 } from "../../src/codec/address.js";
import { encodeBlock } from "../../src/codec/block.js";
import { toHex } from "../../src/codec/hex.js";
import type { ConsumedOutput } from "../../src/ledger/semantic/types.js";
import { DEV_TOKEN_SUPPLY } from "../../src/node/devNetwork.js";
import type { Json } from "../helpers/iota.js";
import { confirmedIndex, waitForMilestone, waitForReferenced } from "../helpers/milestones.js";
import { client, NodeProcess, unspentBasicOutputs } from "../helpers/nodeProcess.js";
import { Rng } from "../helpers/random.js";
import { wallet } from "../helpers/txBuilder.js";
import { waitFor } from "../helpers/waitFor.js";
import { devWallet, genesisInput, payment } from "../helpers/wallet.js";

/**
 * Threat: crashes at any moment. The node process is killed with SIGKILL six times, each at a
 * random moment while two chains of dev-wallet payments are submitted over HTTP, and restarted
 * on the same data directory; every other kill is aimed right after a milestone. After each
 * restart the node must show exactly what it had acknowledged and confirmed: every block answered
 * 201 before the kill is still known (a block is acknowledged only once it is written); every
 * block seen included before a kill is still included, by the same milestone;
 * the unspent outputs sum to the token supply; the dev address holds exactly the two chains'
 * change outputs; and milestones continue from where they were (docs/decisions.md, Threats).
 * The payments are deterministic (same input, same transaction), so a wallet that lost the
 * answer to a submission resumes from what the node's ledger says and builds the same
 * transaction again. Set CRASH_LOOP_SEED to replay the kill moments of a run.
 */
describe("threat: SIGKILL at random moments under transfer load, six times", () => {
  const CYCLES = 6;
  const CORE = "/api/core/v2";
  const BINARY = "application/vnd.iota.serializer-v1";
  const PAYMENT = 1_000_000n;
  const RECIPIENT = wallet("crash-loop recipient");
  const seed = Number(process.env.CRASH_LOOP_SEED ?? Math.floor(Math.random() * 2 ** 31));

  /** The kill moments of a run follow from its seed. */
  const rng = new Rng(seed);
  const random = () => rng.float();
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  let node: NodeProcess;
  before(async () => {
    node = await NodeProcess.create("crash-loop", ["--min-pow-score", "0"]);
  });
  after(async () => {
    await node?.dispose();
  });

  /** Starts the process on the node's data dir and waits for `/health` 200. */
  const startHealthy = async (): Promise<void> => {
    node.start();
    await node.waitHealthy(20_000);
  };
  /** An output's metadata, or undefined when the ledger does not hold it. */
  const outputMetadata = async (o: ConsumedOutput): Promise<Json | undefined> => {
    const { status, body } = await node.get(`${CORE}/outputs/${toHex(o.outputId)}/metadata`);
    if (status === 404) return undefined;
    assert.equal(status, 200, JSON.stringify(body));
    return body;
  };
  /** `fn` over `items`, at most `width` at a time. */
  const eachLimited = async <T>(items: T[], width: number, fn: (item: T) => Promise<void>): Promise<void> => {
    let next = 0;
    const worker = async () => {
      while (next < items.length) await fn(items[next++]!);
    };
    await Promise.all(Array.from({ length: width }, worker));
  };

  /** One chain of payments: each spends the previous change output of the dev wallet. */
  interface Chain {
    name: string;
    /** The chain's dev-owned outputs, oldest first; the last is where the next payment starts. */
    history: ConsumedOutput[];
  }
  const head = (c: Chain) => c.history[c.history.length - 1]!;

  /** Block ID → the milestone index that referenced it, for every block seen included. */
  const seenIncluded = new Map<string, number>();
  /** Answers other than 201 (and 503, retried) to a valid payment: the node must take them all. */
  const refused: string[] = [];
  const conflicting: string[] = [];

  /** Pays RECIPIENT from `chain` in a loop until `cycle.running` is false or the node is gone. */
  const load = async (chain: Chain, cycle: { running: boolean; submitted: string[] }): Promise<void> => {
    while (cycle.running) {
      const p = payment(head(chain), RECIPIENT, PAYMENT);
      const bytes = encodeBlock({ protocolVersion: 2, parents: [], payload: p.tx, nonce: 0n });
      let status: number;
      let text: string;
      try {
        const res = await fetch(`${node.url}${CORE}/blocks`, {
          method: "POST",
          headers: { "content-type": BINARY },
          body: bytes,
        });
        status = res.status;
        text = await res.text();
      } catch {
        return; // killed: the answer (and maybe the block) is lost
      }
      if (status === 503) {
        await sleep(20);
        continue;
      }
      if (status !== 201) {
        refused.push(`${chain.name}: ${status} ${text}`);
        return;
      }
      cycle.submitted.push((JSON.parse(text) as { blockId: string }).blockId);
      chain.history.push(p.outputs[1]!);
    }
  };

  /** Records, among `blockIds`, those the node says are included (and counts conflicting ones). */
  const recordIncluded = async (blockIds: string[]): Promise<void> => {
    await eachLimited(blockIds, 8, async (id) => {
      const m = await node.json(`${CORE}/blocks/${id}/metadata`);
      if (m.ledgerInclusionState === "included") seenIncluded.set(id, m.referencedByMilestoneIndex);
      else if (m.ledgerInclusionState === "conflicting") conflicting.push(`${id}: reason ${m.conflictReason}`);
    });
  };

  /**
   * Moves `chain` to its unspent change output in the node's ledger: back over outputs the
   * ledger does not hold (their blocks were lost or not confirmed yet), then forward over
   * spends the node confirmed although their answers were lost (the same deterministic payment).
   */
  const resync = async (chain: Chain): Promise<{ back: number; forward: number }> => {
    const moves = { back: 0, forward: 0 };
    let i = chain.history.length - 1;
    let meta = await outputMetadata(chain.history[i]!);
    while (meta === undefined && i > 0) meta = await outputMetadata(chain.history[--i]!);
    assert.ok(meta, `${chain.name}: its first output, confirmed before the kills, is in the ledger`);
    moves.back = chain.history.length - 1 - i;
    chain.history.length = i + 1;
    while (meta.isSpent) {
      const next = payment(head(chain), RECIPIENT, PAYMENT);
      assert.equal(
        meta.transactionIdSpent,
        toHex(next.outputs[1]!.outputId.subarray(0, 32)),
        `${chain.name}: ${toHex(head(chain).outputId)} spent by a transaction the wallet did not build`,
      );
      chain.history.push(next.outputs[1]!);
      meta = await outputMetadata(head(chain));
      assert.ok(meta, `${chain.name}: the change output of a confirmed payment is in the ledger`);
      moves.forward++;
    }
    return moves;
  };

  /** Output ID → amount as the node answers it (an output's content never changes). */
  const amounts = new Map<string, bigint>();
  const totalUnspent = async (): Promise<bigint> => {
    // the listing is of one ledger index (retried when a milestone lands between pages)
    const { ids } = await waitFor(() => unspentBasicOutputs(node), 20_000, "a consistent listing of basic outputs");
    await eachLimited(
      ids.filter((id) => !amounts.has(id)),
      8,
      async (id) => {
        amounts.set(id, BigInt((await node.json(`${CORE}/outputs/${id}`)).output.amount));
      },
    );
    return ids.reduce((sum, id) => sum + amounts.get(id)!, 0n);
  };

  /** Polls until the confirmed milestone passes `index`; answers the new index. */
  const nextMilestone = async (index: number): Promise<number> =>
    waitFor(
      async () => {
        const now = await confirmedIndex(node);
        return now > index ? now : undefined;
      },
      10_000,
      `a milestone after ${index}`,
      5,
    );
  let acknowledgedTotal = 0;

  it("keeps every acknowledged block, every confirmed one, the supply and the milestone sequence across six kills", async (t) => {
    t.diagnostic(`CRASH_LOOP_SEED=${seed}`);
    await startHealthy();
    const hrp = (await node.info()).protocol.bech32Hrp as string;
    const devAddress = addressToBech32(devWallet().address, hrp);

    // two dev-owned chains, split from the genesis output and confirmed before the kills
    const split = payment(genesisInput(), devWallet(), DEV_TOKEN_SUPPLY / 2n);
    const splitRes = await fetch(`${node.url}${CORE}/blocks`, {
      method: "POST",
      headers: { "content-type": BINARY },
      body: encodeBlock({ protocolVersion: 2, parents: [], payload: split.tx, nonce: 0n }),
    });
    assert.equal(splitRes.status, 201, await splitRes.clone().text());
    const splitBlock = ((await splitRes.json()) as { blockId: string }).blockId;
    await waitForReferenced(client(node), splitBlock, 20_000, "the split to be referenced");
    await recordIncluded([splitBlock]);
    assert.ok(seenIncluded.has(splitBlock), "the split is included");
    const chains: Chain[] = [
      { name: "chain A", history: [split.outputs[0]!] },
      { name: "chain B", history: [split.outputs[1]!] },
    ];

    const perCycle: string[] = [];
    for (let cycle = 1; cycle <= CYCLES; cycle++) {
      // load, then a kill at a random moment of it
      const run = { running: true, submitted: [] as string[] };
      const includedBefore = seenIncluded.size;
      const loads = chains.map((c) => load(c, run));
      const killAfter = 300 + Math.floor(random() * 1200);
      await sleep(killAfter);
      await recordIncluded(run.submitted.slice());
      let before = await confirmedIndex(node);
      // every other kill is aimed right after a milestone's confirmation, when its batch and
      // the next intake batch are being written
      if (cycle % 2 === 0) before = await nextMilestone(before);
      await node.stop("SIGKILL");
      run.running = false;
      await Promise.all(loads);
      // a block is answered 201 only once it is written: every one survives the kill
      const acknowledged = run.submitted.slice();

      // restart on the same data dir
      await startHealthy();
      const resumedAt = await confirmedIndex(node);
      assert.ok(resumedAt >= before, `cycle ${cycle}: milestone ${resumedAt} after the restart, ${before} before`);

      // every block answered 201 before the kill is still known (confirmed, or waiting for a milestone)
      const lost: string[] = [];
      await eachLimited(acknowledged, 8, async (id) => {
        const { status } = await node.get(`${CORE}/blocks/${id}/metadata`);
        if (status !== 200) lost.push(`${id}: ${status}`);
      });
      assert.deepEqual(lost, [], `cycle ${cycle}: blocks answered 201 and lost by the kill`);
      acknowledgedTotal += acknowledged.length;

      // every block seen included is still included, by the same milestone
      await eachLimited([...seenIncluded], 8, async ([id, index]) => {
        const m = await node.json(`${CORE}/blocks/${id}/metadata`);
        assert.equal(m.ledgerInclusionState, "included", `cycle ${cycle}: block ${id} ${JSON.stringify(m)}`);
        assert.equal(m.referencedByMilestoneIndex, index, `cycle ${cycle}: block ${id} ${JSON.stringify(m)}`);
      });

      // milestones continue past the one seen before the kill
      await waitForMilestone(node, resumedAt + 1, 20_000, `a milestone after ${resumedAt}`);

      // the unspent outputs sum to the supply
      assert.equal(await totalUnspent(), DEV_TOKEN_SUPPLY, `cycle ${cycle}: the sum of unspent outputs`);

      // each chain resumes from its change output in the ledger, and the dev address holds
      // exactly those two (retried if a block taken in before the kill is confirmed meanwhile)
      const moves = { back: 0, forward: 0 };
      await waitFor(
        async () => {
          for (const c of chains) {
            const m = await resync(c);
            moves.back += m.back;
            moves.forward += m.forward;
          }
          const listed = await node.json(`/api/indexer/v1/outputs/basic?address=${devAddress}&pageSize=1000`);
          const heads = chains.map((c) => toHex(head(c).outputId)).sort();
          return JSON.stringify([...(listed.items as string[])].sort()) === JSON.stringify(heads) ? true : undefined;
        },
        20_000,
        "the dev address to hold exactly the two chains' change outputs",
      );
      perCycle.push(
        `cycle ${cycle}: killed after ${killAfter} ms at milestone ${before} (${run.submitted.length} blocks taken in, ` +
          `${seenIncluded.size - includedBefore} seen included), resumed at ${resumedAt}; ` +
          `wallet: ${moves.back} change outputs not in the ledger, ${moves.forward} spends confirmed without an answer`,
      );
    }
    t.diagnostic(perCycle.join("\n"));
    t.diagnostic(
      `${acknowledgedTotal} blocks acknowledged before a kill, ${seenIncluded.size} seen included, ${conflicting.length} seen conflicting`,
    );
    assert.deepEqual(refused, [], "every valid payment is taken in");
    // the payments made progress: dozens of them confirmed across the cycles
    assert.ok(seenIncluded.size >= 6 * CYCLES, `${seenIncluded.size} blocks seen included`);
  });
});
