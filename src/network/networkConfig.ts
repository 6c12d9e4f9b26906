import { rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { isCodecError } from "../codec/errors.js";
import { toHex } from "../codec/hex.js";
import { expectArray, expectBool, expectHex, expectInt, expectObject, expectString } from "../codec/json.js";
import { outputFromJson, outputToJson } from "../codec/outputs/output.js";
import { protocolParametersFromJson, protocolParametersToJson } from "../codec/protocolParameters.js";
import type { Output, ProtocolParameters } from "../codec/types.js";
import type { MilestoneMode } from "../tangle/coordinator.js";
import { MAX_SETTINGS_FILE_BYTES, readBoundedFile } from "../util/boundedFile.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { NetworkErrorCode } from "./errors.js";
import { isDialable, parsePeerAddress } from "./peering.js";
import { MAX_STATIC_PEERS } from "./peeringFile.js";

/**
 * The description of a network that a node needs to join it without the coordinator's key:
 * protocol parameters, the coordinator public key(s) milestones must be signed with, the genesis
 * ledger (so a follower's database starts from the same outputs) and the addresses of the node
 * that wrote it. The coordinator node writes it to `<data-dir>/network.json` at every start; a
 * follower is started with `--network-config <that file>` and keeps a copy in its own data dir.
 *
 *   {
 *     "networkName": "dev",
 *     "protocol": { TIP-25 protocol parameters },
 *     "coordinatorPublicKeys": ["0x…"],
 *     "coordinatorThreshold": 1,
 *     "milestoneIntervalMs": 1000,
 *     "genesis": { "kind": "dev" | "custom", "outputs": [{ "outputId": "0x…", "output": { TIP-25 output } }] },
 *     "peers": ["/ip4/127.0.0.1/tcp/15600/p2p/12D3Koo…"]
 *   }
 */

export const NETWORK_CONFIG_FILE = "network.json";

/** The longest milestone interval a network may have: an hour. */
export const MAX_MILESTONE_INTERVAL_MS = 3_600_000;

export type GenesisKind = "dev" | "custom";

export interface GenesisOutput {
  outputId: Uint8Array;
  output: Output;
}

export interface NetworkConfig {
  networkName: string;
  protocol: ProtocolParameters;
  coordinatorPublicKeys: Uint8Array[];
  /** Valid signatures of those keys a milestone needs (TIP-29: N of M); 1 when the file omits it. */
  coordinatorThreshold: number;
  /** The coordinator's milestone interval; absent: the node's own setting. */
  milestoneIntervalMs?: number;
  /**
   * The genesis ledger every node of the network writes itself: `dev`, the well-known dev
   * genesis; `custom`, the allocations of a network file (`init --network`).
   */
  genesis: { kind: GenesisKind; outputs: GenesisOutput[] };
  /** Where the writing node listens (with its peer ID): followers may dial these. */
  peers: string[];
  /**
   * A network for builders (the dev network, or a network file's `"dev": true`): its coordinator
   * serves the dev routes (`/api/dev/v1`: accounts, milestones on demand, time travel, save and
   * revert). Absent: false.
   */
  dev?: boolean;
  /**
   * The funded accounts of a network for builders, as the genesis holds them: the BIP-39
   * mnemonic, how many accounts and the coin type of their path (node/devAccounts.ts). Test
   * funds only: the mnemonic is no secret. Absent: none.
   */
  devAccounts?: { mnemonic: string; count: number; coinType: number };
  /**
   * The coordinator issues milestones on demand (`--milestones auto` or `manual`): a follower's
   * health then expects none while the network is idle. Absent: every interval.
   */
  milestones?: Exclude<MilestoneMode, "interval">;
}

export function networkConfigPath(dataDir: string): string {
  return join(dataDir, NETWORK_CONFIG_FILE);
}

export function networkConfigToJson(c: NetworkConfig): Record<string, unknown> {
  return {
    networkName: c.networkName,
    protocol: protocolParametersToJson(c.protocol),
    coordinatorPublicKeys: c.coordinatorPublicKeys.map(toHex),
    coordinatorThreshold: c.coordinatorThreshold,
    ...(c.milestoneIntervalMs !== undefined ? { milestoneIntervalMs: c.milestoneIntervalMs } : {}),
    genesis: {
      kind: c.genesis.kind,
      outputs: c.genesis.outputs.map((g) => ({ outputId: toHex(g.outputId), output: outputToJson(g.output) })),
    },
    peers: c.peers,
    ...(c.dev ? { dev: true } : {}),
    ...(c.devAccounts ? { devAccounts: c.devAccounts } : {}),
    ...(c.milestones ? { milestones: c.milestones } : {}),
  };
}

/** Parses the file's JSON; InvalidNetworkConfig names the field that is wrong. */
export function networkConfigFromJson(json: unknown, source = "network config"): NetworkConfig {
  try {
    const o = expectObject(
      json,
      "networkConfig",
      ["networkName", "protocol", "coordinatorPublicKeys", "genesis"],
      ["peers", "coordinatorThreshold", "milestoneIntervalMs", "dev", "devAccounts", "milestones"],
    );
    const networkName = expectString(o.networkName, "networkConfig.networkName");
    const protocol = protocolParametersFromJson(o.protocol, "networkConfig.protocol");
    if (protocol.networkName !== networkName) {
      throw new LedgerNodeError(
        NetworkErrorCode.InvalidNetworkConfig,
        `${source}: protocol.networkName "${protocol.networkName}" is not "${networkName}"`,
      );
    }
    const keys = expectArray(o.coordinatorPublicKeys, "networkConfig.coordinatorPublicKeys").map((k, i) =>
      expectHex(k, `networkConfig.coordinatorPublicKeys[${i}]`, 32),
    );
    if (keys.length === 0) {
      throw new LedgerNodeError(NetworkErrorCode.InvalidNetworkConfig, `${source}: no coordinator public key`);
    }
    if (new Set(keys.map(toHex)).size !== keys.length) {
      throw new LedgerNodeError(
        NetworkErrorCode.InvalidNetworkConfig,
        `${source}: networkConfig.coordinatorPublicKeys lists a key twice`,
      );
    }
    const threshold =
      o.coordinatorThreshold === undefined
        ? 1
        : expectInt(o.coordinatorThreshold, "networkConfig.coordinatorThreshold", 1, keys.length);
    const interval =
      o.milestoneIntervalMs === undefined
        ? undefined
        : expectInt(o.milestoneIntervalMs, "networkConfig.milestoneIntervalMs", 1, MAX_MILESTONE_INTERVAL_MS);
    const g = expectObject(o.genesis, "networkConfig.genesis", ["kind", "outputs"]);
    if (g.kind !== "dev" && g.kind !== "custom") {
      throw new LedgerNodeError(
        NetworkErrorCode.InvalidNetworkConfig,
        `${source}: networkConfig.genesis.kind ${JSON.stringify(g.kind)} is not "dev" or "custom"`,
      );
    }
    const outputs = expectArray(g.outputs, "networkConfig.genesis.outputs").map((x, i) => {
      const field = `networkConfig.genesis.outputs[${i}]`;
      const e = expectObject(x, field, ["outputId", "output"]);
      return {
        outputId: expectHex(e.outputId, `${field}.outputId`, 34),
        output: outputFromJson(e.output, `${field}.output`),
      };
    });
    const peers =
      o.peers === undefined
        ? []
        : expectArray(o.peers, "networkConfig.peers").map((p, i) => expectString(p, `networkConfig.peers[${i}]`));
    // the static peers a node keeps at most (peeringFile.ts), each one it can dial
    if (peers.length > MAX_STATIC_PEERS) {
      throw new LedgerNodeError(
        NetworkErrorCode.InvalidNetworkConfig,
        `${source}: networkConfig.peers lists ${peers.length} peers, at most ${MAX_STATIC_PEERS}`,
      );
    }
    for (const [i, peer] of peers.entries()) {
      try {
        parsePeerAddress(peer);
      } catch (e) {
        throw new LedgerNodeError(
          NetworkErrorCode.InvalidNetworkConfig,
          `${source}: networkConfig.peers[${i}]: ${(e as Error).message}`,
        );
      }
    }
    return {
      networkName,
      protocol,
      coordinatorPublicKeys: keys,
      coordinatorThreshold: threshold,
      ...(interval !== undefined ? { milestoneIntervalMs: interval } : {}),
      genesis: { kind: g.kind, outputs },
      peers,
      ...(o.dev !== undefined && expectBool(o.dev, "networkConfig.dev") ? { dev: true } : {}),
      ...(o.devAccounts !== undefined ? { devAccounts: devAccountsFromJson(o.devAccounts) } : {}),
      ...(o.milestones !== undefined ? { milestones: milestoneModeFromJson(o.milestones, source) } : {}),
    };
  } catch (e) {
    if (isCodecError(e)) throw new LedgerNodeError(NetworkErrorCode.InvalidNetworkConfig, `${source}: ${e.message}`);
    throw e;
  }
}

function milestoneModeFromJson(json: unknown, source: string): Exclude<MilestoneMode, "interval"> {
  if (json !== "auto" && json !== "manual") {
    throw new LedgerNodeError(
      NetworkErrorCode.InvalidNetworkConfig,
      `${source}: networkConfig.milestones ${JSON.stringify(json)} is not "auto" or "manual"`,
    );
  }
  return json;
}

function devAccountsFromJson(json: unknown): NonNullable<NetworkConfig["devAccounts"]> {
  const d = expectObject(json, "networkConfig.devAccounts", ["mnemonic", "count", "coinType"]);
  return {
    mnemonic: expectString(d.mnemonic, "networkConfig.devAccounts.mnemonic"),
    count: expectInt(d.count, "networkConfig.devAccounts.count", 0, 127),
    coinType: expectInt(d.coinType, "networkConfig.devAccounts.coinType", 0, 0x7fffffff),
  };
}

/**
 * The addresses a network file lists for followers to dial: those the transport can dial, at
 * most MAX_STATIC_PEERS (a follower refuses a file with more). A host with many interfaces
 * listens on more addresses than that.
 */
export function peersForFile(addresses: readonly string[]): string[] {
  return addresses.filter(isDialable).slice(0, MAX_STATIC_PEERS);
}

export async function readNetworkConfig(path: string): Promise<NetworkConfig> {
  let text: string;
  try {
    text = await readBoundedFile(
      path,
      MAX_SETTINGS_FILE_BYTES,
      (why) => new LedgerNodeError(NetworkErrorCode.InvalidNetworkConfig, why),
    );
  } catch (e) {
    throw new LedgerNodeError(NetworkErrorCode.InvalidNetworkConfig, `cannot read ${path}: ${(e as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new LedgerNodeError(NetworkErrorCode.InvalidNetworkConfig, `${path} is not JSON: ${(e as Error).message}`);
  }
  return networkConfigFromJson(json, path);
}

/** Writes the file atomically (beside it, then renamed). */
export async function writeNetworkConfig(path: string, config: NetworkConfig): Promise<void> {
  const tmp = `${path}.tmp`;
  await writeFile(tmp, `${JSON.stringify(networkConfigToJson(config), null, 2)}\n`);
  await rename(tmp, path);
}
