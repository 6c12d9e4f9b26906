/**
 * The node side of the signed-transfer workload (`bench core`, `bench api`): a fresh node on the
 * dev genesis with the workload's wallets funded, milestones on the coordinator's own timer while
 * clients submit, the clock stopped once the last block is referenced.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encodeBlock } from "../src/codec/block.js";
import type { TransactionPayload } from "../src/codec/types.js";
import { LedgerNode } from "../src/node/node.js";
import { benchNodeOptions } from "./_benchNode.js";
import type { FundedOutput } from "./_transfers.js";

export interface FundedNode {
  node: LedgerNode;
  dir: string;
}

/**
 * A node on a fresh database (PoW score 0: the workload's blocks are not mined) with the funding
 * transactions confirmed. Without `withIndexes` only the ledger is written (the figure of the
 * first stops); with them, the node as it runs: indexer, explorer and address ledger in every
 * milestone's batch.
 */
export async function fundedNode(txs: TransactionPayload[], withIndexes: boolean, name: string): Promise<FundedNode> {
  const dir = await mkdtemp(join(tmpdir(), `ledger-node-bench-${name}-`));
  const node = await LedgerNode.open(benchNodeOptions(dir));
  if (!withIndexes) for (const index of [...node.events.ledgerIndexes]) node.events.detachIndex(index);
  await node.coordinator.issueMilestone();
  for (const payload of txs) {
    const bytes = encodeBlock({ protocolVersion: 2, parents: node.tangle.selectParents(), payload, nonce: 0n });
    await node.submitBlock(bytes);
  }
  await node.coordinator.issueMilestone();
  return { node, dir };
}

/** Milestones every `intervalMs` on the coordinator's own timer, as in a running node. */
export function startMilestones(node: LedgerNode, intervalMs: number): void {
  node.coordinator.options.intervalMs = intervalMs;
  node.coordinator.start();
}

/** Resolves once every submitted block is referenced by a milestone (at most 30 s after the call). */
export async function untilReferenced(node: LedgerNode): Promise<void> {
  const since = performance.now();
  while (node.tangle.unreferencedCount() > 1 && performance.now() - since < 30_000) {
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** How many of the funded outputs a confirmed transfer spent. */
export async function spentCount(node: LedgerNode, funded: FundedOutput[]): Promise<number> {
  let spent = 0;
  for (const f of funded) if (!(await node.store.has(Uint8Array.of(0x07, ...f.id)))) spent++;
  return spent;
}

export async function closeFundedNode({ node, dir }: FundedNode): Promise<void> {
  await node.coordinator.stop();
  await node.close();
  await rm(dir, { recursive: true, force: true });
}
