export * from "./buckets.js";
export * from "./errors.js";
export {
  defaultKvStoreOptions,
  KvStore,
  type KvStoreOptions,
  prefixEnd,
  type RangeEntry,
  RangeReader,
  type ScanOptions,
  WriteBatch,
} from "./kvStore.js";
export * from "./records.js";
export * from "./repositories.js";
