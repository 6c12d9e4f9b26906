// Public surface of the codec layer: bytes <-> typed objects <-> TIP-25 JSON.
export * from "./errors.js";
export * from "./hex.js";
export { ReadStream } from "./readStream.js";
export * from "./types.js";
export { WriteStream } from "./writeStream.js";
