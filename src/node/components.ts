import { join } from "node:path";
import { ed25519KeyPairFromSeed } from "../crypto/ed25519.js";
import { VerifyPool } from "../crypto/verifyPool.js";
import { Faucet } from "../faucet/index.js";
import { addressLedger, explorerIndex, Indexer } from "../indexer/index.js";
import { validateTransaction } from "../ledger/semantic/index.js";
import type { SemanticValidator } from "../ledger/whiteFlag.js";
import { Network, type NetworkLogger, type NetworkOptions } from "../network/index.js";
import { defaultPowOptions } from "../pow/index.js";
import { SnapshotManager } from "../snapshot/index.js";
import { describeWriteFault, type Repositories, StorageErrorCode } from "../storage/index.js";
import { confirmMilestoneBlock } from "../tangle/confirmMilestone.js";
import { Coordinator } from "../tangle/coordinator.js";
import { TangleErrorCode } from "../tangle/errors.js";
import { NodeEvents } from "../tangle/events.js";
import { BlockIntake } from "../tangle/intake.js";
import { MetricsTracker } from "../tangle/metrics.js";
import { MilestoneConfirmer } from "../tangle/milestoneConfirmer.js";
import { NodeClock } from "../tangle/nodeClock.js";
import { Pruner } from "../tangle/prune.js";
import { Tangle } from "../tangle/tangle.js";
import { defaultTipPoolOptions } from "../tangle/tipPool.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { faucetOptionsOf } from "./faucetOptions.js";
import { addressSortDir, indexSortDir, type OpenedDatabase } from "./openDatabase.js";
import type { NodeOptions } from "./options.js";

/**
 * What runs in a node and who listens to what: every component is built here, in dependency
 * order, with the same constructor shape `(deps, options)`, and every listener of the node's
 * event stream is attached here (`attachListeners`, `attachNetwork`), not by the component
 * itself (Lodestar's `beacon-node/src/node/nodejs.ts`). ARCHITECTURE.md's component and listener
 * tables are this file's, and a test holds them to it (test/unit/node/components.test.ts).
 * Nothing here starts anything: the coordinator and the network start in `LedgerNode`. The
 * API's own listeners (the event API's publisher, the Prometheus counters) are attached where
 * the API is built, `api/server.ts`, the layer above.
 */

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

export interface NodeComponents {
  /** The one event stream every component emits on or listens to (tangle/events.ts). */
  events: NodeEvents;
  tangle: Tangle;
  /** Typed reads of the store's buckets (the read routes'). */
  db: Repositories;
  /** Threads checking transaction signatures at intake and hashing milestones' Merkle roots. */
  verifyPool: VerifyPool;
  /** The one way in for blocks: HTTP, gossip, peers' answers, the faucet, the coordinator (tangle/intake.ts). */
  intake: BlockIntake;
  /** The indexer of inx-indexer's routes; with the explorer's indexes, attached to `events`. */
  indexer: Indexer;
  metrics: MetricsTracker;
  /** Background pruning (`--prune-below`). */
  pruner: Pruner;
  /** Snapshot writing (the control route, `--snapshot-interval`). */
  snapshots: SnapshotManager;
  /** Keys whose signatures make a milestone valid (the network's; a milestone needs its threshold of them). */
  coordinatorPublicKeys: Uint8Array[];
  /** The clock of the coordinator's milestone timestamps (time travel on a dev network). */
  clock: NodeClock;
  /** The built-in coordinator, on the node that holds the network's key. */
  coordinator: Coordinator | undefined;
  /** A follower's confirmer of received milestones (it runs while the network does). */
  confirmer: MilestoneConfirmer | undefined;
  /** The faucet (src/faucet), when the node runs one (faucetOptions.ts decides). */
  faucet: Faucet | undefined;
  /** Detaches every listener and index `attachListeners` attached (before components are built anew). */
  detach: () => void;
}

/** Signature checks queued at most before a client's answer waits for its own, with auto milestones. */
const AUTO_VERIFY_BACKLOG = 256;

/**
 * Builds every component on `db`. `kept`: the event stream and the verify threads of components
 * built before on the same database (a dev revert builds the rest anew, node.ts `replaceState`):
 * the API's listeners stay attached to the one stream.
 */

export async function buildComponents(
  options: NodeOptions,
  db: OpenedDatabase,
  onError: (e: unknown) => void,
  kept?: Pick<NodeComponents, "events" | "verifyPool">,
): Promise<NodeComponents> {
  const { store, protocolParameters } = db;
  // 1. the event stream and the tangle emitting on it; Merkle roots are hashed on the pool
  const events = kept?.events ?? new NodeEvents();
  events.onListenerError = onError;
  // the first write the database refuses stops intake and the coordinator (they read the fault
  // from the store); it is reported once, with what to do
  store.onWriteFault = (fault) => onError(new LedgerNodeError(StorageErrorCode.WriteFailed, describeWriteFault(fault)));
  const verifyPool = kept?.verifyPool ?? new VerifyPool();
  const tangle = await Tangle.open(store, {
    protocolParameters,
    tipPool: defaultTipPoolOptions,
    events,
    merkleRoots: (lists) => verifyPool.merkleRoots(lists),
  });
  const coordinatorPublicKeys = db.network.coordinatorPublicKeys;
  const intake = new BlockIntake(
    { tangle, verifyPool },
    {
      coordinatorPublicKeys,
      coordinatorThreshold: db.network.coordinatorThreshold,
      // auto milestones confirm a block once its signatures are checked: a short queue of checks
      // keeps clients at the pace of confirmation (bench devnode)
      ...(options.milestones === "auto" && !db.follows ? { verifyBacklog: AUTO_VERIFY_BACKLOG } : {}),
    },
  );

  // 2. the indexes write in every milestone's batch from here on, including the pending ones below
  const indexer = new Indexer({ store }, { sortDir: indexSortDir(options.dataDir) });
  for (const index of [indexer, explorerIndex(tangle.db), addressLedger(store, addressSortDir(options.dataDir))])
    events.attachIndex(index);

  // 3. a milestone whose block was stored but whose batch was not (a crash between the two) is
  // applied now, exactly as it would have been: same cone, same roots
  for (const pending of tangle.pendingMilestones()) {
    if (pending.milestone.index === tangle.latestMilestone.index + 1) {
      await confirmMilestoneBlock(tangle, pending.blockId, pending.milestone, semanticValidator);
    }
  }
  for (const index of events.ledgerIndexes) await index.catchUp();

  // 4. what reads the ledger after each milestone: metrics, pruning, automatic snapshots
  const latest = tangle.latestMilestone;
  const metrics = new MetricsTracker({ lastTimestamp: latest.index > 0 ? latest.timestamp : undefined });
  const pruner = await Pruner.create({ tangle, onError }, { pruneBelow: options.pruneBelow });
  const snapshots = new SnapshotManager(
    { store, belowMaxDepth: protocolParameters.belowMaxDepth, pruner, onError },
    { directory: join(options.dataDir, "snapshots"), interval: options.snapshotInterval },
  );

  // 5. who moves the ledger: the coordinator (its blocks take the intake like any other, its
  // timestamps from the node's clock), or on a follower the confirmer of the milestones it receives
  const clock = await NodeClock.load(tangle.db);
  const coordinator = !db.follows
    ? new Coordinator(
        { tangle, intake, validate: semanticValidator, verifyPool, onError },
        {
          intervalMs: db.network.milestoneIntervalMs ?? options.milestoneIntervalMs,
          mode: options.milestones,
          maxLeadSeconds: options.milestoneMaxLeadSeconds,
          clock,
          keyPairs: db.secrets.coordinatorSeeds.map(ed25519KeyPairFromSeed),
          // its own threads, one per core: they idle between milestones, and a milestone's
          // checkpoints are a chain mined one after the other (--pow-workers is for clients)
          powWorkers: defaultPowOptions.workers,
        },
      )
    : undefined;
  const confirmer = db.follows
    ? new MilestoneConfirmer({
        tangle,
        validate: semanticValidator,
        onFailure: (e) =>
          onError(
            new LedgerNodeError(
              TangleErrorCode.MilestoneMismatch,
              `cannot confirm the next milestone; this node no longer follows the network: ${e.message}`,
              undefined,
              { cause: e },
            ),
          ),
      })
    : undefined;

  // 6. the faucet, paying from its key after each confirmed milestone (src/faucet)
  const faucetOptions = await faucetOptionsOf(options, {
    networkName: protocolParameters.networkName,
    runsCoordinator: coordinator !== undefined,
    storedSeed: db.secrets.faucetSeed,
  });
  const repositories = tangle.db;
  // milestones on demand come only for a block: the faucet sends its own as soon as it is asked
  const onDemand = coordinator !== undefined && coordinator.mode !== "interval";
  const faucet = faucetOptions
    ? new Faucet(
        { tangle, indexer, outputs: repositories.outputs, intake, onError },
        { ...faucetOptions, sendOnEnqueue: onDemand },
      )
    : undefined;

  const components: NodeComponents = {
    events,
    tangle,
    db: repositories,
    verifyPool,
    intake,
    indexer,
    metrics,
    pruner,
    snapshots,
    coordinatorPublicKeys,
    clock,
    coordinator,
    confirmer,
    faucet,
    detach: () => {},
  };
  components.detach = attachListeners(components);
  return components;
}

/**
 * 7. Every listener of the node's events but the network's (ARCHITECTURE.md, Who listens to
 * what). The indexes are attached above, before the pending milestones are applied. Returns what
 * detaches them all, the indexes too.
 */
function attachListeners(c: NodeComponents): () => void {
  const { events, metrics, pruner, snapshots, coordinator, confirmer, faucet } = c;
  const attached = [
    events.on("blockSolid", () => metrics.blockSolid()),
    events.on("milestoneConfirmed", (e) => metrics.milestoneConfirmed(e)),
    events.on("milestoneConfirmed", ({ milestone }) => {
      pruner.onConfirmed(milestone.index);
      snapshots.onConfirmed(milestone.index);
    }),
  ];
  if (coordinator?.mode === "auto") {
    attached.push(events.on("blockTaken", (e) => coordinator.blockTaken(e)));
    c.intake.pacedBy(() => coordinator.pace());
  }
  if (confirmer) attached.push(events.on("blockSolid", (e) => confirmer.blockSolid(e.blockId, e.block)));
  if (faucet) attached.push(events.on("milestoneConfirmed", () => faucet.milestoneConfirmed()));
  const indexes = [...events.ledgerIndexes];
  return () => {
    for (const off of attached) off();
    for (const index of indexes) events.detachIndex(index);
  };
}

/**
 * 8. The P2P layer, built when the node starts it (`LedgerNode.startNetwork`), and its listeners:
 * blocks from clients and the coordinator broadcast, peers' milestones for sync, each
 * confirmation a sync tick. Returns the network and what detaches its listeners.
 */
export function attachNetwork(
  c: NodeComponents,
  deps: { dataDir: string; isCoordinator: boolean; log?: NetworkLogger | undefined },
  options: NetworkOptions,
): { network: Network; detach: () => void } {
  const network = new Network(
    {
      tangle: c.tangle,
      intake: c.intake,
      dataDir: deps.dataDir,
      isCoordinator: deps.isCoordinator,
      confirmer: c.confirmer,
      ...(deps.log ? { log: deps.log } : {}),
    },
    options,
  );
  const listeners = [
    c.events.on("blockTaken", (e) => network.blockTaken(e)),
    c.events.on("latestMilestone", (e) => network.latestMilestone(e)),
    c.events.on("milestoneConfirmed", (e) => network.milestoneConfirmed(e)),
  ];
  return {
    network,
    detach: () => {
      for (const off of listeners) off();
    },
  };
}
