import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { NetworkErrorCode } from "./errors.js";
import type { PeerView } from "./interface.js";
import type { Peering } from "./peering.js";
import {
  canonicalPeerId,
  checkPeeringEntry,
  MAX_STATIC_PEERS,
  type PeeringEntry,
  readPeeringFile,
  writePeeringFile,
} from "./peeringFile.js";

/**
 * The static peers added and removed at runtime (`POST` and `DELETE /api/core/v2/peers`,
 * Hornet's `addPeer` / `removePeer`): the list in `p2p/peering.json` (peeringFile.ts, Hornet's
 * `PeeringConfigManager`) read at start and handed to the peering, and every change written to
 * the file before the peering dials or forgets the peer. The redialling itself is peering.ts's.
 */

export interface StaticPeersDeps {
  /** The data directory; peering.json is kept in its `p2p` folder. */
  dataDir: string;
  /** The started network's peering; throws NoPeer while the network is stopped. */
  running(): Peering;
  /** This node's own peer ID (once started): a node is never its own static peer. */
  selfId(): string;
  /** Every peer as the peers route shows it (connected, static, banned). */
  peers(): PeerView[];
  /** Closes the connections to a removed peer; never rejects. */
  hangUp(peerId: string): Promise<void>;
  log: { info(obj: object, msg?: string): void };
}

/** The peer ID a stored static peer names (checked when it was added). */
const entryPeerId = (e: { multiAddress: string }): string => checkPeeringEntry(e, "peering").peerId;

export class StaticPeers {
  /** Changes of the static peers, one after the other (each rewrites peering.json whole). */
  private changes: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: StaticPeersDeps) {}

  /**
   * The static peers added at runtime before the last stop. Read before the host starts, so a
   * damaged file stops the start with its path.
   */
  load(): Promise<PeeringEntry[]> {
    return readPeeringFile(this.deps.dataDir);
  }

  /** Hands the loaded peers to `peering`, before it starts dialling. */
  restore(peering: Peering, entries: readonly PeeringEntry[]): void {
    for (const entry of entries) {
      const { peerId, multiAddress, alias } = checkPeeringEntry(entry, "peering");
      void peering.add(multiAddress, peerId, { runtime: true, ...(alias === undefined ? {} : { alias }) });
    }
  }

  /**
   * Adds a static peer: kept in peering.json before anything else, dialled now and redialled
   * with backoff like a `--peer`. Resolves, once the first dial has ended or after `waitMs`,
   * with the peer as the peers route shows it. The address must name its peer ID (`/p2p/<id>`),
   * not this node, and the static peers stay within `MAX_STATIC_PEERS`; a static peer added
   * again takes the new address and alias.
   */
  async add(multiAddress: string, alias: string | undefined, waitMs: number): Promise<PeerView> {
    const peering = this.deps.running();
    const { peerId } = checkPeeringEntry({ multiAddress, ...(alias === undefined ? {} : { alias }) }, "body");
    if (peerId === this.deps.selfId()) {
      throw new LedgerNodeError(NetworkErrorCode.InvalidPeerAddress, `${peerId} is this node's own peer ID`);
    }
    const firstDial = await this.change(async () => {
      if (!peering.isStatic(peerId) && peering.size >= MAX_STATIC_PEERS) {
        throw new LedgerNodeError(
          NetworkErrorCode.TooManyPeers,
          `the node keeps at most ${MAX_STATIC_PEERS} static peers; remove one first`,
        );
      }
      const named = alias === undefined ? {} : { alias };
      const others = peering.runtimeEntries().filter((e) => entryPeerId(e) !== peerId);
      await writePeeringFile(this.deps.dataDir, [...others, { multiAddress, ...named }]);
      // a promise in an object, so the change does not wait for the dial
      return { dialed: peering.add(multiAddress, peerId, { runtime: true, ...named }) };
    });
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      firstDial.dialed,
      new Promise((resolve) => {
        timer = setTimeout(resolve, waitMs);
      }),
    ]);
    clearTimeout(timer);
    this.deps.log.info({ peer: peerId, address: multiAddress }, "static peer added");
    return this.deps.peers().find((p) => p.id === peerId)!;
  }

  /**
   * Removes a peer: no longer static (taken out of peering.json; a `--peer` one comes back with
   * the flag at the next start), disconnected. A peer neither connected, static nor banned is
   * UnknownPeer; a ban stays until it ends.
   */
  async remove(peerIdText: string): Promise<void> {
    const peering = this.deps.running();
    const peerId = canonicalPeerId(peerIdText, "peerId");
    await this.change(async () => {
      const known = peering.isStatic(peerId) || this.deps.peers().some((p) => p.id === peerId);
      if (!known) throw new LedgerNodeError(NetworkErrorCode.UnknownPeer, `no peer ${peerId}`);
      const rest = peering.runtimeEntries().filter((e) => entryPeerId(e) !== peerId);
      if (rest.length !== peering.runtimeEntries().length) await writePeeringFile(this.deps.dataDir, rest);
      peering.remove(peerId);
    });
    await this.deps.hangUp(peerId);
    this.deps.log.info({ peer: peerId }, "peer removed");
  }

  /** Runs `change` after the changes before it (each reads and rewrites the whole list). */
  private change<T>(change: () => Promise<T>): Promise<T> {
    const run = this.changes.then(change);
    this.changes = run.catch(() => {});
    return run;
  }
}
