import "./polyfill.js";
import { type GossipSub, type Message, TopicValidatorResult } from "@libp2p/gossipsub";
import type { BlockVerdict, InvalidBlock, ValidatedBlock } from "./validateBlocks.js";

/**
 * Blocks on gossipsub. Messages are the raw block bytes, unsigned (`StrictNoSign`: a block
 * carries its own PoW or, for a milestone, the coordinator's signature, so a libp2p signature
 * would add nothing); the message ID is the block ID. Every message passes the topic validator
 * before gossipsub delivers or forwards it: an invalid block is rejected (not forwarded, and
 * the peer that sent it loses score), a valid one is handed to `onValid`, which decides between
 * accept (forward) and ignore (drop quietly, e.g. a milestone older than the ledger).
 */

/** The blocks topic of a network. */
export function blocksTopic(networkName: string): string {
  return `/ledger-node/${networkName}/blocks/1.0.0`;
}

export interface BlockGossipHandlers {
  /** A valid block from `peer`: store it; return "accept" to forward it, "ignore" to drop it. */
  onValid(block: ValidatedBlock, peer: string): "accept" | "ignore";
  /** An invalid block (or a signed message) from `peer`. */
  onInvalid(peer: string, verdict: InvalidBlock): void;
}

export class BlockGossip {
  constructor(
    private readonly pubsub: GossipSub,
    readonly topic: string,
    private readonly validate: (bytes: Uint8Array) => Promise<BlockVerdict>,
    private readonly handlers: BlockGossipHandlers,
  ) {}

  start(): void {
    this.pubsub.topicValidators.set(this.topic, (peerId, message) => this.check(peerId.toString(), message));
    this.pubsub.subscribe(this.topic);
  }

  stop(): void {
    this.pubsub.topicValidators.delete(this.topic);
    if (this.pubsub.getTopics().includes(this.topic)) this.pubsub.unsubscribe(this.topic);
  }

  /** Publishes a block that entered this node (API submission, coordinator). */
  async publish(bytes: Uint8Array): Promise<void> {
    await this.pubsub.publish(this.topic, bytes);
  }

  /** Peers subscribed to the blocks topic. */
  subscribers(): string[] {
    return this.pubsub.getSubscribers(this.topic).map((p) => p.toString());
  }

  private async check(peer: string, message: Message): Promise<TopicValidatorResult> {
    if (message.type !== "unsigned") {
      this.handlers.onInvalid(peer, { kind: "invalid", code: "GOSSIP_SIGNED_MESSAGE", reason: "signed message" });
      return TopicValidatorResult.Reject;
    }
    const verdict = await this.validate(message.data);
    if (verdict.kind === "invalid") {
      this.handlers.onInvalid(peer, verdict);
      return TopicValidatorResult.Reject;
    }
    return this.handlers.onValid(verdict, peer) === "accept"
      ? TopicValidatorResult.Accept
      : TopicValidatorResult.Ignore;
  }
}
