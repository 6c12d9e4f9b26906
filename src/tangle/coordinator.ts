import { encodeBlock } from "../codec/block.js";
import { compareBytes, toHex } from "../codec/hex.js";
import { blockIdFromBytes, computeMilestoneId } from "../codec/ids.js";
import type { Block, MilestoneEssence, MilestonePayload } from "../codec/types.js";
import { type Ed25519KeyPair, ed25519Sign } from "../crypto/ed25519.js";
import type { SemanticValidator } from "../ledger/whiteFlag.js";
import { applyConfirmation, planConfirmation } from "./confirmMilestone.js";
import type { MilestoneInfo, Tangle } from "./tangle.js";

/**
 * The dev network's built-in coordinator: every interval it selects tips, confirms their cone
 * with white-flag, and issues a milestone (TIP-29) signed with its key in a block with nonce 0.
 * Index and timestamp strictly increase and each milestone names the previous one's ID.
 * Issuing is serialized: a tick never overlaps the previous one.
 */

export interface CoordinatorOptions {
  intervalMs: number;
  keyPair: Ed25519KeyPair;
}

const MAX_PARENTS = 8;

export class Coordinator {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();
  private stopped = true;

  constructor(
    private readonly tangle: Tangle,
    private readonly validate: SemanticValidator,
    private readonly options: CoordinatorOptions,
    private readonly onError: (e: unknown) => void = () => {},
  ) {}

  start(): void {
    this.stopped = false;
    const tick = () => {
      if (this.stopped) return;
      this.running = this.issueMilestone()
        .catch(this.onError)
        .finally(() => {
          if (!this.stopped) this.timer = setTimeout(tick, this.options.intervalMs);
        });
    };
    this.timer = setTimeout(tick, this.options.intervalMs);
  }

  /** Stops issuing and waits for a milestone in flight to be written. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running.catch(() => {});
  }

  /** Parents: the latest milestone block (chaining the milestones in the DAG) plus tips. */
  private parents(latest: MilestoneInfo): Uint8Array[] {
    const chosen = new Map<string, Uint8Array>();
    chosen.set(toHex(latest.blockId), latest.blockId);
    for (const tip of this.tangle.selectParents()) {
      if (chosen.size >= MAX_PARENTS) break;
      chosen.set(toHex(tip), tip);
    }
    return [...chosen.values()].sort(compareBytes);
  }

  /** Issues and confirms the next milestone; exported for tests that step the network by hand. */
  async issueMilestone(): Promise<MilestoneInfo> {
    const latest = this.tangle.latestMilestone;
    const params = this.tangle.protocolParameters;
    const index = latest.index + 1;
    const timestamp = Math.max(Math.floor(Date.now() / 1000), latest.timestamp + 1);
    const parents = this.parents(latest);

    // 1. white-flag over the cone the milestone will reference
    const plan = await planConfirmation(this.tangle, parents, index, timestamp, this.validate);

    // 2. the milestone essence, its ID and the signature over that ID (TIP-29)
    const essence: MilestoneEssence = {
      index,
      timestamp,
      protocolVersion: params.protocolVersion,
      previousMilestoneId: latest.milestoneId,
      parents,
      inclusionMerkleRoot: plan.result.inclusionMerkleRoot,
      appliedMerkleRoot: plan.result.appliedMerkleRoot,
      metadata: new Uint8Array(),
      options: [],
    };
    const milestoneId = computeMilestoneId(essence);
    const payload: MilestonePayload = {
      type: 7,
      ...essence,
      signatures: [
        {
          type: 0,
          publicKey: this.options.keyPair.publicKey,
          signature: ed25519Sign(this.options.keyPair, milestoneId),
        },
      ],
    };

    // 3. the block carrying it (milestones need no PoW: nonce 0), stored, then the one batch
    const block: Block = { protocolVersion: params.protocolVersion, parents, payload, nonce: 0n };
    const bytes = encodeBlock(block);
    const blockId = blockIdFromBytes(bytes);
    await this.tangle.storeBlock(blockId, block, bytes, true);
    return applyConfirmation(this.tangle, plan, milestoneId, blockId);
  }
}
