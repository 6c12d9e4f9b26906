import { Bucket } from "./buckets.js";
import { AddressBuckets, ChildLinks, MilestoneBlocks } from "./explorerBuckets.js";
import { IndexerBuckets } from "./indexerBuckets.js";
import type { KvStore } from "./kvStore.js";
import { NodeStateRepository } from "./nodeState.js";
import { ReceiptRepository } from "./receipts.js";
import {
  type BlockMetadataRecord,
  decodeBlockMetadata,
  decodeLedgerDiff,
  decodeMilestoneRecord,
  decodeOutputRecord,
  decodeTransactionBlock,
  decodeU32,
  type LedgerDiffRecord,
  type MilestoneRecord,
  type OutputRecord,
  type TransactionBlockRecord,
} from "./records.js";
import { KeySet, Repository } from "./repository.js";

const bytesOf = (v: Uint8Array) => v;

/**
 * Every bucket of one store through its repository (`repository.ts`, `nodeState.ts`,
 * `explorerBuckets.ts`, `indexerBuckets.ts`): reads decode, writes go into a caller's batch, and
 * keys are built only in `buckets.ts`. One instance per store (`Repositories.of`), so the caches
 * of its repositories are shared.
 */
export class Repositories {
  /** Block bytes (TIP-24) by block ID. */
  readonly blocks: Repository<Uint8Array, Uint8Array>;
  /** Block metadata by block ID. */
  readonly blockMetadata: Repository<Uint8Array, BlockMetadataRecord>;
  /** Child links (parent → children). */
  readonly children: ChildLinks;
  /** Blocks stored but not referenced by a milestone yet. */
  readonly unreferenced: KeySet;
  /** Output records by output ID: booking, spending, the proof of the ID. */
  readonly outputs: Repository<Uint8Array, OutputRecord>;
  /** The unspent outputs' IDs. */
  readonly unspent: KeySet;
  /** Milestone records by index. */
  readonly milestones: Repository<number, MilestoneRecord>;
  /** Milestone indexes by milestone ID. */
  readonly milestoneIndexes: Repository<Uint8Array, number>;
  /** Ledger diffs by milestone index. */
  readonly ledgerDiffs: Repository<number, LedgerDiffRecord>;
  /** The block that included a transaction, by transaction ID. */
  readonly transactionBlocks: Repository<Uint8Array, TransactionBlockRecord>;
  /** Protocol parameters bytes (TIP-22/32) by the milestone index they take effect at. */
  readonly protocolParameters: Repository<number, Uint8Array>;
  /** Solid entry points: the index of the milestone that referenced each, by block ID. */
  readonly solidEntryPoints: Repository<Uint8Array, number>;
  /** The node's named single values: ledger index, pruning index, schema version, network name, treasury… */
  readonly nodeState: NodeStateRepository;
  /** Receipts of migrated funds (TIP-34) by migratedAt and milestone index. */
  readonly receipts: ReceiptRepository;
  /** The explorer's listing of the blocks each milestone referenced. */
  readonly milestoneBlocks: MilestoneBlocks;
  /** The explorer's address buckets. */
  readonly addresses: AddressBuckets;
  /** The indexer's buckets, as it reads them outside its listings (marker, chains, rebuilds). */
  readonly indexer: IndexerBuckets;

  constructor(store: KvStore) {
    this.blocks = new Repository(store, Bucket.Block, bytesOf);
    this.blockMetadata = new Repository(store, Bucket.BlockMetadata, decodeBlockMetadata);
    this.children = new ChildLinks(store);
    this.unreferenced = new KeySet(store, Bucket.Unreferenced);
    this.outputs = new Repository(store, Bucket.Output, decodeOutputRecord);
    this.unspent = new KeySet(store, Bucket.Unspent);
    this.milestones = new Repository(store, Bucket.MilestoneByIndex, decodeMilestoneRecord, "index");
    this.milestoneIndexes = new Repository(store, Bucket.MilestoneById, (v) => decodeU32(v, "milestoneById.index"));
    this.ledgerDiffs = new Repository(store, Bucket.LedgerDiff, decodeLedgerDiff, "index");
    this.transactionBlocks = new Repository(store, Bucket.TransactionBlock, decodeTransactionBlock);
    this.protocolParameters = new Repository(store, Bucket.ProtocolParameters, bytesOf, "index");
    this.solidEntryPoints = new Repository(store, Bucket.SolidEntryPoint, (v) => decodeU32(v, "solidEntryPoint.index"));
    this.nodeState = new NodeStateRepository(store);
    this.receipts = new ReceiptRepository(store);
    this.milestoneBlocks = new MilestoneBlocks(store);
    this.addresses = new AddressBuckets(store);
    this.indexer = new IndexerBuckets(store);
  }

  private static readonly ofStore = new WeakMap<KvStore, Repositories>();

  /** The repositories of `store`, built once per store. */
  static of(store: KvStore): Repositories {
    let db = Repositories.ofStore.get(store);
    if (!db) {
      db = new Repositories(store);
      Repositories.ofStore.set(store, db);
    }
    return db;
  }
}
