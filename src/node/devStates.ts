import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type { KvStore, WriteBatch } from "../storage/index.js";
import { DevErrorCode } from "../tangle/errors.js";
import type { MetricsSnapshot } from "../tangle/metrics.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { addStateDiff, writeStateFile } from "./stateFile.js";

/**
 * Saved states of a dev node (`POST /api/dev/v1/state`, `…/state/{id}/revert`, `…/reset`;
 * Hardhat's `evm_snapshot` and `evm_revert`). A state is the whole database (ledger, tangle,
 * indexes, milestones, the clock's offset) written to a file from one consistent view, taken
 * between two milestones, plus the info metrics, which live in memory. Reverting writes what
 * differs in one LevelDB batch, so a crash in the middle restarts into the old state or the new
 * one, never a mix; then every component is built anew on it, as a restart would (node.ts
 * `replaceState`). Reverting to a state drops it and every later one, as `evm_revert` does: a
 * suite that saves before each test and reverts after it holds one state, not one per test.
 * States live as long as the process: a start clears the directory.
 */

/** States held at most; more are refused until one is reverted to or the node is reset. */
export const MAX_SAVED_STATES = 64;
const STATES_DIR = "dev-states";

type Action = "save" | "revert" | "reset" | "time change";
const DOING: Record<Action, string> = {
  save: "saving a state",
  revert: "reverting to a state",
  reset: "resetting",
  "time change": "moving its clock",
};

export interface SavedState {
  id: string;
  /** The ledger index when it was saved. */
  milestoneIndex: number;
  /** When it was saved (ms since the epoch). */
  savedAt: number;
  /** Database entries it holds. */
  entries: number;
}

/** What the states need of the node (node.ts). */
export interface StateHost {
  store: KvStore;
  readonly ledgerIndex: number;
  /** Runs `fn` between two milestones (the coordinator's chain). */
  betweenMilestones<T>(fn: () => Promise<T>): Promise<T>;
  /** Blocks taken in are on disk. */
  intakeWritten(): Promise<void>;
  metricsSnapshot(): MetricsSnapshot;
  /** Stops everything, writes what `fill` adds in one batch, builds the node anew; refused while blocks are submitted. */
  replaceState(fill: (batch: WriteBatch) => Promise<void>, metrics?: MetricsSnapshot): Promise<void>;
  /** `fill` for a reset: the database back to the network's genesis. */
  genesisState(batch: WriteBatch): Promise<void>;
}

export class DevStates {
  private readonly states: (SavedState & { path: string; metrics: MetricsSnapshot })[] = [];
  private nextId = 1;
  private busy: Action | undefined;

  private constructor(
    private readonly host: StateHost,
    private readonly dir: string,
  ) {}

  /** The states of `dataDir`, none yet: what an earlier run saved is removed. */
  static async open(host: StateHost, dataDir: string): Promise<DevStates> {
    const dir = join(dataDir, STATES_DIR);
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    return new DevStates(host, dir);
  }

  list(): SavedState[] {
    return this.states.map(({ id, milestoneIndex, savedAt, entries }) => ({ id, milestoneIndex, savedAt, entries }));
  }

  async save(): Promise<SavedState> {
    if (this.states.length >= MAX_SAVED_STATES) {
      throw new LedgerNodeError(
        DevErrorCode.TooManyStates,
        `${this.states.length} states are saved, the most this node holds: revert to one or reset first`,
      );
    }
    return this.exclusive("save", async () => {
      const id = String(this.nextId++);
      const path = join(this.dir, `${id}.state`);
      // the view is taken between two milestones, with every block taken in on disk
      const view = await this.host.betweenMilestones(async () => {
        await this.host.intakeWritten();
        const range = this.host.store.openRange({ prefix: new Uint8Array(0), values: true });
        const first = await range.take(1);
        return { range, first, milestoneIndex: this.host.ledgerIndex, metrics: this.host.metricsSnapshot() };
      });
      let pending = view.first;
      const entries = await writeStateFile(
        {
          take: async (n) => {
            const page = pending.length > 0 ? pending : await view.range.take(n);
            pending = [];
            return page;
          },
          close: () => view.range.close(),
        },
        path,
      ).catch(async (e: unknown) => {
        // a save that failed (a full disk) leaves no file behind, and its ID is not used
        await rm(path, { force: true });
        this.nextId--;
        throw e;
      });
      const state = {
        id,
        milestoneIndex: view.milestoneIndex,
        savedAt: Date.now(),
        entries,
        path,
        metrics: view.metrics,
      };
      this.states.push(state);
      return this.list().at(-1)!;
    });
  }

  /** Puts the node back to state `id`; it and every later state are dropped. */
  async revert(id: string): Promise<{ state: SavedState; dropped: string[] }> {
    const at = this.states.findIndex((s) => s.id === id);
    if (at < 0) {
      throw new LedgerNodeError(
        DevErrorCode.UnknownState,
        `no saved state ${id}: ${this.states.length === 0 ? "none is saved" : `saved are ${this.states.map((s) => s.id).join(", ")}`}`,
      );
    }
    return this.exclusive("revert", async () => {
      const state = this.states[at]!;
      await this.host.replaceState(
        async (batch) => void (await addStateDiff(this.host.store, state.path, batch)),
        state.metrics,
      );
      const dropped = this.states.splice(at);
      await Promise.all(dropped.map((s) => rm(s.path, { force: true })));
      const { path: _, metrics: __, ...saved } = state;
      return { state: saved, dropped: dropped.map((s) => s.id) };
    });
  }

  /** Puts the node back to its genesis; every state is dropped. */
  async reset(): Promise<{ dropped: string[] }> {
    return this.exclusive("reset", async () => {
      await this.host.replaceState((batch) => this.host.genesisState(batch));
      const dropped = this.states.splice(0);
      await Promise.all(dropped.map((s) => rm(s.path, { force: true })));
      return { dropped: dropped.map((s) => s.id) };
    });
  }

  /**
   * One save, revert, reset or clock move at a time (a revert builds the clock anew from the
   * database); another asked meanwhile is refused, nothing done.
   */
  async exclusive<T>(action: Action, fn: () => Promise<T>): Promise<T> {
    if (this.busy) {
      throw new LedgerNodeError(
        DevErrorCode.Busy,
        `the node is ${DOING[this.busy]}: nothing was done; ask for the ${action} once that is done`,
      );
    }
    this.busy = action;
    try {
      return await fn();
    } finally {
      this.busy = undefined;
    }
  }
}
