export * from "./errors.js";
export * from "./options.js";
export * from "./spammer.js";
