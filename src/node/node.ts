import { mkdir } from "node:fs/promises";
import { ed25519KeyPairFromSeed } from "../crypto/ed25519.js";
import { VerifyPool } from "../crypto/verifyPool.js";
import { validateTransaction } from "../ledger/semantic/index.js";
import type { SemanticValidator } from "../ledger/whiteFlag.js";
import { defaultKvStoreOptions, KvStore } from "../storage/index.js";
import { acceptBlock } from "../tangle/acceptBlock.js";
import { confirmMilestoneBlock } from "../tangle/confirmMilestone.js";
import { Coordinator } from "../tangle/coordinator.js";
import { Tangle } from "../tangle/tangle.js";
import { defaultTipPoolOptions } from "../tangle/tipPool.js";
import { devProtocolParameters } from "./devNetwork.js";
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

/**
 * A running node: storage, tangle and the built-in coordinator, wired from one options object.
 * `open` prepares everything (genesis on an empty data dir, resume otherwise) without starting
 * the coordinator; `start` starts it; `close` stops it and closes the database.
 */
export class LedgerNode {
  private constructor(
    readonly options: NodeOptions,
    readonly store: KvStore,
    readonly tangle: Tangle,
    readonly coordinator: Coordinator,
    readonly secrets: NodeSecrets,
    readonly createdGenesis: boolean,
    /** Threads checking transaction signatures at intake (see acceptBlock). */
    readonly verifyPool: VerifyPool,
    /** The public key the built-in coordinator signs milestones with. */
    readonly coordinatorPublicKey: Uint8Array,
  ) {}

  static async open(options: NodeOptions, onError: (e: unknown) => void = () => {}): Promise<LedgerNode> {
    await mkdir(options.dataDir, { recursive: true });
    const store = await KvStore.open({ ...defaultKvStoreOptions, path: `${options.dataDir}/db` });
    try {
      const init = await initDatabase(store, devProtocolParameters(options.minPowScore));
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
      const verifyPool = new VerifyPool();
      const keyPair = ed25519KeyPairFromSeed(init.secrets.coordinatorSeed);
      const coordinator = new Coordinator(
        tangle,
        semanticValidator,
        { intervalMs: options.milestoneIntervalMs, keyPair, verifyPool, powWorkers: options.powWorkers },
        onError,
      );
      return new LedgerNode(
        options,
        store,
        tangle,
        coordinator,
        init.secrets,
        init.created,
        verifyPool,
        keyPair.publicKey,
      );
    } catch (e) {
      await store.close();
      throw e;
    }
  }

  /** HS256 secret of the JWTs that open protected routes. */
  get jwtSecret(): Uint8Array {
    return this.secrets.jwtSecret;
  }

  /**
   * The internal submit path for block bytes (the API's and the benchmarks'): decode, syntactic
   * rules, PoW or milestone signature, store, solidify; signatures pre-checked on the pool.
   */
  submitBlock(bytes: Uint8Array): Promise<{ blockId: Uint8Array; isNew: boolean }> {
    return acceptBlock(this.tangle, bytes, {
      coordinatorPublicKeys: [this.coordinatorPublicKey],
      verifyPool: this.verifyPool,
    });
  }

  start(): void {
    this.coordinator.start();
  }

  async close(): Promise<void> {
    await this.coordinator.stop();
    await this.verifyPool.close();
    await this.store.close();
  }
}
