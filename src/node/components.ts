import { join } from "node:path";
import { type Ed25519KeyPair, ed25519KeyPairFromSeed } from "../crypto/ed25519.js";
import { VerifyPool } from "../crypto/verifyPool.js";
import { Faucet } from "../faucet/index.js";
import { addressLedger, explorerIndex, Indexer } from "../indexer/index.js";
import { validateTransaction } from "../ledger/semantic/index.js";
import type { SemanticValidator } from "../ledger/whiteFlag.js";
import { defaultPowOptions } from "../pow/index.js";
import { SnapshotManager } from "../snapshot/index.js";
import { describeWriteFault, type Repositories, StorageErrorCode } from "../storage/index.js";
import { confirmMilestoneBlock } from "../tangle/confirmMilestone.js";
import { Coordinator } from "../tangle/coordinator.js";
import { NodeEvents } from "../tangle/events.js";
import { BlockIntake } from "../tangle/intake.js";
import { MetricsTracker } from "../tangle/metrics.js";
import { Pruner } from "../tangle/prune.js";
import { Tangle } from "../tangle/tangle.js";
import { defaultTipPoolOptions } from "../tangle/tipPool.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { faucetOptionsOf } from "./faucetOptions.js";
import type { OpenedDatabase } from "./openDatabase.js";
import type { NodeOptions } from "./options.js";

/**
 * The node's components, built in one place in dependency order (Lodestar's
 * `beacon-node/src/node/nodejs.ts`): the event stream first, then the tangle that emits on it,
 * the intake, the indexes attached to it, and every subscriber. Nothing here starts anything
 * (the coordinator and the network start in `LedgerNode`).
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
  /** The one event stream every component emits on or subscribes to (tangle/events.ts). */
  events: NodeEvents;
  tangle: Tangle;
  /** Typed reads of the store's buckets (the read routes'). */
  db: Repositories;
  /** Threads checking transaction signatures at intake and hashing milestones' Merkle roots. */
  verifyPool: VerifyPool;
  /** The one way in for blocks: HTTP, gossip, peers' answers (tangle/intake.ts). */
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
  /** The built-in coordinator, on the node that holds the network's key. */
  coordinator: Coordinator | undefined;
  /** The faucet (src/faucet), when the node runs one (faucetOptions.ts decides). */
  faucet: Faucet | undefined;
}

export async function buildComponents(
  options: NodeOptions,
  db: OpenedDatabase,
  onError: (e: unknown) => void,
): Promise<NodeComponents> {
  const { store, protocolParameters } = db;
  // 1. the event stream and the tangle emitting on it; Merkle roots are hashed on the pool
  const events = new NodeEvents();
  events.onListenerError = onError;
  // the first write the database refuses stops intake and the coordinator (they read the fault
  // from the store); it is reported once, with what to do
  store.onWriteFault = (fault) => onError(new LedgerNodeError(StorageErrorCode.WriteFailed, describeWriteFault(fault)));
  const verifyPool = new VerifyPool();
  const tangle = await Tangle.open(store, {
    protocolParameters,
    tipPool: defaultTipPoolOptions,
    events,
    merkleRoots: (lists) => verifyPool.merkleRoots(lists),
  });
  const keyPairs: Ed25519KeyPair[] = db.secrets.coordinatorSeeds.map(ed25519KeyPairFromSeed);
  const coordinatorPublicKeys = db.network.coordinatorPublicKeys;
  const intake = new BlockIntake(tangle, {
    coordinatorPublicKeys,
    coordinatorThreshold: db.network.coordinatorThreshold,
    verifyPool,
  });

  // 2. the indexes write in every milestone's batch from here on, including the pending ones below
  const indexer = new Indexer(store);
  for (const index of [indexer, explorerIndex(tangle.db), addressLedger(tangle.db)]) events.attachIndex(index);

  // 3. a milestone whose block was stored but whose batch was not (a crash between the two) is
  // applied now, exactly as it would have been: same cone, same roots
  for (const pending of tangle.pendingMilestones()) {
    if (pending.milestone.index === tangle.latestMilestone.index + 1) {
      await confirmMilestoneBlock(tangle, pending.blockId, pending.milestone, semanticValidator);
    }
  }
  for (const index of events.ledgerIndexes) await index.catchUp();

  // 4. the read-only subscribers: metrics, pruning and automatic snapshots after each milestone
  const latest = tangle.latestMilestone;
  const metrics = new MetricsTracker(events, latest.index > 0 ? latest.timestamp : undefined);
  const pruner = await Pruner.create(tangle, { pruneBelow: options.pruneBelow }, onError);
  const snapshots = new SnapshotManager(
    store,
    { directory: join(options.dataDir, "snapshots"), interval: options.snapshotInterval },
    { belowMaxDepth: protocolParameters.belowMaxDepth, pruner, onError },
  );
  events.on("milestoneConfirmed", ({ milestone }) => {
    pruner.onConfirmed(milestone.index);
    snapshots.onConfirmed(milestone.index);
  });

  // 5. the coordinator, whose blocks are announced through the intake once on disk
  const coordinator = !db.follows
    ? new Coordinator(
        tangle,
        semanticValidator,
        {
          intervalMs: db.network.milestoneIntervalMs ?? options.milestoneIntervalMs,
          keyPairs,
          verifyPool,
          // its own threads, one per core: they idle between milestones, and a milestone's
          // checkpoints are a chain mined one after the other (--pow-workers is for clients)
          powWorkers: defaultPowOptions.workers,
          onBlockIssued: (issued) => intake.announceIssued(issued),
        },
        onError,
      )
    : undefined;

  // 6. the faucet, paying from its key after each confirmed milestone (src/faucet)
  const faucetOptions = await faucetOptionsOf(options, {
    networkName: protocolParameters.networkName,
    runsCoordinator: coordinator !== undefined,
    storedSeed: db.secrets.faucetSeed,
  });
  const repositories = tangle.db;
  const faucet = faucetOptions
    ? new Faucet({ tangle, events, indexer, outputs: repositories.outputs, intake }, faucetOptions, { onError })
    : undefined;
  return {
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
    coordinator,
    faucet,
  };
}
