import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { encodeBlock } from "../../src/codec/block.js";
import { networkIdFromName, outputIdFromParts } from "../../src/codec/ids.js";
import type { Payload } from "../../src/codec/types.js";
import { MAX_EXAMINED_PER_REQUEST } from "../../src/indexer/indexer.js";
import type { ConsumedOutput } from "../../src/ledger/semantic/types.js";
import { type NodeProcess, startNodeProcess } from "../helpers/nodeProcess.js";
import { basic, buildTransaction } from "../helpers/txBuilder.js";
import { waitFor } from "../helpers/waitFor.js";
import { devWallet, genesisInput } from "../helpers/wallet.js";

/**
 * Threat: unbounded scans on request. A ledger of more unspent outputs than one request may
 * examine (MAX_EXAMINED_PER_REQUEST), each on its own address; then a listing whose filter
 * matches none of them (every basic output is examined and skipped) and the ledger-wide
 * rankings, asked by many clients at once. The listing stops after its budget and answers a
 * cursor to continue, the client following it gets the complete answer, and the rankings are
 * the same figures for everyone (docs/decisions.md, Threats).
 */
describe("threat: a listing that examines every output, and ledger-wide rankings on request", () => {
  const OUTPUTS = MAX_EXAMINED_PER_REQUEST + 1_500;
  const PER_TX = 127;
  let node: NodeProcess;
  let explorer: string;
  before(async () => {
    node = await startNodeProcess(["--milestone-interval", "500", "--min-pow-score", "0", "--p2p-port", "0"]);
    explorer = `${node.url}/api/explorer/v2`;
  });
  after(async () => {
    await node?.close();
  });

  const get = async (url: string) => {
    const res = await fetch(url);
    const body = (await res.json()) as { items: string[]; cursor?: string; ledgerIndex: number };
    assert.equal(res.status, 200, JSON.stringify(body));
    return body;
  };
  const submit = async (payload: Payload) => {
    const res = await fetch(`${node.url}/api/core/v2/blocks`, {
      method: "POST",
      headers: { "content-type": "application/vnd.iota.serializer-v1" },
      body: encodeBlock({ protocolVersion: 2, parents: [], payload, nonce: 0n }),
    });
    assert.equal(res.status, 201, await res.clone().text());
    return ((await res.json()) as { blockId: string }).blockId;
  };

  it("bounds the work of one listing request and computes rankings once for all", async () => {
    // the dev wallet pays 1 Mi to OUTPUTS addresses, 127 per transaction, chaining its change
    const dev = devWallet();
    let change: ConsumedOutput = genesisInput();
    let last = "";
    for (let paid = 0; paid < OUTPUTS; paid += PER_TX) {
      const n = Math.min(PER_TX, OUTPUTS - paid);
      const outputs = Array.from({ length: n }, (_, i) => {
        const pubKeyHash = new Uint8Array(32);
        new DataView(pubKeyHash.buffer).setUint32(0, paid + i + 1);
        return basic({ type: 0, pubKeyHash }, { amount: 1_000_000n });
      });
      outputs.push(basic(dev.address, { amount: change.output.amount - BigInt(n) * 1_000_000n }));
      const built = buildTransaction({
        networkId: networkIdFromName("dev"),
        inputs: [change],
        outputs,
        unlockers: [dev],
      });
      last = await submit(built.tx);
      change = {
        outputId: outputIdFromParts(built.ctx.transactionId, n),
        output: outputs[n]!,
        bookedMilestoneIndex: 0,
        bookedTimestamp: 0,
      };
    }
    await waitFor(
      async () => {
        const m = (await (await fetch(`${node.url}/api/core/v2/blocks/${last}/metadata`)).json()) as {
          ledgerInclusionState?: string;
        };
        return m.ledgerInclusionState === "included" ? true : undefined;
      },
      60_000,
      "the payments confirmed",
    );

    // 1. no output has native tokens: the first page stops after its budget, empty, with a cursor
    const listing = `${node.url}/api/indexer/v1/outputs/basic?hasNativeTokens=true&pageSize=1000`;
    const first = await get(listing);
    assert.deepEqual(first.items, []);
    assert.ok(first.cursor, "a cursor where the examination stopped");
    let pages = 1;
    let found = 0;
    for (let cursor: string | undefined = first.cursor; cursor; pages++) {
      const page = await get(`${listing}&cursor=${cursor}`);
      found += page.items.length;
      cursor = page.cursor;
    }
    assert.equal(found, 0);
    assert.equal(pages, Math.ceil((OUTPUTS + 1) / MAX_EXAMINED_PER_REQUEST), "each page examined its budget");

    // 2. a filter most outputs match fills its pages as before, and the cursors cover them all
    const all: string[] = [];
    for (let cursor: string | undefined = ""; cursor !== undefined; ) {
      const page = await get(
        `${node.url}/api/indexer/v1/outputs/basic?hasNativeTokens=false&pageSize=1000${cursor ? `&cursor=${cursor}` : ""}`,
      );
      assert.ok(page.items.length === 1000 || !page.cursor, "full pages while the filter matches");
      all.push(...page.items);
      cursor = page.cursor;
    }
    assert.equal(all.length, OUTPUTS + 1, "every payment and the change");
    assert.equal(new Set(all).size, all.length);

    // 3. fifty clients ask for the rankings at once: one set of figures at one ledger index
    const answers = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const res = await fetch(
          i % 2 ? `${explorer}/ledger/richest-addresses?top=1000` : `${explorer}/ledger/token-distribution`,
        );
        assert.equal(res.status, 200, await res.clone().text());
        return res.json() as Promise<{ ledgerIndex: number; top?: { balance: string }[]; distribution?: unknown[] }>;
      }),
    );
    const richest = answers.filter((a) => a.top);
    assert.equal(richest[0]!.top!.length, 1000);
    assert.equal(richest[0]!.top!.filter((t) => t.balance === "1000000").length, 999, "the dev wallet, then 1 Mi each");
    for (const a of richest) assert.deepEqual(a.top, richest[0]!.top);
    const distributions = answers.filter((a) => a.distribution);
    for (const d of distributions) assert.deepEqual(d.distribution, distributions[0]!.distribution);
  });
});
