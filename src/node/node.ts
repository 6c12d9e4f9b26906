import { access, mkdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { bytesEqual } from "../codec/hex.js";
import { encodeOutput } from "../codec/outputs/output.js";
import type { Block } from "../codec/types.js";
import { ed25519KeyPairFromSeed } from "../crypto/ed25519.js";
import { VerifyPool } from "../crypto/verifyPool.js";
import { validateTransaction } from "../ledger/semantic/index.js";
import type { SemanticValidator } from "../ledger/whiteFlag.js";
import {
  defaultNetworkOptions,
  Network,
  type NetworkConfig,
  NetworkError,
  NetworkErrorCode,
  type NetworkLogger,
  type NetworkOptions,
  networkConfigPath,
  readNetworkConfig,
  writeNetworkConfig,
} from "../network/index.js";
import {
  assertNoIncompleteImport,
  importSnapshot,
  SnapshotError,
  SnapshotManager,
  type VerifiedDelta,
  type VerifiedFull,
  verifyDeltaSnapshot,
  verifyFullSnapshot,
} from "../snapshot/index.js";
import { defaultKvStoreOptions, KvStore, NodeStateKey, nodeStateKey } from "../storage/index.js";
import { acceptBlock } from "../tangle/acceptBlock.js";
import { confirmMilestoneBlock } from "../tangle/confirmMilestone.js";
import { Coordinator } from "../tangle/coordinator.js";
import { Pruner } from "../tangle/prune.js";
import { Tangle } from "../tangle/tangle.js";
import { defaultTipPoolOptions } from "../tangle/tipPool.js";
import { DEV_NETWORK_NAME, devGenesisOutput, devProtocolParameters, GENESIS_OUTPUT_ID } from "./devNetwork.js";
import { initDatabase, type NodeSecrets } from "./initDatabase.js";
import type { NodeOptions } from "./options.js";

/** Adapts the ledger's semantic validation to the white-flag walk's view of an input. */
export const semanticValidator: SemanticValidator = (tx, ctx) =>
  validateTransaction(tx, {
    transactionId: ctx.transactionId,
    inputs: ctx.inputs.map((o) => ({
      outputId: o.outputId,
      output: o.output,
      bookedMilestoneIndex: o.bookedIndex,
      bookedTimestamp: o.bookedTimestamp,
    })),
    milestoneIndex: ctx.milestoneIndex,
    milestoneTimestamp: ctx.milestoneTimestamp,
    protocolParameters: ctx.protocolParameters,
    precomputed: {
      signingHash: ctx.signingHash,
      inputBytes: ctx.inputs.map((o) => o.outputBytes),
      outputBytes: ctx.outputBytes,
    },
  });

/** Why the node refused an operation (the network layer has its own errors). */
export enum NodeErrorCode {
  /** The node follows a network: it holds no coordinator key and issues no milestones. */
  NotCoordinator = "NODE_NOT_COORDINATOR",
}

export class NodeError extends Error {
  constructor(
    readonly code: NodeErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "NodeError";
  }
}

/** Both snapshot files checked against each other and the dev network, nothing written. */
async function verifySnapshotFiles(options: NodeOptions): Promise<{ full: VerifiedFull; delta?: VerifiedDelta }> {
  const refused = (path: string) => (e: unknown) => {
    if (e instanceof SnapshotError) {
      throw new SnapshotError(
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
    throw new NetworkError(NetworkErrorCode.InvalidNetworkConfig, `${source}: the genesis is not the dev genesis`);
  }
}

/**
 * A running node: storage, tangle, the built-in coordinator (on the node that started the
 * network) and the P2P network, wired from one options object. `open` prepares everything
 * (genesis on an empty data dir, resume otherwise) without starting anything; `startNetwork`
 * starts the P2P layer and `start` the coordinator; `close` stops both and closes the database.
 *
 * Which role a node has: a data directory created without `--network-config` starts a dev
 * network and holds its coordinator key; one created with it (or started with it later)
 * follows the network the file describes, keeps a copy of the file, and confirms the
 * milestones it receives. A coordinator key that the network's configuration does not list
 * (e.g. a fresh one from a snapshot import) does not make a node the coordinator.
 */
export class LedgerNode {
  private net: Network | undefined;

  private constructor(
    readonly options: NodeOptions,
    readonly store: KvStore,
    readonly tangle: Tangle,
    private readonly coordinatorOrUndefined: Coordinator | undefined,
    readonly secrets: NodeSecrets,
    readonly createdGenesis: boolean,
    /** Threads checking transaction signatures at intake (see acceptBlock). */
    readonly verifyPool: VerifyPool,
    /** Keys whose signature makes a milestone valid: the coordinator's, or the network configuration's. */
    readonly coordinatorPublicKeys: Uint8Array[],
    /** The configuration of the network this node follows; undefined on the coordinator. */
    readonly followedNetwork: NetworkConfig | undefined,
    /** Snapshot writing (the control route, `--snapshot-interval`). */
    readonly snapshots: SnapshotManager,
    /** Background pruning (`--prune-below`). */
    readonly pruner: Pruner,
  ) {}

  static async open(options: NodeOptions, onError: (e: unknown) => void = () => {}): Promise<LedgerNode> {
    // 0. snapshot files are checked completely before the data dir is touched, so a truncated,
    // corrupted or foreign file leaves it as it was
    const startFrom = options.snapshot ? await verifySnapshotFiles(options) : undefined;
    await mkdir(options.dataDir, { recursive: true });
    // 1. the network to follow: the file given, else the copy a follower keeps in its data dir
    const copyPath = networkConfigPath(options.dataDir);
    const configPath = options.networkConfig || ((await fileExists(copyPath)) ? copyPath : "");
    const config = configPath ? await readNetworkConfig(configPath) : undefined;
    const store = await KvStore.open({ ...defaultKvStoreOptions, path: `${options.dataDir}/db` });
    try {
      // 1b. a half-finished import is refused; an empty database takes the snapshot (a database
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
      // 2. the role: coordinator when it holds a key the network lists (or starts the network)
      const seed = await store.get(nodeStateKey(NodeStateKey.CoordinatorSeed));
      const seedKey = seed ? ed25519KeyPairFromSeed(seed).publicKey : undefined;
      const follows =
        config !== undefined && !(seedKey && config.coordinatorPublicKeys.some((k) => bytesEqual(k, seedKey)));
      if (follows) checkDevGenesis(config, configPath);
      const init = await initDatabase(store, follows ? config.protocol : devProtocolParameters(options.minPowScore), {
        coordinator: !follows,
      });
      if (!follows && !init.secrets.coordinatorSeed) {
        throw new NetworkError(
          NetworkErrorCode.InvalidNetworkConfig,
          "this data directory holds no coordinator key: start it with --network-config <file> to follow a network",
        );
      }
      const tangle = await Tangle.open(store, {
        protocolParameters: init.protocolParameters,
        tipPool: defaultTipPoolOptions,
      });
      // A milestone whose block was stored but whose batch was not (a crash between the two) is
      // applied now, exactly as it would have been: same cone, same roots.
      for (const pending of tangle.pendingMilestones()) {
        if (pending.milestone.index === tangle.latestMilestone.index + 1) {
          await confirmMilestoneBlock(tangle, pending.blockId, pending.milestone, semanticValidator);
        }
      }
      const pruner = await Pruner.create(tangle, { pruneBelow: options.pruneBelow }, onError);
      const snapshots = new SnapshotManager(
        store,
        { directory: join(options.dataDir, "snapshots"), interval: options.snapshotInterval },
        { belowMaxDepth: init.protocolParameters.belowMaxDepth, pruner, onError },
      );
      tangle.onConfirmed((index) => {
        pruner.onConfirmed(index);
        snapshots.onConfirmed(index);
      });
      const verifyPool = new VerifyPool();
      tangle.merkleRoots = (lists) => verifyPool.merkleRoots(lists);
      let node: LedgerNode | undefined;
      const keyPair = follows ? undefined : ed25519KeyPairFromSeed(init.secrets.coordinatorSeed!);
      const coordinator = keyPair
        ? new Coordinator(
            tangle,
            semanticValidator,
            {
              intervalMs: options.milestoneIntervalMs,
              keyPair,
              verifyPool,
              powWorkers: options.powWorkers,
              onBlockIssued: (bytes) => void node?.net?.broadcast(bytes),
            },
            onError,
          )
        : undefined;
      node = new LedgerNode(
        options,
        store,
        tangle,
        coordinator,
        init.secrets,
        init.created,
        verifyPool,
        keyPair ? [keyPair.publicKey] : config!.coordinatorPublicKeys,
        follows ? config : undefined,
        snapshots,
        pruner,
      );
      // 3. the network description in the data dir: the coordinator's own, or a follower's copy
      if (keyPair || resolve(configPath) !== resolve(copyPath)) {
        await writeNetworkConfig(copyPath, keyPair ? node.describeNetwork([]) : config!);
      }
      return node;
    } catch (e) {
      await store.close();
      throw e;
    }
  }

  /** Whether this node runs the coordinator (it started the network and holds its key). */
  get isCoordinator(): boolean {
    return this.coordinatorOrUndefined !== undefined;
  }

  /** The built-in coordinator; NotCoordinator on a follower. */
  get coordinator(): Coordinator {
    if (!this.coordinatorOrUndefined) {
      throw new NodeError(NodeErrorCode.NotCoordinator, "this node follows a network and issues no milestones");
    }
    return this.coordinatorOrUndefined;
  }

  /** The first key milestones are checked against (the API's view). */
  get coordinatorPublicKey(): Uint8Array {
    return this.coordinatorPublicKeys[0]!;
  }

  /** The P2P layer, once `startNetwork` ran. */
  get network(): Network | undefined {
    return this.net;
  }

  /** The description followers need (written to `<data-dir>/network.json` by the coordinator). */
  describeNetwork(peers: string[]): NetworkConfig {
    const protocol = this.tangle.protocolParameters;
    return {
      networkName: protocol.networkName,
      protocol,
      coordinatorPublicKeys: this.coordinatorPublicKeys,
      genesis: { kind: "dev", outputs: [{ outputId: GENESIS_OUTPUT_ID, output: devGenesisOutput() }] },
      peers,
    };
  }

  /** HS256 secret of the JWTs that open protected routes. */
  get jwtSecret(): Uint8Array {
    return this.secrets.jwtSecret;
  }

  /**
   * The internal submit path for block bytes (the API's and the benchmarks'): decode, syntactic
   * rules, PoW or milestone signature, store, solidify; signatures pre-checked on the pool. A
   * new block is gossiped to the peers. A node behind the network refuses (NotSynced): it
   * cannot judge parents or tips before it has caught up.
   */
  async submitBlock(bytes: Uint8Array, checked?: Block): Promise<{ blockId: Uint8Array; isNew: boolean }> {
    if (this.net && !this.net.sync.isSynced()) {
      throw new NetworkError(NetworkErrorCode.NotSynced, "the node is not synced with the network yet");
    }
    const accepted = await acceptBlock(
      this.tangle,
      bytes,
      {
        coordinatorPublicKeys: this.coordinatorPublicKeys,
        verifyPool: this.verifyPool,
      },
      checked,
    );
    if (accepted.isNew) void this.net?.broadcast(bytes);
    return accepted;
  }

  /**
   * Starts the P2P layer: identity key, listening, static peers, gossip, sync. The coordinator
   * then rewrites `<data-dir>/network.json` with the addresses it listens on.
   */
  async startNetwork(log?: NetworkLogger, overrides: Partial<NetworkOptions> = {}): Promise<Network> {
    const o = this.options;
    const peers = o.peers.length > 0 ? o.peers : (this.followedNetwork?.peers ?? []);
    const network = new Network(
      { ...defaultNetworkOptions, listenHost: o.p2pHost, port: o.p2pPort, peers, ...overrides },
      {
        tangle: this.tangle,
        dataDir: o.dataDir,
        coordinatorPublicKeys: this.coordinatorPublicKeys,
        isCoordinator: this.isCoordinator,
        validate: semanticValidator,
        verifyPool: this.verifyPool,
        ...(log ? { log } : {}),
      },
    );
    await network.start();
    this.net = network;
    if (this.isCoordinator) {
      await writeNetworkConfig(networkConfigPath(o.dataDir), this.describeNetwork(network.listenAddresses()));
    }
    return network;
  }

  /** Starts the coordinator (a follower has none: its network confirms what it receives). */
  start(): void {
    this.coordinatorOrUndefined?.start();
  }

  async close(): Promise<void> {
    await this.coordinatorOrUndefined?.stop();
    await this.net?.stop();
    this.net = undefined;
    await this.snapshots.idle();
    await this.pruner.stop();
    await this.verifyPool.close();
    // blocks taken in are written behind: a clean stop keeps them
    await this.tangle.intakeWritten().catch(() => {});
    await this.store.close();
  }
}
