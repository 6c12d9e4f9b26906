import type { WriteBatch } from "./kvStore.js";
import { MARKER_VALUE } from "./records.js";

/**
 * Every key prefix of the database, one byte each, never reused. The layout of each key and
 * value is documented here, in one place, and built only by the helpers below (and the record
 * codecs in `records.ts`). Integers in keys are big-endian so that LevelDB's byte order is
 * numeric order; integers in values are little-endian like the Stardust wire format.
 *
 * | bucket                | key                                  | value                                                            |
 * |-----------------------|--------------------------------------|------------------------------------------------------------------|
 * | Block                 | blockId[32]                          | block bytes (TIP-24)                                             |
 * | BlockMetadata         | blockId[32]                          | BlockMetadataRecord (records.ts)                                 |
 * | Child                 | parentId[32] ‖ childId[32]           | 0x00: a marker (MARKER_VALUE; empty in older databases)          |
 * | MilestoneByIndex      | index u32 BE                         | milestoneId[32] ‖ blockId[32] ‖ timestamp u32                    |
 * | MilestoneById         | milestoneId[32]                      | index u32                                                        |
 * | Output                | outputId[34]                         | blockId[32] ‖ bookedIndex u32 ‖ bookedTimestamp u32 ‖ spent u8 ‖ |
 * |                       |                                      |   (spent 1: spendingTxId[32] ‖ spentIndex u32 ‖ spentTimestamp   |
 * |                       |                                      |   u32) ‖ proof length u16 ‖ proof ‖ output                       |
 * | Unspent               | outputId[34]                         | 0x00: a marker (MARKER_VALUE; empty in older databases)          |
 * | LedgerDiff            | milestoneIndex u32 BE                | created count u32 ‖ outputIds ‖ consumed count u32 ‖ outputIds   |
 * | TransactionBlock      | transactionId[32]                    | blockId[32] of the block that included it ‖ output count u16     |
 * | ProtocolParameters    | targetMilestoneIndex u32 BE          | protocol parameters bytes (TIP-22/32)                            |
 * | SolidEntryPoint       | blockId[32]                          | milestoneIndex u32                                               |
 * | Unreferenced          | blockId[32]                          | 0x00 (a marker): stored, not yet referenced by a milestone       |
 * | NodeState             | ascii name                           | per entry (see `NodeStateKey`)                                   |
 * | Receipt               | migratedAt u32 BE ‖ milestoneIndex   | the receipt milestone option (TIP-34, type byte included) of     |
 * |                       |   u32 BE                             |   that milestone, as Hornet keys its receipts                    |
 * | IndexerState          | (empty)                              | version u32 ‖ ledgerIndex u32: the ledger the indexes reflect    |
 * | IndexerChain          | outputType u8 ‖ chainId[32 or 38]    | outputId[34] of the chain's current unspent output               |
 * | IndexerOutput         | outputType u8 ‖ createdAt u32 BE ‖   | OutputFacts (indexer/facts.ts)                                   |
 * |                       |   outputId[34]                       |                                                                  |
 * | IndexerField          | outputType u8 ‖ field u8 ‖ len u8 ‖  | a chunk of one list: (createdAt u32 BE ‖ outputId[34] ‖ facts    |
 * |                       |   value ‖ seq u32 BE                 |   length u16 ‖ OutputFacts)… in position order                   |
 * | IndexerFieldDir       | outputType u8 ‖ field u8 ‖ len u8 ‖  | the list's chunks in position order: (seq u32 BE ‖ last          |
 * |                       |   value                              |   createdAt u32 BE ‖ outputId[34])…                              |
 * | IndexerSort           | (retired)                            | a rebuild's sort entries in older versions; a rebuild deletes    |
 * |                       |                                      |   what one of them left                                          |
 * | MilestoneBlock        | milestoneIndex u32 BE ‖              | blockId[32] ‖ payloadType u32 (0xffffffff: no payload)           |
 * |                       |   whiteFlagIndex u32 BE              |                                                                  |
 * | AddressBalanceState   | (empty)                              | version u32 ‖ ledgerIndex u32: the ledger the balances reflect   |
 * | AddressBalance        | address[33]                          | total amount u64 ‖ unspent output count u32                      |
 * | AddressConditional    | address[33] ‖ role u8 ‖ expiration   | amount u64 ‖ timelock u32 ‖ storage deposit return amount u64 ‖  |
 * |                       |   u32 BE (0: none) ‖ outputId[34]    |   returnsToSelf u8 (AddressConditionalRecord)                    |
 * | AddressUpdate         | address[33] ‖ milestoneIndex u32 BE ‖| 0x00: a marker (MARKER_VALUE; empty in older databases)          |
 * |                       |   outputId[34] ‖ spent u8 (0 or 1)   |                                                                  |
 *
 * An Output record holds all a read of one output shows, so that read is one point read: where
 * it was booked, its spending once spent (the milestone's batch rewrites the record), and the
 * proof of its ID made at booking (transactionCommitment[32] ‖ proof tree, codec/outputIdProof.ts;
 * empty for outputs without a creating transaction on record, genesis and snapshot imports).
 * Unspent lists the unspent ones. TransactionBlock names the block that included each applied
 * transaction and how many outputs it created: pruning drops it once all of them are spent.
 *
 * Address buckets (explorer, indexer/addressLedger.ts): `address` is the 33 serialized bytes of
 * an unspent output's owner (address unlock condition of basic and NFT outputs, state controller
 * of an alias, immutable alias of a foundry). AddressBalance holds one entry per address that
 * owns at least one unspent output; AddressConditional lists, under role 0 (owner), those of
 * its outputs that carry a timelock, expiration or storage deposit return unlock condition and,
 * under role 1 (expiration return), the unspent outputs whose expiration names it as return
 * address, in expiration order (a read takes the expired ones only). Both are written in each
 * milestone's batch and rebuilt from the Unspent and Output buckets when AddressBalanceState
 * does not name the previous ledger index (an older layout version included). AddressUpdate
 * records each output an address gained (spent 0) or lost (spent 1) per milestone; it holds
 * nothing for milestones confirmed before its writer was attached.
 *
 * MilestoneBlock (explorer) lists the blocks each milestone referenced in white-flag order; it
 * is written in the milestone's batch from the white-flag result (indexer/explorerIndex.ts),
 * pruned with the milestone's blocks (the proofs of inclusion, tangle/inclusionProof.ts, are
 * made from it), and holds nothing for milestones confirmed before the writer was attached.
 *
 * Indexer buckets (0x20..0x23, 0x29) hold unspent basic, alias, foundry and NFT outputs only and are
 * written in each milestone's batch. `outputType` is the TIP-18 code (basic 3, alias 4, foundry
 * 5, NFT 6); the chain ID is the alias or NFT ID (an output created with a zero ID is listed
 * under BLAKE2b-256 of its output ID) or the 38-byte foundry ID. `createdAt` is the booking
 * milestone's timestamp, so every listing runs in booking order, then output ID order (as
 * inx-indexer pages). `field` names what `value` is (`IndexedField`: the address of an address
 * unlock condition, state controller, governor, immutable alias, storage deposit return,
 * expiration return, sender or issuer as 33 serialized bytes, or a tag's bytes). The outputs of
 * one field value (a list) are kept in chunks of up to 64 entries with a directory per list
 * (indexer/fieldLists.ts), so a page of a listing is a few point reads. A rebuild sorts the
 * field list entries outside the database (indexer/externalSort.ts); IndexerSort (0x2a) was
 * where older versions sorted them, and stays retired.
 */
export enum Bucket {
  Block = 0x01,
  BlockMetadata = 0x02,
  Child = 0x03,
  MilestoneByIndex = 0x04,
  MilestoneById = 0x05,
  Output = 0x06,
  Unspent = 0x07,
  // 0x08: spent records, kept in the Output record since schema version 2; not to be reused
  LedgerDiff = 0x09,
  // 0x0a: leaf hashes of each transaction's outputs, retired in schema version 3 (proofs are in the Output
  // record, the output count pruning needs in TransactionBlock); not to be reused
  TransactionBlock = 0x0b,
  ProtocolParameters = 0x0c,
  SolidEntryPoint = 0x0d,
  // 0x0e: never written (tips are rebuilt from Unreferenced at start); not to be reused
  NodeState = 0x0f,
  Unreferenced = 0x10,
  Receipt = 0x11,
  IndexerState = 0x20,
  IndexerChain = 0x21,
  IndexerOutput = 0x22,
  IndexerField = 0x23,
  MilestoneBlock = 0x24,
  AddressBalanceState = 0x25,
  AddressBalance = 0x26,
  AddressConditional = 0x27,
  AddressUpdate = 0x28,
  IndexerFieldDir = 0x29,
  IndexerSort = 0x2a,
}

/** Named single values of the NodeState bucket. */
export enum NodeStateKey {
  /** u32: schema version of this database layout. */
  SchemaVersion = "schemaVersion",
  /** utf-8: network name the database belongs to (refuse to start on another). */
  NetworkName = "networkName",
  /** u32: index of the last confirmed milestone whose writes are applied (the ledger index). */
  LedgerIndex = "ledgerIndex",
  /** u32: lowest milestone index whose data is still stored (pruning horizon). */
  PruningIndex = "pruningIndex",
  /** Retired: the coordinator's seed, now in `keys/coordinator-1.key`; read once to move it there. */
  CoordinatorSeed = "coordinatorSeed",
  /** Retired: the JWT secret, now in `keys/jwt.key`; read once to move it there. */
  JwtSecret = "jwtSecret",
  /** u8: a snapshot import's progress (0 begun, 1 done; snapshot/importSnapshot.ts). */
  SnapshotImport = "snapshotImport",
  /** u32: seconds the clock of the milestones this node issues is ahead of the wall clock (tangle/nodeClock.ts). */
  ClockOffset = "clockOffset",
  /**
   * The treasury output (TIP-34): milestoneId[32] of the milestone that made it ‖ amount u64.
   * Absent: the empty treasury (32 zero bytes, 0), which every network without migration has.
   * Its name sorts after `pruningIndex`, so the ledger scan (ledgerScan.ts) meets it last.
   */
  Treasury = "treasury",
}

/** Current layout version; bump when a value layout changes. */
export const SCHEMA_VERSION = 3;

export function bucketPrefix(bucket: Bucket): Uint8Array {
  return Uint8Array.of(bucket);
}

/** `bucket ‖ id` for buckets keyed by one ID (block, milestone, output, transaction). */
export function idKey(bucket: Bucket, id: Uint8Array): Uint8Array {
  const key = new Uint8Array(1 + id.length);
  key[0] = bucket;
  key.set(id, 1);
  return key;
}

/** `MilestoneBlock ‖ milestoneIndex u32 BE ‖ whiteFlagIndex u32 BE`. */
export function milestoneBlockKey(milestoneIndex: number, whiteFlagIndex: number): Uint8Array {
  const key = new Uint8Array(9);
  key[0] = Bucket.MilestoneBlock;
  setU32BE(key, 1, milestoneIndex);
  setU32BE(key, 5, whiteFlagIndex);
  return key;
}

/** The white-flag index at the end of a MilestoneBlock key. */
export function whiteFlagIndexOfKey(key: Uint8Array): number {
  return ((key[5]! << 24) | (key[6]! << 16) | (key[7]! << 8) | key[8]!) >>> 0;
}

/** `bucket ‖ index u32 BE` for buckets keyed by milestone index. */
export function indexKey(bucket: Bucket, index: number): Uint8Array {
  const key = new Uint8Array(5);
  key[0] = bucket;
  setU32BE(key, 1, index);
  return key;
}

/** Integers in keys are big-endian, so LevelDB's byte order is their numeric order. */
function setU32BE(key: Uint8Array, at: number, v: number): void {
  key[at] = v >>> 24;
  key[at + 1] = v >>> 16;
  key[at + 2] = v >>> 8;
  key[at + 3] = v;
}

/** The milestone index of an `indexKey`. */
export function indexOfKey(key: Uint8Array): number {
  return new DataView(key.buffer, key.byteOffset, key.byteLength).getUint32(1, false);
}

/** `Child ‖ parentId ‖ childId`. */
export function childKey(parentId: Uint8Array, childId: Uint8Array): Uint8Array {
  const key = new Uint8Array(65);
  key[0] = Bucket.Child;
  key.set(parentId, 1);
  key.set(childId, 33);
  return key;
}

const CHILD_KEY_SCRATCH = new Uint8Array(65);

/**
 * Puts a block's child links, one per parent, through one scratch key: `WriteBatch.put` copies
 * its key at once, and a 65-byte typed array of its own per link would get memory outside V8's
 * heap (over 64 bytes), several times the cost of a small one, eight times per block.
 */
export function putChildLinks(batch: WriteBatch, parentIds: readonly Uint8Array[], childId: Uint8Array): void {
  const key = CHILD_KEY_SCRATCH;
  key[0] = Bucket.Child;
  key.set(childId, 33);
  for (const parentId of parentIds) {
    key.set(parentId, 1);
    batch.put(key, MARKER_VALUE);
  }
}

/** `AddressConditional ‖ address[33] ‖ role u8 ‖ expiration u32 BE ‖ outputId[34]`. */
export function addressConditionalKey(
  address: Uint8Array,
  role: number,
  expiration: number,
  outputId: Uint8Array,
): Uint8Array {
  const key = new Uint8Array(1 + 33 + 1 + 4 + 34);
  key[0] = Bucket.AddressConditional;
  key.set(address, 1);
  key[34] = role;
  setU32BE(key, 35, expiration);
  key.set(outputId, 39);
  return key;
}

/** `AddressConditional ‖ address[33] ‖ role u8`: the entries of one role of an address. */
export function addressConditionalPrefix(address: Uint8Array, role: number): Uint8Array {
  const key = new Uint8Array(1 + 33 + 1);
  key[0] = Bucket.AddressConditional;
  key.set(address, 1);
  key[34] = role;
  return key;
}

/** `AddressUpdate ‖ address[33] ‖ milestoneIndex u32 BE ‖ outputId[34] ‖ spent u8`. */
export function addressUpdateKey(
  address: Uint8Array,
  milestoneIndex: number,
  outputId: Uint8Array,
  spent: boolean,
): Uint8Array {
  const key = new Uint8Array(1 + 33 + 4 + 34 + 1);
  key[0] = Bucket.AddressUpdate;
  key.set(address, 1);
  setU32BE(key, 34, milestoneIndex);
  key.set(outputId, 38);
  key[72] = spent ? 1 : 0;
  return key;
}

/** The one key of the IndexerState bucket. */
export const INDEXER_STATE_KEY = Uint8Array.of(Bucket.IndexerState);

/** The indexer's buckets: a rebuild deletes every entry of them. */
export const INDEXER_BUCKETS: readonly Bucket[] = [
  Bucket.IndexerChain,
  Bucket.IndexerOutput,
  Bucket.IndexerField,
  Bucket.IndexerFieldDir,
  Bucket.IndexerSort,
];

/** `IndexerChain ‖ outputType ‖ chainId`. */
export function indexerChainKey(outputType: number, chainId: Uint8Array): Uint8Array {
  const key = new Uint8Array(2 + chainId.length);
  key[0] = Bucket.IndexerChain;
  key[1] = outputType;
  key.set(chainId, 2);
  return key;
}

/** `IndexerOutput ‖ outputType`: the prefix of every listing entry of one output kind. */
export function indexerOutputPrefix(outputType: number): Uint8Array {
  return Uint8Array.of(Bucket.IndexerOutput, outputType);
}

/** `outputType ‖ field ‖ len ‖ value`: the name of one field list (the rest of its keys). */
export function indexerFieldList(outputType: number, field: number, value: Uint8Array): Uint8Array {
  const list = new Uint8Array(3 + value.length);
  list[0] = outputType;
  list[1] = field;
  list[2] = value.length;
  list.set(value, 3);
  return list;
}

/** `IndexerField ‖ list`: the prefix of every chunk of one field list. */
export function indexerFieldPrefix(list: Uint8Array): Uint8Array {
  return idKey(Bucket.IndexerField, list);
}

/** `IndexerField ‖ list ‖ seq u32 BE`: one chunk of a field list. */
export function indexerFieldChunkKey(list: Uint8Array, seq: number): Uint8Array {
  const key = new Uint8Array(1 + list.length + 4);
  key[0] = Bucket.IndexerField;
  key.set(list, 1);
  setU32BE(key, 1 + list.length, seq);
  return key;
}

/** `IndexerFieldDir ‖ list`: the directory of a field list's chunks. */
export function indexerFieldDirKey(list: Uint8Array): Uint8Array {
  return idKey(Bucket.IndexerFieldDir, list);
}

/** `Receipt ‖ migratedAt u32 BE ‖ milestoneIndex u32 BE`; without the milestone index, the prefix of one migratedAt. */
export function receiptKey(migratedAt: number, milestoneIndex?: number): Uint8Array {
  const key = new Uint8Array(milestoneIndex === undefined ? 5 : 9);
  key[0] = Bucket.Receipt;
  setU32BE(key, 1, migratedAt);
  if (milestoneIndex !== undefined) setU32BE(key, 5, milestoneIndex);
  return key;
}

/** `NodeState ‖ name`. */
export function nodeStateKey(name: NodeStateKey): Uint8Array {
  return idKey(Bucket.NodeState, new TextEncoder().encode(name));
}
