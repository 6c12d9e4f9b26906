import { serializeAddressBytes } from "../codec/address.js";
import { readOwnedBalance } from "../indexer/addressLedger.js";
import type { NetworkConfig } from "../network/index.js";
import type { KvStore, Repositories, WriteBatch } from "../storage/index.js";
import type { Coordinator } from "../tangle/coordinator.js";
import { DevErrorCode } from "../tangle/errors.js";
import type { MilestoneInfo } from "../tangle/events.js";
import type { MetricsSnapshot, MetricsTracker } from "../tangle/metrics.js";
import { LATEST_CLOCK, MAX_CLOCK_STEP_SECONDS, MAX_TIMESTAMP, type NodeClock } from "../tangle/nodeClock.js";
import type { Tangle } from "../tangle/tangle.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { type DevAccount, deriveDevAccounts } from "./devAccounts.js";
import { DevStates, type SavedState } from "./devStates.js";
import { writeGenesis } from "./initDatabase.js";
import type { NodeOptions } from "./options.js";

/**
 * What a dev network's coordinator offers builders (`/api/dev/v1`, docs/decisions.md, A node for
 * builders; Anvil's and Hardhat's `evm_*` methods): its funded accounts, milestones on demand,
 * time travel and saved states. Served only where `isDevNetwork` holds and the node runs the
 * coordinator; elsewhere the routes do not exist.
 */

/** The dev network, or a network file that says `"dev": true`. */
export function isDevNetwork(config: Pick<NetworkConfig, "genesis" | "dev">): boolean {
  return config.genesis.kind === "dev" || config.dev === true;
}

export interface DevAccountBalance extends DevAccount {
  /** The base tokens it owns now (every unspent output it is the owner of, TIP-18). */
  balance: bigint;
}

export interface DevTime {
  /** Seconds the node's clock is ahead of the wall clock. */
  offsetSeconds: number;
  /** Unix seconds now on the node's clock. */
  timestamp: number;
  /** Unix seconds now on the wall clock. */
  wallClock: number;
  /** The latest milestone's timestamp (0 before the first). */
  latestMilestoneTimestamp: number;
  /** The timestamp the next milestone will have, unless the clock moves first. */
  nextMilestoneTimestamp: number;
}

/**
 * What the tools use of the node (node.ts), read through on each call: a revert puts new
 * components in place, and the tools must reach the new ones.
 */
export interface DevHost {
  readonly store: KvStore;
  readonly db: Repositories;
  readonly tangle: Tangle;
  readonly coordinator: Coordinator;
  readonly metrics: MetricsTracker;
  readonly clock: NodeClock;
  readonly options: Pick<NodeOptions, "dataDir" | "devCoinType">;
  describeNetwork(peers: string[]): NetworkConfig;
  replaceState(fill: (batch: WriteBatch) => Promise<void>, metrics?: MetricsSnapshot): Promise<void>;
}

export class DevTools {
  private accountList: DevAccount[] | undefined;

  private constructor(
    private readonly node: DevHost,
    private readonly states: DevStates,
  ) {}

  static async open(node: DevHost): Promise<DevTools> {
    const states = await DevStates.open(
      {
        store: node.store,
        get ledgerIndex() {
          return node.tangle.latestMilestone.index;
        },
        betweenMilestones: (fn) => node.coordinator.between(fn),
        intakeWritten: () => node.tangle.intakeWritten(),
        metricsSnapshot: () => node.metrics.snapshot(),
        replaceState: (fill, metrics) => node.replaceState(fill, metrics),
        genesisState: async (batch) => {
          for await (const key of node.store.scanKeys({ prefix: new Uint8Array(0) })) batch.del(key);
          writeGenesis(node.db, batch, node.describeNetwork([]));
        },
      },
      node.options.dataDir,
    );
    return new DevTools(node, states);
  }

  /**
   * The accounts the genesis funded (as the network's description keeps them: `--dev-*` of a
   * fresh data directory, or a network file's `devAccounts`), derived once, with what each owns now.
   */
  async accounts(): Promise<{ coinType: number; accounts: DevAccountBalance[] }> {
    const spec = this.node.describeNetwork([]).devAccounts;
    this.accountList ??= spec ? deriveDevAccounts(spec) : [];
    const list = this.accountList;
    // read between two milestones: issued back to back they would keep the reads from agreeing
    const accounts = await this.node.coordinator.between(() =>
      Promise.all(
        list.map(async (a) => {
          const { value } = await readOwnedBalance(this.node.db, serializeAddressBytes(a.address));
          return { ...a, balance: value.total };
        }),
      ),
    );
    return { coinType: spec?.coinType ?? this.node.options.devCoinType, accounts };
  }

  /** Issues `count` milestones now, whatever the mode; answers them once confirmed. */
  issueMilestones(count: number): Promise<MilestoneInfo[]> {
    return this.node.coordinator.issueNow(count);
  }

  time(now = Date.now()): DevTime {
    const clock = this.node.clock;
    const latest = this.node.tangle.latestMilestone;
    const timestamp = clock.nowSeconds(now);
    return {
      offsetSeconds: clock.offsetSeconds,
      timestamp,
      wallClock: Math.floor(now / 1000),
      latestMilestoneTimestamp: latest.index > 0 ? latest.timestamp : 0,
      nextMilestoneTimestamp: Math.max(timestamp, latest.index > 0 ? latest.timestamp + 1 : 0),
    };
  }

  /**
   * Moves the clock of the next milestones forward (TIP-18's unlock conditions read milestone
   * timestamps): by `increaseSeconds`, or to `timestamp`, which must be ahead of both the clock
   * and the latest milestone (timestamps only grow). Written before it answers.
   */
  setTime(to: { increaseSeconds: number } | { timestamp: number }): Promise<DevTime> {
    // not while a revert or reset builds the clock anew from the database
    return this.states.exclusive("time change", () => this.moveClock(to));
  }

  private async moveClock(to: { increaseSeconds: number } | { timestamp: number }): Promise<DevTime> {
    const now = Date.now();
    const before = this.time(now);
    const target = "timestamp" in to ? to.timestamp : before.timestamp + to.increaseSeconds;
    if ("timestamp" in to && (target <= before.timestamp || target <= before.latestMilestoneTimestamp)) {
      throw new LedgerNodeError(
        DevErrorCode.TimeNotAhead,
        `timestamp ${target} is not ahead of the node's clock (${before.timestamp}) and the latest milestone (${before.latestMilestoneTimestamp}): the clock only moves forward`,
      );
    }
    if (target - before.timestamp > MAX_CLOCK_STEP_SECONDS || target > LATEST_CLOCK) {
      throw new LedgerNodeError(
        DevErrorCode.TimeNotAhead,
        `timestamp ${target} is too far: the clock moves at most ${MAX_CLOCK_STEP_SECONDS} s at once, and to ${LATEST_CLOCK} at the latest (a year before ${MAX_TIMESTAMP}, the last a milestone timestamp can be)`,
      );
    }
    const batch = this.node.store.batch();
    this.node.clock.setOffset(this.node.db, batch, target - before.wallClock);
    await batch.write({ sync: true });
    return this.time(now);
  }

  saveState(): Promise<SavedState> {
    return this.states.save();
  }

  savedStates(): SavedState[] {
    return this.states.list();
  }

  revertState(id: string): Promise<{ state: SavedState; dropped: string[] }> {
    return this.states.revert(id);
  }

  reset(): Promise<{ dropped: string[] }> {
    return this.states.reset();
  }
}
