// Public surface of the codec layer: bytes <-> typed objects <-> TIP-25 JSON, IDs, rules.
export * from "./address.js";
export * from "./block.js";
export * from "./errors.js";
export * from "./hex.js";
export * from "./ids.js";
export * from "./outputIdProof.js";
export * from "./outputs/output.js";
export { validateOutput } from "./outputs/validateOutput.js";
export * from "./payload.js";
export * from "./protocolParameters.js";
export { ReadStream } from "./readStream.js";
export * from "./storageDeposit.js";
export { validateBlockSyntax } from "./syntactic.js";
export * from "./transaction.js";
export * from "./types.js";
export { WriteStream } from "./writeStream.js";
