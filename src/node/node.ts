import { resolve } from "node:path";
import type { VerifyPool } from "../crypto/verifyPool.js";
import type { Faucet } from "../faucet/index.js";
import type { Indexer } from "../indexer/index.js";
import {
  defaultNetworkOptions,
  type Network,
  type NetworkConfig,
  type NetworkLogger,
  type NetworkOptions,
  networkConfigPath,
  writeNetworkConfig,
} from "../network/index.js";
import type { SnapshotManager } from "../snapshot/index.js";
import type { KvStore, Repositories } from "../storage/index.js";
import type { Coordinator } from "../tangle/coordinator.js";
import { TangleErrorCode } from "../tangle/errors.js";
import type { NodeEvents } from "../tangle/events.js";
import { type BlockIntake, takenBlock } from "../tangle/intake.js";
import type { MetricsTracker } from "../tangle/metrics.js";
import type { Pruner } from "../tangle/prune.js";
import type { Tangle } from "../tangle/tangle.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { attachNetwork, buildComponents, type NodeComponents, semanticValidator } from "./components.js";
import { type NodeSecrets, type OpenedDatabase, openDatabase } from "./openDatabase.js";
import type { NodeOptions } from "./options.js";

export { semanticValidator };

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
  private detachNetwork: (() => void) | undefined;
  readonly store: KvStore;
  readonly secrets: NodeSecrets;
  /** Whether this start wrote the genesis (a fresh data directory). */
  readonly createdGenesis: boolean;
  /** The configuration of the network this node follows; undefined on the coordinator. */
  readonly followedNetwork: NetworkConfig | undefined;
  readonly events: NodeEvents;
  readonly tangle: Tangle;
  readonly db: Repositories;
  readonly intake: BlockIntake;
  readonly verifyPool: VerifyPool;
  readonly indexer: Indexer;
  readonly metrics: MetricsTracker;
  readonly snapshots: SnapshotManager;
  readonly pruner: Pruner;
  /** The faucet (`/api/faucet/v1`), when this node runs one. */
  readonly faucet: Faucet | undefined;
  /** Keys whose signature makes a milestone valid: the coordinator's, or the network configuration's. */
  readonly coordinatorPublicKeys: Uint8Array[];
  private readonly coordinatorOrUndefined: Coordinator | undefined;
  /** The network's description as this node knows it (network.json without the peers). */
  private readonly ownNetwork: NetworkConfig;

  private constructor(
    readonly options: NodeOptions,
    db: OpenedDatabase,
    /** Everything `components.ts` built (ARCHITECTURE.md, Components). */
    readonly components: NodeComponents,
  ) {
    const c = components;
    this.store = db.store;
    this.secrets = db.secrets;
    this.createdGenesis = db.createdGenesis;
    this.followedNetwork = db.follows ? db.network : undefined;
    this.ownNetwork = db.network;
    this.events = c.events;
    this.tangle = c.tangle;
    this.db = c.db;
    this.intake = c.intake;
    this.verifyPool = c.verifyPool;
    this.indexer = c.indexer;
    this.metrics = c.metrics;
    this.snapshots = c.snapshots;
    this.pruner = c.pruner;
    this.faucet = c.faucet;
    this.coordinatorPublicKeys = c.coordinatorPublicKeys;
    this.coordinatorOrUndefined = c.coordinator;
  }

  /**
   * Opens the database (openDatabase.ts), builds the components on it (components.ts) and
   * writes the network description into the data dir: the coordinator's own, or a follower's
   * copy of the file it was given.
   */
  static async open(options: NodeOptions, onError: (e: unknown) => void = () => {}): Promise<LedgerNode> {
    const db = await openDatabase(options);
    try {
      const node = new LedgerNode(options, db, await buildComponents(options, db, onError));
      if (node.isCoordinator || resolve(db.configPath) !== resolve(db.copyPath)) {
        await writeNetworkConfig(db.copyPath, node.followedNetwork ?? node.describeNetwork([]));
      }
      return node;
    } catch (e) {
      await db.store.close();
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
      throw new LedgerNodeError(TangleErrorCode.NotCoordinator, "this node follows a network and issues no milestones");
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
    return { ...this.ownNetwork, protocol: this.tangle.protocolParameters, peers };
  }

  /** HS256 secret of the JWTs that open protected routes. */
  get jwtSecret(): Uint8Array {
    return this.secrets.jwtSecret;
  }

  /**
   * Submits block bytes as a client would (the benchmarks', tools' and tests' way in): the
   * intake's verdict, with a refusal thrown as the error the API would map (`verdictError`). A
   * known block is no error.
   */
  async submitBlock(bytes: Uint8Array): Promise<{ blockId: Uint8Array; isNew: boolean }> {
    return takenBlock(await this.intake.submit(bytes, "api"));
  }

  /**
   * Starts the P2P layer: identity key, listening, static peers, gossip, sync. The coordinator
   * then rewrites `<data-dir>/network.json` with the addresses it listens on.
   */
  async startNetwork(log?: NetworkLogger, overrides: Partial<NetworkOptions> = {}): Promise<Network> {
    const o = this.options;
    const peers = o.peers.length > 0 ? o.peers : (this.followedNetwork?.peers ?? []);
    const { network, detach } = attachNetwork(
      this.components,
      { dataDir: o.dataDir, isCoordinator: this.isCoordinator, log },
      { ...defaultNetworkOptions, listenHost: o.p2pHost, port: o.p2pPort, peers, ...overrides },
    );
    this.detachNetwork = detach;
    await network.start();
    this.net = network;
    this.intake.followSync(() => network.syncStatus());
    if (this.isCoordinator) {
      await writeNetworkConfig(networkConfigPath(o.dataDir), this.describeNetwork(network.listenAddresses()));
    }
    return network;
  }

  /** Starts the coordinator (a follower has none: its network confirms what it receives). */
  start(): void {
    this.coordinatorOrUndefined?.start();
  }

  /**
   * Starts the coordinator with a milestone issued at once, resolving when it is confirmed (or
   * has failed, reported as the node's background errors are); `start` otherwise. The CLI awaits
   * it before the API listens. A follower: nothing to start, resolves at once.
   */
  async startNow(): Promise<void> {
    await this.coordinatorOrUndefined?.startNow();
  }

  async close(): Promise<void> {
    await this.coordinatorOrUndefined?.stop();
    await this.net?.stop();
    this.detachNetwork?.();
    this.net = undefined;
    this.intake.followSync(undefined);
    await this.faucet?.stop();
    await this.snapshots.idle();
    await this.pruner.stop();
    await this.verifyPool.close();
    // blocks taken in are written behind: a clean stop keeps them
    await this.tangle.intakeWritten().catch(() => {});
    await this.store.close();
  }
}
