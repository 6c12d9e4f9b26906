import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { encodeBlock } from "../../src/codec/block.js";
import { fromHex } from "../../src/codec/hex.js";
import { closeMinerPool, minerPool, powDigest, withNonce } from "../../src/pow/index.js";
import { type NodeProcess, startNodeProcess } from "../helpers/nodeProcess.js";

/**
 * Threat: node-side PoW for anyone, without a quota. Clients flood the node with blocks without
 * a nonce: four send 30 KB blocks, sixteen send small ones, all at once and without pause, while
 * honest clients send their own mined blocks (many tips, so milestones need checkpoints). The
 * node mines at most `--pow-queue` of them at a time (the rest answer 503 with the reason), and
 * its own checkpoints are mined in threads of their own, so milestones keep their cadence: no
 * gap reaches twice the interval (docs/decisions.md, Threats).
 */
describe("threat: a flood of blocks for the node to mine", () => {
  const INTERVAL = 1000;
  let node: NodeProcess;
  before(async () => {
    node = await startNodeProcess([
      "--milestone-interval",
      String(INTERVAL),
      "--min-pow-score",
      "100",
      "--pow-workers",
      "1",
      "--pow-queue",
      "4",
      "--pow-timeout",
      "4000",
      "--p2p-port",
      "0",
    ]);
  });
  after(async () => {
    await node?.close();
    await closeMinerPool();
  });

  const hex = (n: number, byte: number) => `0x${byte.toString(16).padStart(2, "0").repeat(n)}`;
  const submit = (data: string, tag: number) =>
    fetch(`${node.url}/api/core/v2/blocks`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ protocolVersion: 2, payload: { type: 5, tag: hex(4, tag), data } }),
    });
  const confirmedIndex = async (): Promise<number> =>
    (
      (await (await fetch(`${node.url}/api/core/v2/info`)).json()) as {
        status: { confirmedMilestone: { index: number } };
      }
    ).status.confirmedMilestone.index;

  it("bounds the queue with 503s and keeps the milestone cadence", async () => {
    const statuses = new Map<number, number>();
    const reasons = new Set<string>();
    const until = Date.now() + 12_000;
    const client = async (size: number, tag: number) => {
      while (Date.now() < until) {
        const res = await submit(hex(size, tag), tag).catch(() => undefined);
        if (!res) continue;
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        const body = (await res.json()) as { error?: { details: string } };
        if (res.status === 503) {
          reasons.add(body.error!.details);
          await new Promise((r) => setTimeout(r, 100));
        } else if (res.status !== 201) assert.fail(`${res.status} ${JSON.stringify(body)}`);
      }
    };
    // honest clients mine their blocks themselves, each on a recent block rather than on all
    // tips, so the tips pile up and every milestone needs checkpoints
    let honest = 0;
    let anchor = { id: "", at: 0 };
    const honestClient = async (n: number) => {
      while (Date.now() < until) {
        if (Date.now() - anchor.at > 1000) {
          const tips = ((await (await fetch(`${node.url}/api/core/v2/tips`)).json()) as { tips: string[] }).tips;
          anchor = { id: tips[0]!, at: Date.now() };
        }
        const payload = { type: 5 as const, tag: Uint8Array.of(n), data: Uint8Array.of(honest & 0xff, honest >> 8) };
        let bytes = encodeBlock({ protocolVersion: 2, parents: [fromHex(anchor.id, "tip", 32)], payload, nonce: 0n });
        bytes = withNonce(bytes, await minerPool().mine(powDigest(bytes), 100, bytes.length, { workers: 1 }));
        const res = await fetch(`${node.url}/api/core/v2/blocks`, {
          method: "POST",
          headers: { "content-type": "application/vnd.iota.serializer-v1" },
          body: bytes,
        });
        if (res.status === 201) honest++;
        await res.arrayBuffer();
      }
    };
    // the milestones, watched as they come. An answer shows the node at some moment between its
    // question and its arrival, so a new milestone was confirmed after the previous question and
    // before this answer: the bounds hold however slowly this loaded process polls
    let asked = Date.now();
    const seen: { index: number; after: number; by: number }[] = [
      { index: await confirmedIndex(), after: asked, by: Date.now() },
    ];
    const watch = (async () => {
      while (Date.now() < until + 1_000) {
        const previousAsk = asked;
        asked = Date.now();
        const index = await confirmedIndex();
        if (index !== seen[seen.length - 1]!.index) seen.push({ index, after: previousAsk, by: Date.now() });
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    await Promise.all([
      ...[1, 2, 3, 4].map((t) => client(30_000, t)),
      ...Array.from({ length: 16 }, (_, i) => client(32, 16 + i)),
      ...[1, 2, 3].map(honestClient),
      watch,
    ]);
    // the least each gap can have been, from those bounds, and the gap as this process saw it
    const least = seen.slice(2).map((s, i) => s.after - seen[i + 1]!.by);
    const observed = seen.slice(1).map((s, i) => s.by - seen[i]!.by);
    assert.ok(seen.length >= 8, `${seen.length - 1} milestones in 13 s`);
    assert.ok(
      Math.max(...least) < 2 * INTERVAL,
      `milestone gaps of at least ${least.join(", ")} ms (seen as ${observed.join(", ")} ms)`,
    );
    assert.ok((statuses.get(201) ?? 0) > 0, "blocks were mined and accepted");
    assert.ok((statuses.get(503) ?? 0) > 0, "the queue bound answered 503");
    assert.ok(
      [...reasons].every((r) => /proof-of-work queue is full|proof of work took longer/.test(r)),
      [...reasons].join("; "),
    );
  });
});
