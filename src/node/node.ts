import { resolve } from "node:path";
import type { MilestoneKeys } from "../codec/syntactic.js";
import type { VerifyPool } from "../crypto/verifyPool.js";
import type { Faucet } from "../faucet/index.js";
import { forgetLedgerRankings, type Indexer } from "../indexer/index.js";
import {
  defaultNetworkOptions,
  type Network,
  type NetworkConfig,
  type NetworkLogger,
  type NetworkOptions,
  networkConfigPath,
  peersForFile,
  writeNetworkConfig,
} from "../network/index.js";
import type { SnapshotManager } from "../snapshot/index.js";
import { Spammer } from "../spammer/index.js";
import type { KvStore, Repositories, WriteBatch } from "../storage/index.js";
import type { Coordinator } from "../tangle/coordinator.js";
import { DevErrorCode, TangleErrorCode } from "../tangle/errors.js";
import type { NodeEvents } from "../tangle/events.js";
import { type BlockIntake, takenBlock } from "../tangle/intake.js";
import type { MetricsSnapshot, MetricsTracker } from "../tangle/metrics.js";
import type { NodeClock } from "../tangle/nodeClock.js";
import type { Pruner } from "../tangle/prune.js";
import type { Tangle } from "../tangle/tangle.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { attachNetwork, buildComponents, type NodeComponents, semanticValidator } from "./components.js";
import { DevTools, isDevNetwork } from "./devTools.js";
import { limitHeapGrowth } from "./heapGrowth.js";
import { type NodeSecrets, type OpenedDatabase, openDatabase } from "./openDatabase.js";
import type { NodeOptions } from "./options.js";
import { spammerSeedOf } from "./spammerOptions.js";

export { semanticValidator };

/**
 * A running node: storage, tangle, the built-in coordinator (on the node that started the
 * network) and the P2P network, wired from one options object. `open` prepares everything
 * (genesis on an empty data dir, resume otherwise) without starting anything; `startNetwork`
 * starts the P2P layer and `start` the coordinator; `close` stops both and closes the database.
 *
 * Which role a node has: a data directory created without `--network-config` starts a dev
 * network (or, made by `init`, the network of its own file) and holds its coordinator key; one created with it (or started with it later)
 * follows the network the file describes, keeps a copy of the file, and confirms the
 * milestones it receives. A coordinator key that the network's configuration does not list
 * (e.g. a fresh one from a snapshot import) does not make a node the coordinator.
 */
export class LedgerNode {
  private net: Network | undefined;
  private detachNetwork: (() => void) | undefined;
  /** How the network was started, to start it again after a dev revert. */
  private networkStart: { log: NetworkLogger | undefined; overrides: Partial<NetworkOptions> } | undefined;
  /** Everything `components.ts` built (ARCHITECTURE.md, Components); built anew by a dev revert. */
  private c: NodeComponents;
  readonly store: KvStore;
  readonly secrets: NodeSecrets;
  /** Whether this start wrote the genesis (a fresh data directory). */
  readonly createdGenesis: boolean;
  /** Whether this start filled the data directory from snapshot files (`--snapshot`). */
  readonly importedSnapshot: boolean;
  /** The configuration of the network this node follows; undefined on the coordinator. */
  readonly followedNetwork: NetworkConfig | undefined;
  /** The dev routes' tools (`/api/dev/v1`), on a dev network's coordinator only (devTools.ts). */
  dev: DevTools | undefined;
  /**
   * The spammer (`/api/spammer/v1`, src/spammer), unless `--spammer false`. Built once, beside the
   * components: it reads them through getters, so a dev revert's new ones are the ones it uses.
   */
  spammer: Spammer | undefined;
  /** The network's description as this node knows it (network.json without the peers). */
  private readonly ownNetwork: NetworkConfig;

  private constructor(
    readonly options: NodeOptions,
    private readonly opened: OpenedDatabase,
    components: NodeComponents,
    private readonly onError: (e: unknown) => void,
  ) {
    this.c = components;
    this.store = opened.store;
    this.secrets = opened.secrets;
    this.createdGenesis = opened.createdGenesis;
    this.importedSnapshot = opened.importedSnapshot;
    this.followedNetwork = opened.follows ? opened.network : undefined;
    this.ownNetwork = opened.network;
  }

  /** Everything `components.ts` built (ARCHITECTURE.md, Components). */
  get components(): NodeComponents {
    return this.c;
  }
  get events(): NodeEvents {
    return this.c.events;
  }
  get tangle(): Tangle {
    return this.c.tangle;
  }
  get db(): Repositories {
    return this.c.db;
  }
  get intake(): BlockIntake {
    return this.c.intake;
  }
  get verifyPool(): VerifyPool {
    return this.c.verifyPool;
  }
  get indexer(): Indexer {
    return this.c.indexer;
  }
  get metrics(): MetricsTracker {
    return this.c.metrics;
  }
  get snapshots(): SnapshotManager {
    return this.c.snapshots;
  }
  get pruner(): Pruner {
    return this.c.pruner;
  }
  /** The faucet (`/api/faucet/v1`), when this node runs one. */
  get faucet(): Faucet | undefined {
    return this.c.faucet;
  }
  /** Keys whose signature makes a milestone valid: the coordinator's, or the network configuration's. */
  get coordinatorPublicKeys(): Uint8Array[] {
    return this.c.coordinatorPublicKeys;
  }
  /** The clock of the milestones this node issues (time travel on a dev network). */
  get clock(): NodeClock {
    return this.c.clock;
  }

  /**
   * Opens the database (openDatabase.ts), builds the components on it (components.ts) and
   * writes the network description into the data dir: the coordinator's own, or a follower's
   * copy of the file it was given.
   */
  static async open(given: NodeOptions, onError: (e: unknown) => void = () => {}): Promise<LedgerNode> {
    limitHeapGrowth();
    const db = await openDatabase(given);
    // a follower's milestones come as its coordinator issues them (its health reads the mode)
    const options =
      db.follows && db.network.milestones !== undefined ? { ...given, milestones: db.network.milestones } : given;
    try {
      const node = new LedgerNode(options, db, await buildComponents(options, db, onError), onError);
      if (node.isCoordinator || resolve(db.configPath) !== resolve(db.copyPath)) {
        await writeNetworkConfig(db.copyPath, node.followedNetwork ?? node.describeNetwork([]));
      }
      if (node.isCoordinator && isDevNetwork(db.network)) node.dev = await DevTools.open(node);
      if (options.spammer) node.spammer = await node.buildSpammer();
      return node;
    } catch (e) {
      await db.store.close();
      throw e;
    }
  }

  private async buildSpammer(): Promise<Spammer> {
    const fundedSeed = await spammerSeedOf(this.options, {
      isDevCoordinator: this.dev !== undefined,
      describe: () => this.describeNetwork([]),
    });
    const node = this;
    return new Spammer(
      {
        get tangle() {
          return node.tangle;
        },
        get intake() {
          return node.intake;
        },
        get indexer() {
          return node.indexer;
        },
        get outputs() {
          return node.db.outputs;
        },
        onError: this.onError,
      },
      { fundedSeed },
    );
  }

  /** Whether this node runs the coordinator (it started the network and holds its key). */
  get isCoordinator(): boolean {
    return this.c.coordinator !== undefined;
  }

  /** The built-in coordinator; NotCoordinator on a follower. */
  get coordinator(): Coordinator {
    if (!this.c.coordinator) {
      throw new LedgerNodeError(TangleErrorCode.NotCoordinator, "this node follows a network and issues no milestones");
    }
    return this.c.coordinator;
  }

  /** The network's coordinator keys and its threshold of signatures per milestone (TIP-29). */
  get milestoneKeys(): MilestoneKeys {
    return { publicKeys: this.coordinatorPublicKeys, threshold: this.ownNetwork.coordinatorThreshold };
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
    const { milestones: _, ...own } = this.ownNetwork;
    const mode = this.c.coordinator?.mode;
    return {
      ...own,
      protocol: this.tangle.protocolParameters,
      peers,
      ...(mode === "auto" || mode === "manual" ? { milestones: mode } : {}),
    };
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
    this.networkStart = { log, overrides };
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
      await writeNetworkConfig(
        networkConfigPath(o.dataDir),
        this.describeNetwork(peersForFile(network.listenAddresses())),
      );
    }
    return network;
  }

  /** Starts the coordinator (a follower has none: its network confirms what it receives). */
  start(): void {
    this.c.coordinator?.start();
  }

  /**
   * Starts the coordinator with a milestone issued at once, resolving when it is confirmed (or
   * has failed, reported as the node's background errors are); `start` otherwise. The CLI awaits
   * it before the API listens. A follower: nothing to start, resolves at once.
   */
  async startNow(): Promise<void> {
    await this.c.coordinator?.startNow();
  }

  /**
   * Puts the node's state back (a dev revert or reset, devStates.ts): refused while blocks are
   * being submitted; otherwise intake is suspended (blocks meanwhile answer 503), everything that
   * moves the ledger stops, `fill`'s batch (what differs from the state put back) is written at
   * once, and every component is built anew on the database, exactly as a restart would build it;
   * the API's listeners stay, on the same event stream, and hear `reverted`. The coordinator then
   * runs as before; a ledger back at genesis gets its first milestone at once, as at a first start.
   */
  async replaceState(fill: (batch: WriteBatch) => Promise<void>, metrics?: MetricsSnapshot): Promise<void> {
    // the spammer's blocks are always in flight while it runs: it holds them back meanwhile
    if (this.spammer) return this.spammer.pausedWhile(() => this.replaceStateNow(fill, metrics));
    return this.replaceStateNow(fill, metrics);
  }

  private async replaceStateNow(fill: (batch: WriteBatch) => Promise<void>, metrics?: MetricsSnapshot): Promise<void> {
    const old = this.c;
    const submitting = old.intake.inFlight;
    if (submitting > 0) {
      throw new LedgerNodeError(
        DevErrorCode.Busy,
        `${submitting} block${submitting === 1 ? " is" : "s are"} being submitted: nothing was put back; ask again once every submission is answered`,
      );
    }
    old.intake.suspend(
      "the node is putting its state back (a dev revert or reset): submit the block again once that is done",
    );
    // the network comes back on the port it listened on (with --p2p-port 0 a fresh one each time
    // would strand the peers dialling the address it printed)
    const port = this.net?.listenAddresses().map((a) => /\/tcp\/(\d+)/.exec(a)?.[1])[0];
    const network =
      this.net && this.networkStart
        ? {
            ...this.networkStart,
            overrides: { ...this.networkStart.overrides, ...(port ? { port: Number(port) } : {}) },
          }
        : undefined;
    let failure: unknown;
    try {
      await old.coordinator?.stop();
      await this.stopNetwork();
      await old.faucet?.stop();
      await old.snapshots.idle();
      await old.pruner.stop();
      await old.tangle.intakeWritten().catch(() => {});
    } catch (e) {
      failure = e;
    }
    old.detach();
    if (!failure) {
      try {
        const batch = this.store.batch();
        await fill(batch);
        await batch.write({ sync: true });
      } catch (e) {
        failure = e; // the batch is written whole or not at all: the node is built on what is there
      }
    }
    // the rankings kept per ledger index describe the ledger that was there (the indexer keeps
    // them per database, which stays)
    forgetLedgerRankings(old.db);
    this.c = await buildComponents(this.options, this.opened, this.onError, {
      events: old.events,
      verifyPool: old.verifyPool,
    });
    if (metrics && !failure) this.c.metrics.restore(metrics);
    if (network) await this.startNetwork(network.log, network.overrides);
    this.events.emit("reverted", { milestone: this.tangle.latestMilestone });
    if (this.tangle.latestMilestone.index === 0) await this.c.coordinator?.startNow();
    else this.c.coordinator?.start();
    if (failure) throw failure;
  }

  private async stopNetwork(): Promise<void> {
    await this.net?.stop();
    this.detachNetwork?.();
    this.detachNetwork = undefined;
    this.net = undefined;
    this.intake.followSync(undefined);
  }

  async close(): Promise<void> {
    await this.spammer?.stop();
    await this.c.coordinator?.stop();
    await this.stopNetwork();
    await this.faucet?.stop();
    await this.snapshots.idle();
    await this.pruner.stop();
    await this.verifyPool.close();
    // blocks taken in are written behind: a clean stop keeps them
    await this.tangle.intakeWritten().catch(() => {});
    await this.store.close();
  }
}
