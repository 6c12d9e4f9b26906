import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LedgerNode } from "../../src/node/node.js";
import { defaultNodeOptions, type NodeOptions } from "../../src/node/options.js";

/**
 * Starting nodes in the tests' own process: temporary data directories, free loopback ports, and
 * a `LedgerNode` opened the way tests want it (no PoW, no logs) and closed with its directory.
 * Node processes are in nodeProcess.ts, in-process nodes with a P2P network in network.ts.
 */

/** A fresh temporary directory, `ledger-node-<name>-XXXXXX`. */
export function tempDir(name: string): Promise<string> {
  return mkdtemp(join(tmpdir(), `ledger-node-${name}-`));
}

/** Removes a directory made by `tempDir` with everything in it. */
export function removeDir(dir: string): Promise<void> {
  return rm(dir, { recursive: true, force: true });
}

/**
 * A node's options for a test: the defaults on `dataDir`, no PoW required, no logs, no dev
 * accounts (the dev key holds the whole genesis, as the tests' ledgers assume); `options` on top.
 */
export function testNodeOptions(dataDir: string, options: Partial<NodeOptions> = {}): NodeOptions {
  return { ...defaultNodeOptions, dataDir, minPowScore: 0, logLevel: "silent", devAccounts: 0, ...options };
}

/** Opens a node on `dataDir` with `testNodeOptions` (the coordinator is left to the test). */
export function openNode(dataDir: string, options: Partial<NodeOptions> = {}): Promise<LedgerNode> {
  return LedgerNode.open(testNodeOptions(dataDir, options));
}

/** A node on a temporary data directory of its own. */
export interface TempNode {
  node: LedgerNode;
  dir: string;
  /** Closes the node and opens it again on the same directory (a restart); answers the new node. */
  reopen(): Promise<LedgerNode>;
  /** Closes the node and removes its directory. */
  close(): Promise<void>;
}

/** Opens a node with `testNodeOptions` on a fresh `tempDir(name)`. */
export async function openTempNode(name: string, options: Partial<NodeOptions> = {}): Promise<TempNode> {
  const dir = await tempDir(name);
  const t: TempNode = {
    node: await openNode(dir, options),
    dir,
    async reopen() {
      await t.node.close();
      t.node = await openNode(dir, options);
      return t.node;
    },
    async close() {
      await t.node.close();
      await removeDir(dir);
    },
  };
  return t;
}
