import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { protocolParametersToJson } from "../../src/codec/protocolParameters.js";
import { readSnapshotHeader, SnapshotType } from "../../src/snapshot/index.js";
import type { NodeProcess } from "./nodeProcess.js";
import { waitFor } from "./waitFor.js";

/**
 * Hornet's test snapshots (test/fixtures/hornet, see its README) and what a node process needs to
 * start from them: a network file for their network and a wait for the startup line (a follower
 * without peers never turns healthy).
 */

export const FIXTURES = "test/fixtures/hornet";
export const HORNET_FULL = join(FIXTURES, "snapshot_full_snapshot.bin");
export const HORNET_DELTA = join(FIXTURES, "snapshot_delta_snapshot.bin");
export const HORNET_MIGRATION = join(FIXTURES, "migration_full_snapshot.bin");
export const HORNET_SUPPLY = 2_779_530_283_277_761n;
/** Hornet's `TestSnapshot` target: an output ID of 34 bytes of 0x09. */
export const HORNET_TARGET_OUTPUT = `0x${"09".repeat(34)}`;

/** A follower's network file for the network of snapshot `file`, with the snapshot's parameters. */
export async function networkFileFor(file: string, path: string): Promise<string> {
  const header = await readSnapshotHeader(file);
  assert.equal(header.type, SnapshotType.Full);
  if (header.type !== SnapshotType.Full) throw new Error("not a full snapshot");
  const p = header.protocolParameters.parameters;
  const genesis = {
    outputId: `0x${"00".repeat(34)}`,
    output: {
      type: 3,
      amount: p.tokenSupply.toString(),
      unlockConditions: [{ type: 0, address: { type: 0, pubKeyHash: `0x${"22".repeat(32)}` } }],
    },
  };
  const config = {
    networkName: p.networkName,
    protocol: protocolParametersToJson(p),
    coordinatorPublicKeys: [`0x${"11".repeat(32)}`],
    genesis: { kind: "custom", outputs: [genesis] },
  };
  await writeFile(path, JSON.stringify(config));
  return path;
}

/** Starts `node` and waits for its startup line (a follower without peers is never healthy). */
export async function started(node: NodeProcess): Promise<NodeProcess> {
  node.start();
  return startupLine(node);
}

/** Waits for the startup line of `node`, started already. */
export async function startupLine(node: NodeProcess): Promise<NodeProcess> {
  const child = node.child!;
  await waitFor(
    () => (child.exitCode !== null ? Promise.reject(new Error(node.output)) : node.output.includes(", milestone ")),
    20_000,
    `${node.name}'s startup line`,
  );
  return node;
}
