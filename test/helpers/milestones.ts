import type { Json } from "./iota.js";
import { waitFor } from "./waitFor.js";

/**
 * Waiting for milestones over a node's HTTP API: for its confirmed (or latest) milestone to
 * reach an index, for it to be synced with another node, for a block to be referenced.
 */

/** Anything that reads a node's `/api/core/v2/info`: a NodeProcess, an iota.js client, a URL. */
export type InfoSource = { info(): Promise<Json> } | string;

/** The node's core API info. */
export async function infoOf(node: InfoSource): Promise<Json> {
  if (typeof node !== "string") return node.info();
  const res = await fetch(`${node}/api/core/v2/info`);
  if (res.status !== 200) throw new Error(`${node}/api/core/v2/info: ${res.status}`);
  return (await res.json()) as Json;
}

/** The index of the node's confirmed milestone. */
export async function confirmedIndex(node: InfoSource): Promise<number> {
  return (await infoOf(node)).status.confirmedMilestone.index;
}

/** What else `waitForMilestone` waits for besides the index. */
export interface MilestoneWait {
  /** Compare the latest milestone's index rather than the confirmed one's. */
  latest?: boolean;
  /** The node says it is synced. */
  synced?: boolean;
  /** At least this many connected peers. */
  peers?: number;
}

/**
 * Polls the node's info until its confirmed milestone index (the latest one's with `latest`)
 * is at least `index`, and what `also` asks holds; answers that info.
 */
export function waitForMilestone(
  node: InfoSource,
  index: number,
  ms = 20_000,
  what = `milestone ${index}`,
  also: MilestoneWait = {},
): Promise<Json> {
  return waitFor(
    async () => {
      const info = await infoOf(node);
      const { status } = info;
      const at = also.latest ? status.latestMilestone.index : status.confirmedMilestone.index;
      if (at < index) return undefined;
      if (also.synced && !status.isSynced) return undefined;
      if (also.peers !== undefined && !(info.network.connectedPeers >= also.peers)) return undefined;
      return info;
    },
    ms,
    what,
  );
}

/** Waits for a milestone after the node's current confirmed one; answers its info. */
export async function waitForNextMilestone(node: InfoSource, ms = 20_000, what = "a new milestone"): Promise<Json> {
  return waitForMilestone(node, (await confirmedIndex(node)) + 1, ms, what);
}

/**
 * Waits until `follower` is synced and its confirmed milestone is at most one behind
 * `leader`'s (read anew on every poll: the leader goes on confirming).
 */
export function waitForSynced(follower: InfoSource, leader: InfoSource, ms: number, what: string): Promise<Json> {
  return waitFor(
    async () => {
      const [{ status }, target] = [await infoOf(follower), await confirmedIndex(leader)];
      return status.isSynced && status.confirmedMilestone.index >= target - 1 ? status : undefined;
    },
    ms,
    what,
  );
}

/** Anything that reads block metadata (TIP-25): an iota.js client. */
export interface MetadataSource {
  blockMetadata(blockId: string): Promise<Json>;
}

/**
 * Polls a block's metadata until a milestone references it (`referencedByMilestoneIndex`);
 * answers the metadata.
 */
export function waitForReferenced(client: MetadataSource, blockId: string, ms: number, what: string): Promise<Json> {
  return waitFor(
    async () => {
      const m = await client.blockMetadata(blockId);
      return m.referencedByMilestoneIndex === undefined ? undefined : m;
    },
    ms,
    what,
  );
}
