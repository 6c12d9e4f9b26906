/**
 * One budget for every connection a client or a peer holds of the node: the HTTP servers (API,
 * explorer, Prometheus), the event API (MQTT over WebSocket and over TCP) and the P2P layer
 * (its own connection manager keeps within its share). The budget is kept well under
 * the process's open-file limit (node/descriptors.ts), so LevelDB and new clients always have a
 * descriptor (docs/decisions.md, "Fair slots").
 *
 * Connections are held in pools (one per server or transport family), each with its own cap and
 * per-address cap, all inside the one total. When a newcomer finds a cap reached, a connection
 * makes room for it, never the newcomer first (the rule of `pickVictim`):
 *
 * 1. the one that has been of no use the longest: idle, or sending below the floor (a request
 *    body trickled, an MQTT client that never sent CONNECT, holds no subscription or has
 *    stopped reading), once it has been so for at least `minIdleMs`;
 * 2. else, the idlest connection of the address holding the most connections of no use, however
 *    briefly, when it holds more of them than the newcomer's would (attackers reopening what
 *    was closed keep their sockets young; a newcomer's address holds one such, its own);
 * 3. else, the idlest (then oldest) connection of the address holding the most slots, when that
 *    address holds more than the newcomer's would after admission (a few addresses cannot lock
 *    out every other one);
 * 4. else the newcomer's own address's connection idle the longest, however briefly (an address
 *    churning its own idle sockets harms only itself);
 * 5. else the newcomer is refused.
 *
 * At a per-address cap only that address's own connections are considered (rules 4 and 5).
 * Before any of this, an address whose connections keep being closed or refused (ChurnRate)
 * has its newcomers refused on arrival, and held unread a while before they are closed
 * (`turnAway`), so that an attacker reopening what is closed does not fill the accept queue.
 */

/** What kind of connection a slot is (the metrics count each kind). */
export type ConnectionKind = "http" | "websocket" | "mqtt" | "p2p";

/** Why a connection was closed to make room. */
export type EvictReason = "idle" | "greedy";

/** One open connection, as the budget sees it. */
export interface Slot {
  kind: ConnectionKind;
  /** The client's address (as the socket reports it). */
  readonly address: string;
  /**
   * How long (ms) the connection has been of no use at `now`: idle, or sending below the floor;
   * 0 while it is doing its work (a request being answered, a subscriber receiving).
   */
  idleFor(now: number): number;
  /** Closes the connection to make room (the slot is released by its close handler). */
  evict(reason: EvictReason): void;
}

export interface PoolLimits {
  /** Connections of this pool at most. */
  max: number;
  /** Connections of one address in this pool at most. */
  maxPerAddress: number;
}

export interface ConnectionBudgetOptions {
  /** Connections of every pool together at most (P2P's share of the descriptors is apart). */
  maxConnections: number;
  /** A connection counts as of no use (rule 1) once it has been so this long. */
  minIdleMs: number;
  /**
   * Connections of one address that may be closed for room or refused per second, and at once,
   * before its newcomers are refused on arrival (see ChurnRate).
   */
  churnPerSecond: number;
  churnBurst: number;
  /** How long a refused newcomer is held, unread, before it is closed (see `turnAway`). */
  holdRefusedMs: number;
}

export const defaultConnectionBudgetOptions: ConnectionBudgetOptions = {
  maxConnections: 4096,
  churnPerSecond: 10,
  churnBurst: 20,
  holdRefusedMs: 10_000,
  minIdleMs: 1_000,
};

/** Addresses whose churn is followed at most (the first one seen is forgotten first). */
const MAX_TRACKED_ADDRESSES = 4096;

/**
 * How often one address's connections are closed for room or refused, as a token bucket per
 * address. An address past its rate is one that reopens what the node closes: its newcomers are
 * refused on arrival (and held, `turnAway`) instead of making room, so its loop of accept,
 * close and reopen stops feeding the accept queue. An honest address is charged only when its
 * own connections are closed or refused, which the rules of `pickVictim` leave to the idle and
 * the greedy.
 */
class ChurnRate {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
  ) {}

  /** Charges `address` for one connection closed or refused. */
  charge(address: string, now: number): void {
    let b = this.refilled(address, now);
    if (!b) {
      if (this.buckets.size >= MAX_TRACKED_ADDRESSES) this.buckets.delete(this.buckets.keys().next().value!);
      b = { tokens: this.burst, at: now };
      this.buckets.set(address, b);
    }
    b.tokens = Math.max(0, b.tokens - 1);
  }

  /** Whether `address` has no churn left now. */
  exhausted(address: string, now: number): boolean {
    const b = this.refilled(address, now);
    return b !== undefined && b.tokens < 1;
  }

  private refilled(address: string, now: number): { tokens: number; at: number } | undefined {
    const b = this.buckets.get(address);
    if (!b) return undefined;
    b.tokens = Math.min(this.burst, b.tokens + ((now - b.at) * this.perSecond) / 1000);
    b.at = now;
    return b;
  }
}

/** What the budget counts (the metrics and the dashboard read them). */
export interface BudgetStats {
  /** Open connections by kind. */
  open: Record<ConnectionKind, number>;
  /** Connections closed to make room, by kind. */
  evicted: Record<ConnectionKind, number>;
  /** Newcomers refused (no connection could make room), by kind. */
  refused: Record<ConnectionKind, number>;
}

const kinds = (): Record<ConnectionKind, number> => ({ http: 0, websocket: 0, mqtt: 0, p2p: 0 });

/** Slots by address, oldest first (a Set keeps insertion order). */
class SlotSet {
  readonly all = new Set<Slot>();
  readonly byAddress = new Map<string, Set<Slot>>();

  add(slot: Slot): void {
    this.all.add(slot);
    let mine = this.byAddress.get(slot.address);
    if (!mine) {
      mine = new Set();
      this.byAddress.set(slot.address, mine);
    }
    mine.add(slot);
  }

  delete(slot: Slot): boolean {
    if (!this.all.delete(slot)) return false;
    const mine = this.byAddress.get(slot.address);
    if (mine) {
      mine.delete(slot);
      if (mine.size === 0) this.byAddress.delete(slot.address);
    }
    return true;
  }

  countOf(address: string): number {
    return this.byAddress.get(address)?.size ?? 0;
  }
}

/** The slot of `slots` idle the longest, if one has been idle more than `atLeastMs`. */
function idlest(slots: Iterable<Slot>, newcomer: Slot, now: number, atLeastMs: number): Slot | undefined {
  let found: Slot | undefined;
  let foundFor = atLeastMs;
  for (const s of slots) {
    if (s === newcomer) continue;
    const idle = s.idleFor(now);
    if (idle > foundFor) {
      found = s;
      foundFor = idle;
    }
  }
  return found;
}

/**
 * The connection that makes room for `newcomer` among `scope` (the rules above); undefined
 * when the newcomer is to be refused. `fair` is false at a per-address cap (rules 4 and 5 only).
 */
export function pickVictim(
  scope: SlotSet,
  newcomer: Slot,
  now: number,
  minIdleMs: number,
  fair: boolean,
): Slot | undefined {
  const own = scope.byAddress.get(newcomer.address) ?? [];
  if (!fair) return idlest(own, newcomer, now, 0);
  // 1. the one of no use the longest; meanwhile, each address's connections of no use
  const idle = idlest(scope.all, newcomer, now, Math.max(0, minIdleMs - 1));
  if (idle) return idle;
  const idleOf = new Map<string, { count: number; idlest: Slot; idleFor: number }>();
  for (const s of scope.all) {
    if (s === newcomer) continue;
    const idleFor = s.idleFor(now);
    if (idleFor <= 0) continue;
    const seen = idleOf.get(s.address);
    if (!seen) idleOf.set(s.address, { count: 1, idlest: s, idleFor });
    else {
      seen.count++;
      if (idleFor > seen.idleFor) {
        seen.idlest = s;
        seen.idleFor = idleFor;
      }
    }
  }
  // 2. the idlest of the address holding the most connections of no use
  const newcomerIdle = (idleOf.get(newcomer.address)?.count ?? 0) + 1;
  let mostIdle: { count: number; idlest: Slot } | undefined;
  for (const [address, seen] of idleOf) {
    if (address !== newcomer.address && (!mostIdle || seen.count > mostIdle.count)) mostIdle = seen;
  }
  if (mostIdle && mostIdle.count > newcomerIdle) return mostIdle.idlest;
  // 3. the greediest address's idlest, else its oldest, when it holds more than the newcomer's would
  let greediest: Set<Slot> | undefined;
  let greediestAddress = "";
  for (const [address, mine] of scope.byAddress) {
    if (address === newcomer.address) continue;
    if (!greediest || mine.size > greediest.size) {
      greediest = mine;
      greediestAddress = address;
    }
  }
  const newcomerHolds = scope.countOf(newcomer.address) + (scope.all.has(newcomer) ? 0 : 1);
  if (greediest && greediest.size > newcomerHolds) {
    return idleOf.get(greediestAddress)?.idlest ?? greediest.values().next().value;
  }
  // 4. the newcomer's own address's idlest
  return idlest(own, newcomer, now, 0);
}

/** The connections of one server or transport family, inside the budget. */
export class ConnectionPool {
  private readonly slots = new SlotSet();

  constructor(
    private readonly budget: ConnectionBudget,
    readonly limits: PoolLimits,
  ) {}

  /** Open connections of this pool. */
  get size(): number {
    return this.slots.all.size;
  }

  /**
   * Takes `slot` in, closing another connection to make room when a cap is reached; false when
   * nothing can make room (the caller closes the newcomer: it holds no slot).
   */
  admit(slot: Slot): boolean {
    const now = Date.now();
    const minIdleMs = this.budget.options.minIdleMs;
    // an address whose connections keep being closed or refused is refused on arrival (ChurnRate)
    if (this.budget.churns(slot.address, now)) return this.budget.refuse(slot);
    // the per-address cap: only this address's own connections may make room
    const mine = this.slots.byAddress.get(slot.address);
    if (mine && mine.size >= this.limits.maxPerAddress) {
      const victim = pickVictim(this.slots, slot, now, minIdleMs, false);
      if (!victim) return this.budget.refuse(slot);
      this.budget.evict(victim, "idle");
    }
    if (this.slots.all.size >= this.limits.max) {
      const victim = pickVictim(this.slots, slot, now, minIdleMs, true);
      if (!victim) return this.budget.refuse(slot);
      this.budget.evict(victim, victim.idleFor(now) >= minIdleMs ? "idle" : "greedy");
    }
    if (!this.budget.makeRoom(slot, now)) return this.budget.refuse(slot);
    this.slots.add(slot);
    this.budget.add(slot, this);
    return true;
  }

  /** Closes a newcomer `admit` refused (held first when its address churns: ConnectionBudget.turnAway). */
  turnAway(socket: Parameters<ConnectionBudget["turnAway"]>[0], address: string): void {
    this.budget.turnAway(socket, address);
  }

  /** Gives the slot back (its connection closed); a slot already given back is ignored. */
  release(slot: Slot): void {
    if (this.slots.delete(slot)) this.budget.remove(slot);
  }
}

/** The node's one connection budget; pools are made from it. */
export class ConnectionBudget {
  private readonly slots = new SlotSet();
  /** The pool each open slot is in (an evicted slot leaves it at once, before its close event). */
  private readonly poolOf = new Map<Slot, ConnectionPool>();
  readonly stats: BudgetStats = { open: kinds(), evicted: kinds(), refused: kinds() };
  private readonly churn: ChurnRate;
  /** Refused newcomers held before they are closed, at most a quarter of the budget. */
  private held = 0;
  /** P2P connections open, as the P2P layer reports them (libp2p keeps them within its share). */
  private p2pOpen: () => number = () => 0;

  constructor(readonly options: ConnectionBudgetOptions = defaultConnectionBudgetOptions) {
    this.churn = new ChurnRate(options.churnPerSecond, options.churnBurst);
  }

  /**
   * Closes a refused newcomer. Node (libuv 1.45 and later) accepts one connection per event
   * loop turn and listener, a few hundred a second on a busy node; an attacker that reopens
   * every socket the node closes keeps hundreds of them in the kernel's accept queue, and an
   * honest newcomer waits its turn behind them (measured: 1 s median, 3 s at worst). So a
   * newcomer of an address that churns is held unread for `holdRefusedMs` before it is closed,
   * and the attacker's sockets wait here instead of in the queue; others are closed at once.
   * Held sockets stay within the budget's descriptors, and a quarter of them at most.
   */
  turnAway(
    socket: { destroy(): void; pause(): unknown; once(event: "close", f: () => void): unknown },
    address: string,
  ): void {
    const room = this.options.maxConnections - this.slots.all.size - this.held;
    if (!this.churn.exhausted(address, Date.now()) || this.held >= this.options.maxConnections / 4 || room <= 0) {
      socket.destroy();
      return;
    }
    this.held++;
    socket.pause();
    const timer = setTimeout(() => socket.destroy(), this.options.holdRefusedMs);
    timer.unref();
    socket.once("close", () => {
      this.held--;
      clearTimeout(timer);
    });
  }

  /** A pool of connections with its own caps, inside this budget. */
  pool(limits: PoolLimits): ConnectionPool {
    return new ConnectionPool(this, limits);
  }

  /** Lets the metrics read the P2P layer's open connections. */
  countP2p(open: () => number): void {
    this.p2pOpen = open;
  }

  /** Open connections by kind, P2P included (a fresh object). */
  openByKind(): Record<ConnectionKind, number> {
    return { ...this.stats.open, p2p: this.p2pOpen() };
  }

  /** @internal Whether `address` has used up its churn: its newcomers are refused before anything else. */
  churns(address: string, now: number): boolean {
    return this.churn.exhausted(address, now);
  }

  /** @internal Makes room in the whole budget for `slot`; false when nothing may go. */
  makeRoom(slot: Slot, now: number): boolean {
    if (this.slots.all.size < this.options.maxConnections) return true;
    const victim = pickVictim(this.slots, slot, now, this.options.minIdleMs, true);
    if (!victim) return false;
    this.evict(victim, victim.idleFor(now) >= this.options.minIdleMs ? "idle" : "greedy");
    return true;
  }

  /** @internal */
  add(slot: Slot, pool: ConnectionPool): void {
    this.slots.add(slot);
    this.poolOf.set(slot, pool);
    this.stats.open[slot.kind]++;
  }

  /** @internal */
  remove(slot: Slot): void {
    this.poolOf.delete(slot);
    if (this.slots.delete(slot)) this.stats.open[slot.kind]--;
  }

  /** @internal Closes `victim` for room; its pool forgets it at once, before its close event. */
  evict(victim: Slot, reason: EvictReason): void {
    this.stats.evicted[victim.kind]++;
    this.churn.charge(victim.address, Date.now());
    this.poolOf.get(victim)?.release(victim);
    victim.evict(reason);
  }

  /** @internal */
  refuse(slot: Slot): false {
    this.stats.refused[slot.kind]++;
    this.churn.charge(slot.address, Date.now());
    return false;
  }
}
