// Public surface of the faucet layer: inx-faucet's queue, limits and batched payments inside the node.
export * from "./errors.js";
export * from "./faucet.js";
export * from "./options.js";
export * from "./rateLimiter.js";
export * from "./transaction.js";
