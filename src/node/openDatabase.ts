import { access, mkdir } from "node:fs/promises";
import { bytesEqual } from "../codec/hex.js";
import { encodeOutput } from "../codec/outputs/output.js";
import type { ProtocolParameters } from "../codec/types.js";
import { ed25519KeyPairFromSeed } from "../crypto/ed25519.js";
import { type NetworkConfig, NetworkErrorCode, networkConfigPath, readNetworkConfig } from "../network/index.js";
import { isSnapshotError } from "../snapshot/errors.js";
import {
  assertNoIncompleteImport,
  importSnapshot,
  type VerifiedDelta,
  type VerifiedFull,
  verifyDeltaSnapshot,
  verifyFullSnapshot,
} from "../snapshot/index.js";
import { defaultKvStoreOptions, KvStore, NodeStateKey, nodeStateKey } from "../storage/index.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { DEV_NETWORK_NAME, devGenesisOutput, devProtocolParameters, GENESIS_OUTPUT_ID } from "./devNetwork.js";
import { initDatabase, type NodeSecrets } from "./initDatabase.js";
import type { NodeOptions } from "./options.js";

/**
 * The first steps of a node's start, up to an open database of the right network: the
 * snapshot files checked, the network file read, the store opened, a snapshot imported into an
 * empty one, the role decided and the genesis written on a fresh one.
 */

/** A node's database, ready for the components to be built on it. */
export interface OpenedDatabase {
  store: KvStore;
  protocolParameters: ProtocolParameters;
  secrets: NodeSecrets;
  /** Whether this start wrote the genesis (a fresh data directory). */
  createdGenesis: boolean;
  /** The network this node follows; undefined on the coordinator. */
  followedNetwork: NetworkConfig | undefined;
  /** The network file read at start ("" when none), and where the data dir keeps its copy. */
  configPath: string;
  copyPath: string;
}

export async function openDatabase(options: NodeOptions): Promise<OpenedDatabase> {
  // 1. snapshot files are checked completely before the data dir is touched, so a truncated,
  // corrupted or foreign file leaves it as it was
  const startFrom = options.snapshot ? await verifySnapshotFiles(options) : undefined;
  await mkdir(options.dataDir, { recursive: true });
  // 2. the network to follow: the file given, else the copy a follower keeps in its data dir
  const copyPath = networkConfigPath(options.dataDir);
  const configPath = options.networkConfig || ((await fileExists(copyPath)) ? copyPath : "");
  const config = configPath ? await readNetworkConfig(configPath) : undefined;
  const store = await KvStore.open({ ...defaultKvStoreOptions, path: `${options.dataDir}/db` });
  try {
    // 3. a half-finished import is refused; an empty database takes the snapshot (a database
    // that has data already resumes and ignores --snapshot, as Hornet does)
    await assertNoIncompleteImport(store);
    if (startFrom && (await isEmptyDatabase(store))) {
      await importSnapshot(store, {
        fullPath: options.snapshot,
        ...(options.deltaSnapshot ? { deltaPath: options.deltaSnapshot } : {}),
        expectedNetworkName: DEV_NETWORK_NAME,
        verified: startFrom,
      });
    }
    // 4. the role: coordinator when it holds a key the network lists (or starts the network);
    // a coordinator key the network's file does not list (a fresh one from a snapshot import)
    // does not make a node the coordinator
    const seed = await store.get(nodeStateKey(NodeStateKey.CoordinatorSeed));
    const seedKey = seed ? ed25519KeyPairFromSeed(seed).publicKey : undefined;
    const follows =
      config !== undefined && !(seedKey && config.coordinatorPublicKeys.some((k) => bytesEqual(k, seedKey)));
    if (follows) checkDevGenesis(config, configPath);
    // 5. genesis on a fresh database, else the stored network checked
    const init = await initDatabase(store, follows ? config.protocol : devProtocolParameters(options.minPowScore), {
      coordinator: !follows,
    });
    if (!follows && !init.secrets.coordinatorSeed) {
      throw new LedgerNodeError(
        NetworkErrorCode.InvalidNetworkConfig,
        "this data directory holds no coordinator key: start it with --network-config <file> to follow a network",
      );
    }
    return {
      store,
      protocolParameters: init.protocolParameters,
      secrets: init.secrets,
      createdGenesis: init.created,
      followedNetwork: follows ? config : undefined,
      configPath,
      copyPath,
    };
  } catch (e) {
    await store.close();
    throw e;
  }
}

/** Both snapshot files checked against each other and the dev network, nothing written. */
async function verifySnapshotFiles(options: NodeOptions): Promise<{ full: VerifiedFull; delta?: VerifiedDelta }> {
  const refused = (path: string) => (e: unknown) => {
    if (isSnapshotError(e)) {
      throw new LedgerNodeError(
        e.code,
        `snapshot file ${path} refused (${e.code}): ${e.message}; the data dir was not touched`,
      );
    }
    throw e;
  };
  const full = await verifyFullSnapshot(options.snapshot, DEV_NETWORK_NAME).catch(refused(options.snapshot));
  if (!options.deltaSnapshot) return { full };
  const delta = await verifyDeltaSnapshot(options.deltaSnapshot, full.header).catch(refused(options.deltaSnapshot));
  return { full, delta };
}

/** Whether the database holds nothing at all (a fresh data dir). */
async function isEmptyDatabase(store: KvStore): Promise<boolean> {
  for await (const _ of store.scanKeys({ prefix: new Uint8Array(0), limit: 1 })) return false;
  return true;
}

async function fileExists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/** A follower builds the same genesis itself, so the configuration must describe exactly it. */
function checkDevGenesis(config: NetworkConfig, source: string): void {
  const expected = encodeOutput(devGenesisOutput());
  const g = config.genesis.outputs;
  if (
    g.length !== 1 ||
    !bytesEqual(g[0]!.outputId, GENESIS_OUTPUT_ID) ||
    !bytesEqual(encodeOutput(g[0]!.output), expected)
  ) {
    throw new LedgerNodeError(NetworkErrorCode.InvalidNetworkConfig, `${source}: the genesis is not the dev genesis`);
  }
}
