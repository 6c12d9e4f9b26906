import { NodeStateKey, nodeStateKey } from "./buckets.js";
import type { KvStore, WriteBatch } from "./kvStore.js";
import {
  decodeTreasury,
  decodeU32,
  EMPTY_TREASURY,
  encodeTreasury,
  encodeU32,
  type TreasuryRecord,
} from "./records.js";
import { decodeStored } from "./repository.js";

/**
 * The NodeState bucket: the node's named single values (`NodeStateKey`), read and written only
 * here. The ledger index and the pruning index are the ones most read (routes, indexes,
 * snapshots, pruning); both are 0 on a database that has none yet.
 */
export class NodeStateRepository {
  /** The key of each name, built once. */
  private readonly keys = new Map<NodeStateKey, Uint8Array>();

  constructor(private readonly store: KvStore) {}

  private key(name: NodeStateKey): Uint8Array {
    let key = this.keys.get(name);
    if (!key) {
      key = nodeStateKey(name);
      this.keys.set(name, key);
    }
    return key;
  }

  /** The stored value of `name`, as its bytes. */
  get(name: NodeStateKey): Promise<Uint8Array | undefined> {
    return this.store.get(this.key(name));
  }

  /** Adds the write of `name` to `batch`. */
  put(batch: WriteBatch, name: NodeStateKey, value: Uint8Array): void {
    batch.put(this.key(name), value);
  }

  /** Adds the deletion of `name` to `batch`. */
  del(batch: WriteBatch, name: NodeStateKey): void {
    batch.del(this.key(name));
  }

  /** The stored u32 of `name`, if any. */
  async getU32(name: NodeStateKey): Promise<number | undefined> {
    const v = await this.get(name);
    return v ? decodeStored(v, (b) => decodeU32(b, `nodeState.${name}`), `NodeState ${name}`) : undefined;
  }

  /** Adds the write of the u32 `value` of `name` to `batch`. */
  putU32(batch: WriteBatch, name: NodeStateKey, value: number): void {
    batch.put(this.key(name), encodeU32(value));
  }

  /** Index of the last confirmed milestone whose writes are applied (0 on an empty database). */
  async ledgerIndex(): Promise<number> {
    const v = await this.store.get(this.key(NodeStateKey.LedgerIndex));
    return v ? decodeStored(v, (b) => decodeU32(b, "nodeState.ledgerIndex"), "NodeState ledgerIndex") : 0;
  }

  /**
   * `ledgerIndex` and `pruningIndex` read on the calling thread (a point read from LevelDB's
   * cache): callers that must keep the order they were called in (past rankings admitted in
   * request order) read them without an await, since async reads complete in any order.
   */
  ledgerIndexSync(): number {
    const v = this.store.getSync(this.key(NodeStateKey.LedgerIndex));
    return v ? decodeStored(v, (b) => decodeU32(b, "nodeState.ledgerIndex"), "NodeState ledgerIndex") : 0;
  }

  pruningIndexSync(): number {
    const v = this.store.getSync(this.key(NodeStateKey.PruningIndex));
    return v ? decodeStored(v, (b) => decodeU32(b, "nodeState.pruningIndex"), "NodeState pruningIndex") : 0;
  }

  /** The lowest milestone index whose data is still stored (0 on a node that never pruned). */
  async pruningIndex(): Promise<number> {
    const v = await this.store.get(this.key(NodeStateKey.PruningIndex));
    return v ? decodeStored(v, (b) => decodeU32(b, "nodeState.pruningIndex"), "NodeState pruningIndex") : 0;
  }

  /** The treasury output (TIP-34); the empty one when none is stored (a network without migration). */
  async treasury(): Promise<TreasuryRecord> {
    const v = await this.store.get(this.key(NodeStateKey.Treasury));
    return v ? decodeStored(v, decodeTreasury, "NodeState treasury") : EMPTY_TREASURY;
  }

  /** Adds the write of the treasury output to `batch`. */
  putTreasury(batch: WriteBatch, treasury: TreasuryRecord): void {
    batch.put(this.key(NodeStateKey.Treasury), encodeTreasury(treasury));
  }
}
