import "./polyfill.js";
import { chmod, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { generateKeyPair, privateKeyFromProtobuf, privateKeyToProtobuf } from "@libp2p/crypto/keys";
import type { PrivateKey } from "@libp2p/interface";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { NetworkErrorCode } from "./errors.js";

/**
 * The node's libp2p identity: an Ed25519 key kept in the data directory, so the peer ID (and
 * with it the multiaddr other nodes were given) survives restarts. The file holds the key in
 * libp2p's protobuf encoding and is readable by its owner only.
 */

/** Where the identity key lives inside a data directory. */
export function identityPath(dataDir: string): string {
  return join(dataDir, "p2p", "identity.key");
}

/** Reads the identity key, creating it on first use. */
export async function loadOrCreateIdentity(dataDir: string): Promise<PrivateKey> {
  const path = identityPath(dataDir);
  let bytes: Buffer | undefined;
  try {
    bytes = await readFile(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
  if (bytes) {
    try {
      return privateKeyFromProtobuf(new Uint8Array(bytes));
    } catch (e) {
      throw new LedgerNodeError(NetworkErrorCode.InvalidIdentity, `${path}: ${(e as Error).message}`);
    }
  }
  const key = await generateKeyPair("Ed25519");
  await mkdir(dirname(path), { recursive: true });
  // written beside and renamed, so a crash never leaves half a key
  const tmp = `${path}.tmp`;
  await writeFile(tmp, privateKeyToProtobuf(key), { mode: 0o600 });
  await chmod(tmp, 0o600);
  await rename(tmp, path);
  return key;
}
