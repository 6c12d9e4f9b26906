import "./polyfill.js";
import { type GossipSub, type Message, TopicValidatorResult } from "@libp2p/gossipsub";
import type { IntakeVerdict } from "../tangle/intake.js";

/**
 * Blocks on gossipsub. Messages are the raw block bytes, unsigned (`StrictNoSign`: a block
 * carries its own PoW or, for a milestone, the coordinator's signature, so a libp2p signature
 * would add nothing); the message ID is the block ID. Every message passes the topic validator
 * before gossipsub delivers or forwards it, and the node's intake gives the verdict
 * (tangle/intake.ts): a rejected block is not forwarded and the peer that sent it loses score;
 * an ignored one (a milestone older than the ledger) is dropped quietly; an accepted one is
 * forwarded.
 */

/** The blocks topic of a network. */
export function blocksTopic(networkName: string): string {
  return `/ledger-node/${networkName}/blocks/1.0.0`;
}

export interface BlockGossipHandlers {
  /** The intake's verdict on a block from `peer` (it takes accepted blocks in). */
  receive(bytes: Uint8Array, peer: string): Promise<IntakeVerdict>;
  /** A rejected block, or a signed message, from `peer`. */
  onInvalid(peer: string, code: string, reason: string): void;
}

export class BlockGossip {
  constructor(
    private readonly pubsub: GossipSub,
    readonly topic: string,
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
      this.handlers.onInvalid(peer, "GOSSIP_SIGNED_MESSAGE", "signed message");
      return TopicValidatorResult.Reject;
    }
    const verdict = await this.handlers.receive(message.data, peer);
    if (verdict.kind === "rejected") {
      this.handlers.onInvalid(peer, verdict.code, verdict.details);
      return TopicValidatorResult.Reject;
    }
    return verdict.kind === "accepted" ? TopicValidatorResult.Accept : TopicValidatorResult.Ignore;
  }
}
