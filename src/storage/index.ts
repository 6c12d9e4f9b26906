export * from "./buckets.js";
export * from "./errors.js";
export * from "./explorerBuckets.js";
export * from "./indexerBuckets.js";
export {
  defaultKvStoreOptions,
  describeWriteFault,
  KvStore,
  type KvStoreOptions,
  prefixEnd,
  type RangeEntry,
  RangeReader,
  type ScanOptions,
  WriteBatch,
  type WriteFault,
} from "./kvStore.js";
export * from "./ledgerScan.js";
export * from "./levelStats.js";
export * from "./nodeState.js";
export * from "./receipts.js";
export * from "./records.js";
export * from "./repositories.js";
export * from "./repository.js";
