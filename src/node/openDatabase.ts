import { access, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { bytesEqual } from "../codec/hex.js";
import { decodeOutput } from "../codec/outputs/output.js";
import type { ProtocolParameters } from "../codec/types.js";
import { ed25519KeyPairFromSeed } from "../crypto/ed25519.js";
import { AddressLedgerLoad, IndexerLoad } from "../indexer/index.js";
import { type NetworkConfig, networkConfigPath, readNetworkConfig } from "../network/index.js";
import { isSnapshotError, SnapshotErrorCode } from "../snapshot/errors.js";
import {
  assertNoIncompleteImport,
  type ImportSink,
  importSnapshot,
  type VerifiedDelta,
  type VerifiedFull,
  verifyDeltaSnapshot,
  verifyFullSnapshot,
} from "../snapshot/index.js";
import { defaultKvStoreOptions, KvStore, NodeStateKey, Repositories } from "../storage/index.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { checkGenesis } from "./checkGenesis.js";
import { planDescriptors } from "./descriptors.js";
import { DEV_NETWORK_NAME, devNetworkConfig } from "./devNetwork.js";
import { initDatabase } from "./initDatabase.js";
import {
  FAUCET_KEY_FILE,
  freshSecret,
  JWT_KEY_FILE,
  readCoordinatorSeeds,
  readKeyFile,
  readOptionalKeyFile,
  writeCoordinatorSeeds,
  writeNamedKeyFile,
} from "./keyFiles.js";
import type { NodeOptions } from "./options.js";

/**
 * The first steps of a node's start, up to an open database of the right network: the network
 * file read, the snapshot files checked, the store opened, a snapshot imported into an empty
 * one, the role decided from the key files and the genesis written on a fresh one.
 */

/** Where the indexes' rebuild (and a snapshot load) sort the field lists: the node's data directory, not memory. */
export function indexSortDir(dataDir: string): string {
  return join(dataDir, "index-sort");
}

/** Where the address ledger's rebuild (and a snapshot load) sort owners and amounts. */
export function addressSortDir(dataDir: string): string {
  return join(dataDir, "address-sort");
}

/** The node's secrets, read from its key files (keyFiles.ts). */
export interface NodeSecrets {
  /** The coordinator seeds this node signs milestones with; empty on a follower. */
  coordinatorSeeds: Uint8Array[];
  jwtSecret: Uint8Array;
  /** The faucet's seed (`keys/faucet.key`), when the node holds one. */
  faucetSeed?: Uint8Array;
}

/** A node's database, ready for the components to be built on it. */
export interface OpenedDatabase {
  store: KvStore;
  protocolParameters: ProtocolParameters;
  secrets: NodeSecrets;
  /** Whether this start wrote the genesis (a fresh data directory). */
  createdGenesis: boolean;
  /** Whether this start filled the database from snapshot files. */
  importedSnapshot: boolean;
  /** The network this node belongs to: its own (coordinator) or the one it follows. */
  network: NetworkConfig;
  /** Whether the node follows `network` (it holds fewer of its coordinator keys than milestones need). */
  follows: boolean;
  /** The network file read at start ("" when none), and where the data dir keeps its copy. */
  configPath: string;
  copyPath: string;
}

export async function openDatabase(options: NodeOptions): Promise<OpenedDatabase> {
  // 1. the network to follow: the file given, else the copy the data dir keeps (the
  // coordinator's own, written at init or at its first start, or a follower's copy)
  const copyPath = networkConfigPath(options.dataDir);
  const configPath = options.networkConfig || ((await fileExists(copyPath)) ? copyPath : "");
  const config = configPath ? await readNetworkConfig(configPath) : undefined;
  // the key files the flags name are read where they are used, after the database opened:
  // one that cannot serve is refused here, before the data dir is touched
  for (const path of [options.faucetKeyFile, options.spammerKeyFile]) if (path !== "") await readKeyFile(path);
  // 2. snapshot files are checked completely before the data dir is touched, so a truncated,
  // corrupted or foreign file leaves it as it was
  const networkName = config?.networkName ?? DEV_NETWORK_NAME;
  // the coordinator's keys are checked against the files only for a network the operator named
  // (`--network-config`): the data dir's own copy lists the keys of a node that started from
  // another's snapshot, which its restart with the same flags must not hold against the file
  const named = options.networkConfig ? config : undefined;
  const dbPath = join(options.dataDir, "db");
  // a data dir with a database resumes it and ignores --snapshot (as Hornet does), so the files
  // are not read there: an operator's flags keep naming them after the first start, and a
  // check of 10,000,000 outputs took 20 s of every restart
  const hasDatabase = await fileExists(join(dbPath, "CURRENT"));
  let startFrom = options.snapshot && !hasDatabase ? await verifySnapshotFiles(options, networkName, named) : undefined;
  await mkdir(options.dataDir, { recursive: true });
  const store = await KvStore.open({
    ...defaultKvStoreOptions,
    maxOpenFiles: planDescriptors().databaseFiles,
    path: dbPath,
  });
  try {
    await moveSecretsToKeyFiles(store, options.dataDir);
    // 3. a half-finished import is refused; an empty database takes the snapshot, one that
    // holds data resumes
    await assertNoIncompleteImport(store);
    const empty = await store.isEmpty();
    if (options.snapshot && empty && !startFrom) startFrom = await verifySnapshotFiles(options, networkName, named);
    const importedSnapshot = startFrom !== undefined && empty;
    if (startFrom && importedSnapshot) {
      // the indexes and the address ledger are written with the ledger as it streams in, each
      // output decoded once, not read back from it after (docs/performance.md, "Loading a large
      // ledger"); a delta or a rollback leaves them to their rebuilds
      const indexes = new IndexerLoad(store, { sortDir: indexSortDir(options.dataDir) });
      const addresses = new AddressLedgerLoad(store, addressSortDir(options.dataDir));
      const sink: ImportSink = {
        add(batch, o) {
          const output = decodeOutput(o.outputBytes);
          const { outputId, bookedIndex, bookedTimestamp } = o;
          indexes.add(batch, { outputId, output, bookedIndex, bookedTimestamp });
          addresses.add(batch, outputId, output);
        },
      };
      try {
        const imported = await importSnapshot(store, {
          fullPath: options.snapshot,
          ...(options.deltaSnapshot ? { deltaPath: options.deltaSnapshot } : {}),
          expectedNetworkName: networkName,
          unverified: options.snapshotUnverified,
          verified: startFrom,
          sink,
        });
        if (imported.sinkHoldsLedger) {
          await indexes.finish(imported.ledgerIndex);
          await addresses.finish(imported.ledgerIndex);
        }
      } finally {
        await indexes.close();
        await addresses.close();
      }
    }
    // 4. the role: coordinator when it holds as many of the network's keys as a milestone
    // needs; a key the network does not list (one made after a snapshot import, say) does not
    // count. Without a network file the node starts (or resumes) a dev network of its own.
    const seeds = await readCoordinatorSeeds(options.dataDir);
    let network: NetworkConfig;
    let held: Uint8Array[];
    if (config) {
      network = config;
      held = seeds.filter((s) => config.coordinatorPublicKeys.some((k) => bytesEqual(k, publicKeyOf(s))));
    } else {
      if (seeds.length === 0) {
        seeds.push(freshSecret());
        await writeCoordinatorSeeds(options.dataDir, seeds);
      }
      held = seeds.slice(0, 1);
      // the dev accounts of a fresh dev network; a resumed one keeps those of its genesis (network.json)
      network = devNetworkConfig(options.minPowScore, publicKeyOf(held[0]!), options.milestoneIntervalMs, {
        mnemonic: options.devMnemonic,
        count: options.devAccounts,
        coinType: options.devCoinType,
      });
    }
    const follows = held.length < network.coordinatorThreshold;
    if (follows) checkGenesis(network, configPath);
    if (network.genesis.kind === "dev" && !follows) {
      // the dev coordinator's PoW minimum and interval are its own settings
      network = {
        ...network,
        protocol: { ...network.protocol, minPowScore: options.minPowScore },
        milestoneIntervalMs: options.milestoneIntervalMs,
      };
    }
    // 5. genesis on a fresh database, else the stored network checked
    const init = await initDatabase(store, network);
    return {
      store,
      protocolParameters: init.protocolParameters,
      secrets: {
        coordinatorSeeds: follows ? [] : held,
        jwtSecret: await ensureJwtSecret(options.dataDir),
        ...(await faucetSeedOf(options.dataDir)),
      },
      createdGenesis: init.created,
      importedSnapshot,
      network,
      follows,
      configPath,
      copyPath,
    };
  } catch (e) {
    await store.close();
    throw e;
  }
}

function publicKeyOf(seed: Uint8Array): Uint8Array {
  return ed25519KeyPairFromSeed(seed).publicKey;
}

/** The JWT secret of `keys/jwt.key`, made on the first start. */
async function ensureJwtSecret(dataDir: string): Promise<Uint8Array> {
  const existing = await readOptionalKeyFile(dataDir, JWT_KEY_FILE);
  if (existing) return existing;
  const secret = freshSecret();
  await writeNamedKeyFile(dataDir, JWT_KEY_FILE, secret);
  return secret;
}

async function faucetSeedOf(dataDir: string): Promise<{ faucetSeed?: Uint8Array }> {
  const seed = await readOptionalKeyFile(dataDir, FAUCET_KEY_FILE);
  return seed ? { faucetSeed: seed } : {};
}

/**
 * Data directories of earlier versions kept the coordinator seed and the JWT secret in the
 * database: they move to key files once (files first, then the database entries go), so a
 * coordinator keeps its key and issued JWTs stay valid.
 */
async function moveSecretsToKeyFiles(store: KvStore, dataDir: string): Promise<void> {
  const nodeState = Repositories.of(store).nodeState;
  const seed = await nodeState.get(NodeStateKey.CoordinatorSeed);
  const jwt = await nodeState.get(NodeStateKey.JwtSecret);
  if (!seed && !jwt) return;
  if (seed && (await readCoordinatorSeeds(dataDir)).length === 0) await writeCoordinatorSeeds(dataDir, [seed]);
  if (jwt && !(await readOptionalKeyFile(dataDir, JWT_KEY_FILE))) await writeNamedKeyFile(dataDir, JWT_KEY_FILE, jwt);
  const batch = store.batch();
  nodeState.del(batch, NodeStateKey.CoordinatorSeed);
  nodeState.del(batch, NodeStateKey.JwtSecret);
  await batch.write({ sync: true });
}

/** Both snapshot files checked against each other and the network, nothing written. */
async function verifySnapshotFiles(
  options: NodeOptions,
  networkName: string,
  network: NetworkConfig | undefined,
): Promise<{ full: VerifiedFull; delta?: VerifiedDelta }> {
  const refused = (path: string) => (e: unknown) => {
    if (isSnapshotError(e)) {
      // a file of placeholder milestones (a test network's) is the operator's to accept
      const hint =
        e.code === SnapshotErrorCode.Unverified
          ? "; --snapshot-unverified accepts a file whose milestones are not verified"
          : "";
      throw new LedgerNodeError(
        e.code,
        `snapshot file ${path} refused (${e.code}): ${e.message}${hint}; the data dir was not touched`,
      );
    }
    throw e;
  };
  // a network file names its coordinator's keys: milestones of another network's are refused
  const coordinator = network
    ? { publicKeys: network.coordinatorPublicKeys, threshold: network.coordinatorThreshold }
    : undefined;
  const checks = { unverified: options.snapshotUnverified, ...(coordinator ? { coordinator } : {}) };
  const full = await verifyFullSnapshot(options.snapshot, networkName, checks).catch(refused(options.snapshot));
  if (!options.deltaSnapshot) return { full };
  const delta = await verifyDeltaSnapshot(options.deltaSnapshot, full, checks).catch(refused(options.deltaSnapshot));
  return { full, delta };
}

async function fileExists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}
