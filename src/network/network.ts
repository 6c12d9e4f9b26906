import "./polyfill.js";
import type { Connection, PeerId, Stream } from "@libp2p/interface";
import { peerIdFromString } from "@libp2p/peer-id";
import { decodeBlock } from "../codec/block.js";
import { PayloadType } from "../codec/types.js";
import type { BlockSource, NodeEventMap } from "../tangle/events.js";
import { type BlockIntake, type CheckedBlock, IgnoreReason, type IntakeVerdict } from "../tangle/intake.js";
import type { MilestoneConfirmer } from "../tangle/milestoneConfirmer.js";
import type { Tangle } from "../tangle/tangle.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { type NetworkError, NetworkErrorCode } from "./errors.js";
import { BlockGossip, blocksTopic } from "./gossip.js";
import { HeartbeatSender } from "./heartbeat.js";
import { type NetworkHost, startHost } from "./host.js";
import { loadOrCreateIdentity } from "./identity.js";
import type { NetworkView, PeerView, SyncStatus } from "./interface.js";
import { MessageType } from "./messages.js";
import { milestoneCone } from "./milestoneCone.js";
import type { NetworkOptions } from "./options.js";
import { ParentRequester } from "./parentRequester.js";
import { Peering, parsePeerAddress } from "./peering.js";
import { PeerMetrics, peerView } from "./peerMetrics.js";
import { PeerScores } from "./peerScores.js";
import {
  handleRequestStream,
  type OpenStream,
  requestBlock,
  requestMilestoneCone,
  requestProtocolId,
} from "./protocol.js";
import { StaticPeers } from "./staticPeers.js";
import { SyncManager } from "./syncManager.js";

/**
 * The peer-to-peer layer of a node: a libp2p host (TCP, noise, yamux, identify, gossipsub) with
 * the node's identity key, and on it
 * - static peering with reconnect backoff (peering.ts), static peers added and removed at
 *   runtime and kept in the data directory (staticPeers.ts, peeringFile.ts),
 * - blocks on gossipsub, judged by the node's one intake before they are stored or forwarded
 *   (gossip.ts, tangle/intake.ts), peers scored down for rejected ones (peerScores.ts),
 * - the blocks this node takes in from clients and its coordinator, broadcast (a listener of
 *   the node's `blockTaken` events, attached with the others in node/components.ts),
 * - the request/response protocol for blocks by ID and milestone cones by index, and
 *   heartbeats (protocol.ts, messages.ts),
 * - missing parents requested from peers (parentRequester.ts),
 * - catching up to the network's latest milestone (syncManager.ts) and, on a node that is not
 *   the coordinator, running the confirmer of received milestones (tangle/milestoneConfirmer.ts)
 *   while the network runs.
 */

/** The pino-style logger this layer writes to (fastify's logger fits). */
export interface NetworkLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

const silentLogger: NetworkLogger = { debug() {}, info() {}, warn() {}, error() {} };

export interface NetworkDeps {
  tangle: Tangle;
  /** The node's one intake: every block from a peer goes through it. */
  intake: BlockIntake;
  /** The identity key is kept in `<dataDir>/p2p`. */
  dataDir: string;
  /**
   * This node issues the milestones: it never confirms received ones (its coordinator does)
   * and is the network's reference, hence always synced.
   */
  isCoordinator: boolean;
  /** A follower's confirmer of received milestones (tangle/milestoneConfirmer.ts); none on the coordinator. */
  confirmer?: MilestoneConfirmer | undefined;
  log?: NetworkLogger;
}

export class Network implements NetworkView {
  private host: NetworkHost | undefined;
  private gossip: BlockGossip | undefined;
  private peering: Peering | undefined;
  private readonly metrics = new PeerMetrics();
  private readonly log: NetworkLogger;
  private readonly protocolId: string;
  readonly scores: PeerScores;
  readonly sync: SyncManager;
  readonly confirmer: MilestoneConfirmer | undefined;
  readonly parentRequester: ParentRequester;
  private readonly heartbeats: HeartbeatSender;
  private readonly staticPeers: StaticPeers;
  peerId = "";

  constructor(
    private readonly deps: NetworkDeps,
    readonly options: NetworkOptions,
  ) {
    const tangle = deps.tangle;
    this.log = deps.log ?? silentLogger;
    this.protocolId = requestProtocolId(tangle.protocolParameters.networkName);
    this.scores = new PeerScores({
      penalty: options.invalidMessagePenalty,
      halfLifeMs: options.scoreHalfLifeMs,
      banThreshold: options.banThreshold,
      banMs: options.banMs,
    });
    this.confirmer = deps.confirmer;
    this.sync = new SyncManager(
      {
        syncTolerance: options.syncTolerance,
        syncWindow: options.syncWindow,
        requestDelayMs: options.parentRequestDelayMs,
        retryMs: Math.max(options.parentRequestDelayMs, 250),
      },
      {
        ledgerIndex: () => tangle.latestMilestone.index,
        isCoordinator: deps.isCoordinator,
        hasMilestone: (index) => this.confirmer?.has(index) ?? false,
        fetchCone: (peer, index) => this.fetchCone(peer, index),
        onError: (peer, index, e) => this.requestFailed(peer, e, { index }),
        onClaimRefuted: (peer, index) =>
          this.invalid(peer, {
            code: NetworkErrorCode.UnexpectedResponse,
            reason: `claimed milestone ${index} and did not deliver it`,
          }),
      },
    );
    this.parentRequester = new ParentRequester(
      {
        delayMs: options.parentRequestDelayMs,
        attempts: options.parentRequestAttempts,
        concurrency: 64,
      },
      {
        missingParents: () => tangle.missingParents(),
        peers: () => this.protocolPeers(),
        isSynced: () => this.sync.isSynced(),
        fetchBlock: (peer, blockId) => this.fetchBlock(peer, blockId),
        onError: (peer, blockId, e) => this.requestFailed(peer, e, { blockId }),
      },
    );
    this.heartbeats = new HeartbeatSender(tangle, this.sync, {
      openStream: this.openStream,
      peers: () => (this.host?.getPeers() ?? []).map(String),
      timeoutMs: options.requestTimeoutMs,
      onSent: (peer) => this.metrics.of(peer).sentHeartbeats++,
      onFailed: (peer, e) => this.requestFailed(peer, e, { heartbeat: true }),
    });
    this.staticPeers = new StaticPeers({
      dataDir: deps.dataDir,
      running: () => this.running(),
      selfId: () => this.peerId,
      peers: () => this.peers(),
      hangUp: async (peer) => {
        await this.host?.hangUp(peerIdFromString(peer)).catch(() => {});
      },
      log: this.log,
    });
  }

  /** Open connections to peers (the connection budget's P2P count). */
  connectionCount(): number {
    return this.host?.getConnections().length ?? 0;
  }

  /** Starts the host (identity key, listening, peering, gossip, sync). */
  async start(): Promise<void> {
    const privateKey = await loadOrCreateIdentity(this.deps.dataDir);
    const runtimePeers = await this.staticPeers.load();
    const started = await startHost({
      privateKey,
      listenHost: this.options.listenHost,
      port: this.options.port,
      maxConnections: this.options.maxConnections,
      isBanned: (peer) => this.scores.isBanned(peer),
    });
    this.host = started.host;
    if (started.fellBack) {
      this.log.warn(
        { port: this.options.port, addresses: this.listenAddresses() },
        "the P2P port is in use; listening on a free port instead",
      );
    }
    const host = this.host;
    this.peerId = host.peerId.toString();

    await host.handle(this.protocolId, (stream, connection) => this.serve(stream, connection), {
      maxInboundStreams: 256,
      maxOutboundStreams: 256,
    });
    host.addEventListener("peer:connect", (e) => this.peerConnected(e.detail));
    host.addEventListener("peer:disconnect", (e) => this.peerDisconnected(e.detail));

    this.gossip = new BlockGossip(host.services.pubsub, blocksTopic(this.deps.tangle.protocolParameters.networkName), {
      receive: (bytes, peer) => this.gossipReceived(bytes, peer),
      onInvalid: (peer, code, reason) => this.invalid(peer, { code, reason }),
      onStreamLost: (peer) => {
        this.log.info({ peer }, "gossip to the peer was lost; hanging up for a new connection");
        void host.hangUp(peerIdFromString(peer)).catch(() => {});
      },
      awaitsMilestone: (blockId) => this.deps.tangle.awaitsMilestone(blockId),
    });
    this.gossip.start();
    this.peering = new Peering(
      this.options.peers,
      {
        dial: async (address) => (await host.dial(address)).remotePeer.toString(),
        isConnected: (peer) => host.getConnections(peerIdFromString(peer)).length > 0,
        hangUp: (peer) => void host.hangUp(peerIdFromString(peer)).catch(() => {}),
      },
      { reconnectMinMs: this.options.reconnectMinMs, reconnectMaxMs: this.options.reconnectMaxMs },
      (address, e) => this.log.debug({ address, err: (e as Error).message }, "dial failed"),
    );
    this.staticPeers.restore(this.peering, runtimePeers);
    this.peering.start();
    this.confirmer?.start();
    this.sync.start();
    this.parentRequester.start();
    await this.heartbeats.start(this.options.heartbeatIntervalMs);
    this.log.info({ peerId: this.peerId, addresses: this.listenAddresses() }, "P2P network started");
  }

  // ---- listeners of the node's events (attached in node/components.ts) ----

  /** `blockTaken`: blocks from clients and the coordinator go out; gossipsub forwards those of peers itself. */
  blockTaken(e: NodeEventMap["blockTaken"]): void {
    if (e.source !== "peer" && this.gossip) void this.broadcast(e.bytes, e.source);
  }

  /** `latestMilestone`: the network's newest milestone, as peers show it (this node's own are in its ledger). */
  latestMilestone(e: NodeEventMap["latestMilestone"]): void {
    if (e.source === "peer" && this.host) this.sync.milestoneSeen(e.index);
  }

  /** `milestoneConfirmed`: the ledger moved; sync asks for what comes next. */
  milestoneConfirmed(e: NodeEventMap["milestoneConfirmed"]): void {
    if (!this.host) return;
    this.log.debug({ index: e.milestone.index }, "milestone confirmed");
    this.sync.tick();
  }

  async stop(): Promise<void> {
    this.heartbeats.stop();
    this.parentRequester.stop();
    this.sync.stop();
    this.peering?.stop();
    this.gossip?.stop();
    await this.confirmer?.stop();
    await this.host?.stop();
    this.host = undefined;
  }

  /** Dials a peer now (not kept as a static peer); resolves with its peer ID. */
  async connect(address: string): Promise<string> {
    if (!this.host) throw new LedgerNodeError(NetworkErrorCode.NoPeer, "the network is stopped");
    const connection = await this.host.dial(parsePeerAddress(address).address);
    return connection.remotePeer.toString();
  }

  /**
   * Adds a static peer at runtime (`POST /api/core/v2/peers`, Hornet's `addPeer`), kept in
   * peering.json and redialled like a `--peer` (staticPeers.ts). Resolves, once the first dial
   * has ended or after `waitMs`, with the peer as the peers route shows it.
   */
  addPeer(multiAddress: string, alias?: string, waitMs = 5_000): Promise<PeerView> {
    return this.staticPeers.add(multiAddress, alias, waitMs);
  }

  /**
   * Removes a peer (`DELETE /api/core/v2/peers/{peerId}`, Hornet's `removePeer`): no longer
   * static, disconnected (staticPeers.ts).
   */
  removePeer(peerIdText: string): Promise<void> {
    return this.staticPeers.remove(peerIdText);
  }

  /** The peering of a started network. */
  private running(): Peering {
    if (!this.host || !this.peering) throw new LedgerNodeError(NetworkErrorCode.NoPeer, "the network is stopped");
    return this.peering;
  }

  // ---- views (API) ----

  listenAddresses(): string[] {
    return (this.host?.getMultiaddrs() ?? []).map(String);
  }

  syncStatus(): SyncStatus {
    return {
      isSynced: this.sync.isSynced(),
      latestMilestoneIndex: this.sync.latestMilestoneIndex(),
      confirmedMilestoneIndex: this.deps.tangle.latestMilestone.index,
      connectedPeers: this.host?.getPeers().length ?? 0,
      syncedPeers: this.sync.syncedPeers(),
    };
  }

  peers(): PeerView[] {
    const host = this.host;
    if (!host) return [];
    const views = new Map<string, PeerView>();
    const view = (id: string, addresses: string[], connected: boolean) =>
      peerView(
        {
          id,
          addresses,
          connected,
          alias: this.peering?.aliasOf(id),
          isStatic: this.peering?.isStatic(id) ?? false,
          score: this.scores.score(id),
          banned: this.scores.isBanned(id),
        },
        this.sync.heartbeatOf(id),
        this.metrics,
      );
    for (const peer of host.getPeers()) {
      const id = peer.toString();
      views.set(
        id,
        view(
          id,
          host.getConnections(peer).map((c) => c.remoteAddr.toString()),
          true,
        ),
      );
    }
    // static peers that are not connected right now, and banned ones
    for (const s of this.peering?.states() ?? []) {
      const id = s.peerId ?? s.address;
      if (!views.has(id)) views.set(id, view(id, [s.address], false));
    }
    for (const id of this.scores.bannedPeers()) if (!views.has(id)) views.set(id, view(id, [], false));
    return [...views.values()];
  }

  // ---- blocks in and out ----

  /**
   * Sends a block that entered this node (API, coordinator) to the network. Never rejects; a
   * caller sending many blocks awaits it so the outgoing buffers do not pile up. A client's
   * block is held while no peer can take it (gossip.ts, `HELD_MAX_BYTES`); a milestone is not:
   * peers ask for it with its whole cone, and one gossiped late would be solidified parent by
   * parent instead.
   */
  async broadcast(bytes: Uint8Array, source: Exclude<BlockSource, "peer">): Promise<void> {
    await this.gossip
      ?.publish(bytes, source === "api")
      .catch((e) => this.log.debug({ err: (e as Error).message }, "publish failed"));
  }

  /** Takes in a block a peer checked and answered with, counting it for the peer. */
  private async ingest(checked: CheckedBlock, peer: string): Promise<void> {
    const m = this.metrics.of(peer);
    m.receivedBlocks++;
    const verdict = await this.deps.intake.take(checked, "peer");
    if (verdict.kind === "accepted") m.newBlocks++;
    else m.knownBlocks++;
  }

  /**
   * A gossiped block: the intake's checks decide (forward, drop, or reject and score the peer);
   * an accepted block is taken in behind the verdict, so gossipsub forwards it at once.
   */
  private async gossipReceived(bytes: Uint8Array, peer: string): Promise<IntakeVerdict> {
    const verdict = await this.deps.intake.check(bytes, "peer");
    if (verdict.kind === "accepted") {
      this.ingest(verdict, peer).catch((e) => this.log.error({ err: e }, "storing a gossiped block failed"));
    }
    return verdict;
  }

  /** An invalid block or malformed message: the peer loses score, and is dropped when banned. */
  private invalid(peer: string, verdict: { code: string; reason: string }): void {
    this.metrics.of(peer).invalidMessages++;
    this.log.debug({ peer, code: verdict.code, reason: verdict.reason }, "invalid message from peer");
    if (this.scores.penalize(peer)) {
      this.log.warn({ peer, score: this.scores.score(peer) }, "peer banned for invalid messages");
      void this.host?.hangUp(peerIdFromString(peer)).catch(() => {});
    }
  }

  private requestFailed(peer: string, e: unknown, what: object): void {
    const code = (e as NetworkError).code;
    if (code !== NetworkErrorCode.NotFound) this.metrics.of(peer).droppedPackets++;
    if (
      code === NetworkErrorCode.UnexpectedResponse ||
      code === NetworkErrorCode.MalformedMessage ||
      code === NetworkErrorCode.AnswerTooLarge
    ) {
      this.invalid(peer, { code, reason: (e as Error).message });
    }
    this.log.debug({ peer, ...what, err: (e as Error).message }, "request failed");
  }

  /**
   * Checks every block a peer answered with (the intake's checks, nothing stored yet): a rejected
   * block discards the answer and costs score. The verdicts come back in the answer's order;
   * ignored ones (known here already, a milestone confirmed meanwhile) are not taken in.
   */
  private async checkAnswer(peer: string, blocks: Uint8Array[]): Promise<IntakeVerdict[]> {
    const verdicts = await Promise.all(blocks.map((b) => this.deps.intake.check(b, "peer")));
    for (const v of verdicts) {
      if (v.kind === "rejected") {
        this.invalid(peer, { code: v.code, reason: v.details });
        throw new LedgerNodeError(
          NetworkErrorCode.UnexpectedResponse,
          `${peer} answered with an invalid block: ${v.details}`,
        );
      }
    }
    return verdicts;
  }

  private async fetchCone(peer: string, index: number): Promise<void> {
    this.metrics.of(peer).sentMilestoneRequests++;
    const blocks = await requestMilestoneCone(this.openStream, peer, index, this.options.requestTimeoutMs);
    const verdicts = await this.checkAnswer(peer, blocks);
    // confirmed meanwhile (its milestone block was ignored as stale): nothing left to take in
    if (index <= this.deps.tangle.latestMilestone.index) return;
    if (!endsInMilestone(blocks, verdicts, index)) {
      this.invalid(peer, {
        code: NetworkErrorCode.UnexpectedResponse,
        reason: `cone ${index} ends in no milestone ${index}`,
      });
      throw new LedgerNodeError(
        NetworkErrorCode.UnexpectedResponse,
        `${peer}: cone ${index} does not end in its milestone`,
      );
    }
    await Promise.all(verdicts.map((v) => (v.kind === "accepted" ? this.ingest(v, peer) : undefined)));
  }

  private async fetchBlock(peer: string, blockId: Uint8Array): Promise<void> {
    this.metrics.of(peer).sentBlockRequests++;
    const bytes = await requestBlock(this.openStream, peer, blockId, this.options.requestTimeoutMs);
    const [verdict] = await this.checkAnswer(peer, [bytes]);
    if (verdict?.kind === "accepted") await this.ingest(verdict, peer);
  }

  private readonly openStream: OpenStream = async (peer, signal) => {
    if (!this.host) throw new LedgerNodeError(NetworkErrorCode.NoPeer, "the network is stopped");
    return this.host.dialProtocol(peerIdFromString(peer), this.protocolId, { signal });
  };

  // ---- serving peers ----

  private serve(stream: Stream, connection: Connection): void {
    const peer = connection.remotePeer.toString();
    if (this.scores.isBanned(peer)) {
      stream.abort(new Error("banned"));
      return;
    }
    const tangle = this.deps.tangle;
    void handleRequestStream(stream, peer, {
      blockBytes: (id) => tangle.getBlockBytes(id),
      milestoneCone: async (index) => {
        const cone = await milestoneCone(tangle.db, index);
        if (cone) this.metrics.of(peer).sentBlocks += cone.length;
        return cone;
      },
      onHeartbeat: (from, heartbeat) => {
        this.metrics.of(from).receivedHeartbeats++;
        this.sync.onHeartbeat(from, heartbeat);
      },
      onMalformed: (from, reason) => this.invalid(from, { code: NetworkErrorCode.MalformedMessage, reason }),
      onRequest: (from, type) => {
        const m = this.metrics.of(from);
        if (type === MessageType.BlockRequest) m.receivedBlockRequests++;
        if (type === MessageType.MilestoneRequest) m.receivedMilestoneRequests++;
      },
    });
  }

  // ---- peers coming and going, heartbeats ----

  /** Connected peers that have sent a heartbeat, i.e. speak this network's protocol. */
  private protocolPeers(): string[] {
    return (this.host?.getPeers() ?? []).map(String).filter((p) => this.sync.heartbeatOf(p) !== undefined);
  }

  private peerConnected(peer: PeerId): void {
    const id = peer.toString();
    this.gossip?.peerConnected(id);
    this.peering?.connected(id);
    this.log.info({ peer: id }, "peer connected");
    void this.heartbeats.sendTo(id);
  }

  private peerDisconnected(peer: PeerId): void {
    const id = peer.toString();
    this.peering?.disconnected(id);
    this.sync.forgetPeer(id);
    if (!this.peering?.isStatic(id)) this.metrics.forget(id);
    this.scores.forgetIfClean(id);
    this.log.info({ peer: id }, "peer disconnected");
  }
}

/**
 * Whether a cone's answer ends in milestone `index`: its last block, checked now or known here
 * already (a duplicate's verdict carries no block: its bytes are read again, a few fields).
 */
function endsInMilestone(blocks: Uint8Array[], verdicts: IntakeVerdict[], index: number): boolean {
  const last = verdicts[verdicts.length - 1];
  if (last?.kind === "accepted") return last.milestone?.index === index;
  if (last?.kind !== "ignored" || last.reason !== IgnoreReason.Duplicate) return false;
  try {
    const payload = decodeBlock(blocks[blocks.length - 1]!).payload;
    return payload?.type === PayloadType.Milestone && payload.index === index;
  } catch {
    return false;
  }
}
