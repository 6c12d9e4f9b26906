import { mkdir } from "node:fs/promises";
import { ed25519KeyPairFromSeed } from "../crypto/ed25519.js";
import { validateTransaction } from "../ledger/semantic/index.js";
import type { SemanticValidator } from "../ledger/whiteFlag.js";
import { defaultKvStoreOptions, KvStore } from "../storage/index.js";
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
      const coordinator = new Coordinator(
        tangle,
        semanticValidator,
        { intervalMs: options.milestoneIntervalMs, keyPair: ed25519KeyPairFromSeed(init.secrets.coordinatorSeed) },
        onError,
      );
      return new LedgerNode(options, store, tangle, coordinator, init.secrets, init.created);
    } catch (e) {
      await store.close();
      throw e;
    }
  }

  /** HS256 secret of the JWTs that open protected routes. */
  get jwtSecret(): Uint8Array {
    return this.secrets.jwtSecret;
  }

  /** The public key the built-in coordinator signs milestones with. */
  get coordinatorPublicKey(): Uint8Array {
    return ed25519KeyPairFromSeed(this.secrets.coordinatorSeed).publicKey;
  }

  start(): void {
    this.coordinator.start();
  }

  async close(): Promise<void> {
    await this.coordinator.stop();
    await this.store.close();
  }
}
