import "./polyfill.js";
import { type Multiaddr, multiaddr } from "@multiformats/multiaddr";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { NetworkErrorCode } from "./errors.js";

/**
 * Static peering: the peers given with `--peer` and those added at runtime (the peers route,
 * kept in `peering.json`, see peeringFile.ts) are dialled at start and, whenever the connection
 * is lost or a dial fails, redialled after an exponential backoff with jitter (`reconnectMinMs`,
 * doubling up to `reconnectMaxMs`). A successful connection resets the backoff. Peers that dial
 * this node are welcome too; they are simply not redialled. A removed peer is never dialled
 * again, and a dial already under way when it was removed is hung up.
 */

/** Delay before redial attempt `attempt` (0-based): min·2^attempt capped at max, ±25 % jitter. */
export function backoffDelay(
  attempt: number,
  minMs: number,
  maxMs: number,
  random: () => number = Math.random,
): number {
  const base = Math.min(maxMs, minMs * 2 ** Math.min(attempt, 30));
  return Math.round(base * (0.75 + 0.5 * random()));
}

/** The hosts a peer's address may name (TCP over IP, or a name resolved to one). */
const HOST_PROTOCOLS = new Set(["ip4", "ip6", "dns", "dns4", "dns6"]);

/**
 * Parses a `--peer` value: `/<ip4|ip6|dns|dns4|dns6>/<host>/tcp/<port>[/p2p/<id>]` and nothing
 * else (the transport dials TCP alone: a relay, a WebSocket, a Unix socket or a second `tcp`
 * would be stored and never dialled); the peer ID part is optional but recommended.
 */
export function parsePeerAddress(text: string): { address: Multiaddr; peerId?: string } {
  const refuse = (why: string) => new LedgerNodeError(NetworkErrorCode.InvalidPeerAddress, `"${text}": ${why}`);
  let address: Multiaddr;
  try {
    address = multiaddr(text);
  } catch (e) {
    throw refuse((e as Error).message);
  }
  const [host, tcp, ...rest] = address.getComponents();
  if (!host || !HOST_PROTOCOLS.has(host.name) || tcp?.name !== "tcp" || rest.some((c) => c.name !== "p2p")) {
    throw refuse("only TCP addresses can be dialled: /ip4|ip6|dns|dns4|dns6/<host>/tcp/<port>/p2p/<peer id>");
  }
  const port = Number(tcp.value);
  if (!(port >= 1 && port <= 65_535)) throw refuse(`port ${tcp.value} cannot be dialled`);
  const p2p = rest[0];
  return p2p?.value ? { address, peerId: p2p.value } : { address };
}

/** Whether `text` is an address `parsePeerAddress` takes. */
export function isDialable(text: string): boolean {
  try {
    parsePeerAddress(text);
    return true;
  } catch {
    return false;
  }
}

/** What peering needs of libp2p. */
export interface PeeringHost {
  /** Dials the address; resolves with the remote peer's ID. */
  dial(address: Multiaddr): Promise<string>;
  isConnected(peerId: string): boolean;
  /** Closes the connections to a peer (a removed peer whose dial was under way). */
  hangUp?(peerId: string): void;
}

export interface StaticPeerState {
  address: string;
  peerId?: string;
  connected: boolean;
  /** Failed dials since the last success. */
  failures: number;
  lastError?: string;
}

interface StaticPeer extends StaticPeerState {
  multiaddr: Multiaddr;
  timer?: NodeJS.Timeout;
  dialing: boolean;
  /** Added at runtime (kept in peering.json), not given with `--peer`. */
  runtime: boolean;
  alias?: string;
  removed?: boolean;
}

export interface PeeringOptions {
  reconnectMinMs: number;
  reconnectMaxMs: number;
}

export class Peering {
  private peers: StaticPeer[];
  private stopped = true;

  constructor(
    addresses: readonly string[],
    private readonly host: PeeringHost,
    private readonly options: PeeringOptions,
    private readonly onDialError: (address: string, e: unknown) => void = () => {},
  ) {
    this.peers = addresses.map((text) => {
      const { address, peerId } = parsePeerAddress(text);
      return {
        address: text,
        multiaddr: address,
        connected: false,
        failures: 0,
        dialing: false,
        runtime: false,
        ...(peerId ? { peerId } : {}),
      };
    });
  }

  /** Static peers, connected or not. */
  get size(): number {
    return this.peers.length;
  }

  /**
   * Adds a static peer whose ID is known (`peerId`, from its multiaddr) or, when it is static
   * already, gives it this address and alias. `runtime`: added through the API, so written to
   * peering.json. Resolves when the first dial has ended (connected or failed); it is started
   * only once the peering runs.
   */
  add(address: string, peerId: string, options: { alias?: string; runtime: boolean }): Promise<void> {
    const multiaddr = parsePeerAddress(address).address;
    const existing = this.peers.find((p) => p.peerId === peerId);
    if (existing) {
      existing.address = address;
      existing.multiaddr = multiaddr;
      existing.runtime ||= options.runtime;
      if (options.alias !== undefined) existing.alias = options.alias;
      return existing.connected ? Promise.resolve() : this.dial(existing);
    }
    const p: StaticPeer = {
      address,
      multiaddr,
      peerId,
      connected: false,
      failures: 0,
      dialing: false,
      runtime: options.runtime,
      ...(options.alias === undefined ? {} : { alias: options.alias }),
    };
    this.peers.push(p);
    return this.dial(p);
  }

  /** Forgets `peerId` as a static peer (no more dials); whether it was one. */
  remove(peerId: string): boolean {
    const gone = this.peers.filter((p) => p.peerId === peerId);
    for (const p of gone) {
      p.removed = true;
      if (p.timer) clearTimeout(p.timer);
      p.timer = undefined;
    }
    this.peers = this.peers.filter((p) => p.peerId !== peerId);
    return gone.length > 0;
  }

  /** The alias a static peer was added with. */
  aliasOf(peerId: string): string | undefined {
    return this.peers.find((p) => p.peerId === peerId)?.alias;
  }

  /** The peers added at runtime, as peering.json keeps them. */
  runtimeEntries(): { multiAddress: string; alias?: string }[] {
    return this.peers
      .filter((p) => p.runtime)
      .map((p) => ({ multiAddress: p.address, ...(p.alias === undefined ? {} : { alias: p.alias }) }));
  }

  start(): void {
    this.stopped = false;
    for (const p of this.peers) void this.dial(p);
  }

  stop(): void {
    this.stopped = true;
    for (const p of this.peers) if (p.timer) clearTimeout(p.timer);
  }

  /** Whether `peerId` is one of the static peers (known once it has been dialled). */
  isStatic(peerId: string): boolean {
    return this.peers.some((p) => p.peerId === peerId);
  }

  states(): StaticPeerState[] {
    return this.peers.map(({ address, peerId, connected, failures, lastError }) => ({
      address,
      connected,
      failures,
      ...(peerId ? { peerId } : {}),
      ...(lastError ? { lastError } : {}),
    }));
  }

  /** A connection to `peerId` opened (either direction). */
  connected(peerId: string): void {
    for (const p of this.peers) {
      if (p.peerId !== peerId) continue;
      p.connected = true;
      p.failures = 0;
      if (p.timer) clearTimeout(p.timer);
      p.timer = undefined;
    }
  }

  /** The last connection to `peerId` closed: a static peer is redialled after the backoff. */
  disconnected(peerId: string): void {
    for (const p of this.peers) {
      if (p.peerId !== peerId) continue;
      p.connected = false;
      this.schedule(p);
    }
  }

  private schedule(p: StaticPeer): void {
    if (this.stopped || p.removed || p.timer || p.dialing) return;
    const delay = backoffDelay(p.failures, this.options.reconnectMinMs, this.options.reconnectMaxMs);
    p.timer = setTimeout(() => {
      p.timer = undefined;
      void this.dial(p);
    }, delay);
    p.timer.unref();
  }

  private async dial(p: StaticPeer): Promise<void> {
    if (this.stopped || p.removed || p.dialing) return;
    if (p.peerId && this.host.isConnected(p.peerId)) {
      this.connected(p.peerId);
      return;
    }
    p.dialing = true;
    try {
      const peerId = await this.host.dial(p.multiaddr);
      if (p.removed) {
        // removed while the dial was under way: the connection it made is not wanted
        this.host.hangUp?.(peerId);
        return;
      }
      p.peerId = peerId;
      p.lastError = undefined;
      this.connected(peerId);
    } catch (e) {
      p.failures++;
      p.lastError = (e as Error).message;
      this.onDialError(p.address, e);
    } finally {
      p.dialing = false;
    }
    if (!p.connected || (p.peerId && !this.host.isConnected(p.peerId))) {
      p.connected = false;
      this.schedule(p);
    }
  }
}
