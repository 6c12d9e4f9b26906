import { fromHex } from "../codec/hex.js";

/**
 * Solidification over the network: a block whose parent is missing waits in the tangle
 * (`Tangle.missingParents`); once a parent has been missing for `delayMs` it is requested from
 * a peer, then from the next one, with a growing pause, up to `attempts` times. Requests pause
 * while the node is behind: the milestone cones it fetches then fill the gaps wholesale.
 */

export interface ParentRequesterOptions {
  delayMs: number;
  attempts: number;
  /** Requests in flight at most. */
  concurrency: number;
}

export interface ParentRequesterDeps {
  /** Missing parents as hex block IDs. */
  missingParents(): string[];
  /** Connected peers that speak the request protocol. */
  peers(): string[];
  isSynced(): boolean;
  /** Fetches the block from the peer, validates and stores it. */
  fetchBlock(peer: string, blockId: Uint8Array): Promise<void>;
  onError(peer: string, blockId: string, e: unknown): void;
}

interface Pending {
  attempts: number;
  next: number;
  inFlight: boolean;
}

export class ParentRequester {
  private readonly pending = new Map<string, Pending>();
  private inFlight = 0;
  private rotation = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly options: ParentRequesterOptions,
    private readonly deps: ParentRequesterDeps,
    private readonly now: () => number = Date.now,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.tick(), Math.max(10, Math.floor(this.options.delayMs / 2)));
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** Parents being waited for (requested or not yet). */
  waitingFor(): number {
    return this.pending.size;
  }

  tick(): void {
    const now = this.now();
    const missing = new Set(this.deps.missingParents());
    for (const [id, p] of this.pending) if (!missing.has(id) && !p.inFlight) this.pending.delete(id);
    if (!this.deps.isSynced()) return;
    const peers = this.deps.peers();
    for (const id of missing) {
      let p = this.pending.get(id);
      if (!p) {
        p = { attempts: 0, next: now + this.options.delayMs, inFlight: false };
        this.pending.set(id, p);
      }
      if (peers.length === 0 || p.inFlight || p.next > now || p.attempts >= this.options.attempts) continue;
      if (this.inFlight >= this.options.concurrency) break;
      const peer = peers[this.rotation++ % peers.length]!;
      p.inFlight = true;
      p.attempts++;
      this.inFlight++;
      const entry = p;
      this.deps
        .fetchBlock(peer, fromHex(id, "blockId", 32))
        .catch((e) => {
          entry.next = this.now() + this.options.delayMs * 2 ** entry.attempts;
          this.deps.onError(peer, id, e);
        })
        .finally(() => {
          entry.inFlight = false;
          this.inFlight--;
        });
    }
  }
}
