export * from "./buckets.js";
export * from "./errors.js";
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
export * from "./records.js";
export * from "./repositories.js";
