// Public surface of the indexer layer: secondary indexes over the unspent ledger.
export * from "./addressConditionals.js";
export * from "./addressLedger.js";
export * from "./addressLoad.js";
export * from "./errors.js";
export * from "./explorerIndex.js";
export * from "./facts.js";
export * from "./fieldLists.js";
export * from "./indexer.js";
export * from "./indexWrites.js";
export * from "./ircMetadata.js";
export * from "./keys.js";
export * from "./pastRankings.js";
export * from "./query.js";
export * from "./rebuild.js";
