import { register } from "node:module";

/**
 * Loaded with `--import` into a node process (and its worker threads, which inherit it): makes
 * `sodium-native` fail to load as on a platform it ships no binary for, so the node runs on its
 * OpenSSL engine (src/crypto/ed25519Engines.ts).
 */
register(new URL("./withoutSodiumHooks.js", import.meta.url));
