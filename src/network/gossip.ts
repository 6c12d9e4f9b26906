import "./polyfill.js";
import { type GossipSub, type Message, TopicValidatorResult } from "@libp2p/gossipsub";
import { blockIdFromBytes } from "../codec/ids.js";
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
  /**
   * Gossip to `peer` is lost while its connection lives on (`BlockGossip.checkStreams`): the
   * network hangs up, and the next connection (a static peer is dialled again) opens new streams.
   */
  onStreamLost(peer: string): void;
  /**
   * Whether a block held for a peer still waits for a milestone. One referenced since reaches
   * peers by sync, with its milestone's cone; gossiped, it would reach a node started from a
   * snapshot that lists it as an entry point.
   */
  awaitsMilestone(blockId: Uint8Array): boolean;
}

/**
 * The two fields of gossipsub's implementation (17.1.1: public on its class, which the package
 * does not export) that the stream repair reads: the peers it counts as connected, and its one
 * outbound stream to each. gossipStreams.test.ts fails if an upgrade moves them.
 */
interface GossipSubStreams {
  readonly peers: Map<string, unknown>;
  readonly streamsOutbound: Map<string, OutboundStream>;
}
type OutboundStream = { rawStream: { writeStatus: string } };

/** The implementation's fields, or none when they are not there (the repair is off then). */
function streamsOf(pubsub: GossipSub): GossipSubStreams | undefined {
  const s = pubsub as unknown as Partial<GossipSubStreams>;
  return s.peers instanceof Map && s.streamsOutbound instanceof Map ? (s as GossipSubStreams) : undefined;
}

/** Whether gossipsub's stream to a peer takes writes (not closed, and opened at all). */
function writable(stream: OutboundStream | undefined): boolean {
  return stream?.rawStream.writeStatus === "writable";
}

/**
 * Gossipsub heartbeats (one a second) running at which a connected peer's stream takes no
 * writes before its gossip counts as lost: a new connection opens its stream within the first
 * (identify, then the stream's negotiation), also on a loaded machine.
 */
export const STREAM_LOST_HEARTBEATS = 3;

/**
 * Blocks this node published while no peer could take them, kept for the first that can: at
 * most this many bytes (the oldest go first) and this long. A block published to no one is lost
 * to gossip for good (gossipsub remembers it as seen and will not send it again), and a lone
 * block, one no later block names as a parent, reaches a peer no other way until a milestone
 * references it; a follower's client block taken in just after the node (re)started, before its
 * peers' subscriptions arrived, or while it had no peer, was never confirmed.
 */
export const HELD_MAX_BYTES = 4 * 1024 * 1024;
export const HELD_MAX_AGE_MS = 60_000;

export class BlockGossip {
  /** Connected peers without a writable stream, with the heartbeats running they were found so. */
  private unwritable = new Map<string, number>();
  private readonly onHeartbeat = () => this.heartbeat();
  private readonly streams: GossipSubStreams | undefined;
  /** Blocks published while no peer could take them, oldest first (`HELD_MAX_BYTES`). */
  private held: { bytes: Uint8Array; at: number }[] = [];
  /** The first of `held` not dropped yet. */
  private heldFirst = 0;
  private heldBytes = 0;

  constructor(
    private readonly pubsub: GossipSub,
    readonly topic: string,
    private readonly handlers: BlockGossipHandlers,
    private readonly now: () => number = Date.now,
  ) {
    this.streams = streamsOf(pubsub);
  }

  start(): void {
    this.pubsub.topicValidators.set(this.topic, (peerId, message) => this.check(peerId.toString(), message));
    this.pubsub.subscribe(this.topic);
    this.pubsub.addEventListener("gossipsub:heartbeat", this.onHeartbeat);
  }

  stop(): void {
    this.pubsub.removeEventListener("gossipsub:heartbeat", this.onHeartbeat);
    this.pubsub.topicValidators.delete(this.topic);
    if (this.pubsub.getTopics().includes(this.topic)) this.pubsub.unsubscribe(this.topic);
    this.clearHeld();
  }

  /** Each gossipsub heartbeat: the held blocks published (or let go when too old), the streams checked. */
  heartbeat(): void {
    this.releaseHeld();
    this.checkStreams();
  }

  /**
   * A peer connected: a closed stream gossipsub still holds for it is forgotten, so gossipsub
   * opens a new one for this connection. gossipsub (17.1.1) writes to a peer over one outbound
   * stream, opened when the peer connects, and opens none while it holds one. A stream it
   * finished opening just after the peer's connection closed is stored after the peer was
   * cleared, closed; the peer's next connection then got no stream, and nothing reached the
   * peer for as long as that connection lasted: not this node's subscription, so the peer never
   * sent it a block, and not a block this node published (a follower restarted at once by its
   * operator, or by a test, took no blocks from the coordinator's gossip again).
   */
  peerConnected(peer: string): void {
    const streams = this.streams;
    if (streams && !writable(streams.streamsOutbound.get(peer))) streams.streamsOutbound.delete(peer);
  }

  /**
   * Each gossipsub heartbeat: a peer gossipsub counts as connected whose stream has taken no
   * writes for `STREAM_LOST_HEARTBEATS` heartbeats running has lost its gossip for good, whatever
   * closed the stream (the race above, when the peer connected again before the stream was
   * stored; the peer closing it): `onStreamLost`. Bounded by the connected peers.
   */
  checkStreams(): void {
    const streams = this.streams;
    if (!streams) return;
    const now = new Map<string, number>();
    for (const peer of streams.peers.keys()) {
      if (writable(streams.streamsOutbound.get(peer))) continue;
      const times = (this.unwritable.get(peer) ?? 0) + 1;
      if (times < STREAM_LOST_HEARTBEATS) {
        now.set(peer, times);
        continue;
      }
      streams.streamsOutbound.delete(peer);
      this.handlers.onStreamLost(peer);
    }
    this.unwritable = now;
  }

  /**
   * Publishes a block that entered this node (API submission, coordinator). While no peer can
   * take it, a block to `hold` is kept (`HELD_MAX_BYTES`) and published at the next heartbeat at
   * which one can; the others are published to no one.
   */
  async publish(bytes: Uint8Array, hold: boolean): Promise<void> {
    if (!this.reachable()) {
      if (hold) this.hold(bytes);
      return;
    }
    this.releaseHeld();
    await this.pubsub.publish(this.topic, bytes);
  }

  /** Blocks held for the first peer that can take them. */
  heldCount(): number {
    return this.held.length - this.heldFirst;
  }

  /**
   * Whether a peer takes what this node publishes: one subscribed to the topic, and (where the
   * repair sees gossipsub's streams) with a stream open to write to. A subscription arrives over
   * the peer's stream, which can be open before this node's stream to the peer is.
   */
  private reachable(): boolean {
    const streams = this.streams;
    for (const peer of this.pubsub.getSubscribers(this.topic)) {
      if (!streams || writable(streams.streamsOutbound.get(peer.toString()))) return true;
    }
    return false;
  }

  private hold(bytes: Uint8Array): void {
    this.held.push({ bytes, at: this.now() });
    this.heldBytes += bytes.length;
    this.dropHeld(this.now() - HELD_MAX_AGE_MS);
  }

  /** Drops the held blocks from before `since`, and the oldest beyond `HELD_MAX_BYTES`. */
  private dropHeld(since: number): void {
    const held = this.held;
    while (this.heldFirst < held.length) {
      const oldest = held[this.heldFirst]!;
      if (oldest.at >= since && this.heldBytes <= HELD_MAX_BYTES) break;
      this.heldBytes -= oldest.bytes.length;
      this.heldFirst++;
    }
    // cut once half of it is dropped: O(1) a block held, and the dropped keep at most as much alive
    if (this.heldFirst * 2 > held.length) {
      this.held = held.slice(this.heldFirst);
      this.heldFirst = 0;
    }
  }

  /**
   * Publishes the held blocks still young enough and not referenced yet, oldest first (parents
   * before children), once a peer can take them: at each heartbeat, and before a block published
   * after them. The heartbeat also lets go of blocks held too long while no peer can take them.
   */
  private releaseHeld(): void {
    if (this.heldCount() === 0) return;
    this.dropHeld(this.now() - HELD_MAX_AGE_MS);
    if (this.heldCount() === 0 || !this.reachable()) return;
    const held = this.held.slice(this.heldFirst);
    this.clearHeld();
    for (const { bytes } of held) {
      if (!this.handlers.awaitsMilestone(blockIdFromBytes(bytes))) continue;
      // publish fails only before gossipsub started; `Network.broadcast` logs its failures at debug
      this.pubsub.publish(this.topic, bytes).catch(() => {});
    }
  }

  private clearHeld(): void {
    this.held = [];
    this.heldFirst = 0;
    this.heldBytes = 0;
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
