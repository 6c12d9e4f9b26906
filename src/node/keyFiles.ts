import { randomBytes } from "node:crypto";
import { access, chmod, mkdir, readdir, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fromHex, toHex } from "../codec/hex.js";
import { readBoundedFile } from "../util/boundedFile.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { NodeErrorCode } from "./errors.js";

/**
 * The node's secrets, each in its own file under `<data-dir>/keys/` (as Hornet's coordinator
 * takes each private key on its own): `coordinator-<n>.key` (an Ed25519 seed per coordinator
 * key the node signs milestones with), `faucet.key` (the faucet's Ed25519 seed) and `jwt.key`
 * (the HS256 secret of the API's JWTs). A key file holds the 32 bytes as `0x`-hex on one line,
 * readable by the owner only. Keeping them out of the database lets `npm run jwt` read the
 * secret while the node runs (LevelDB locks its directory).
 */

export const KEYS_DIR = "keys";
export const JWT_KEY_FILE = "jwt.key";
export const FAUCET_KEY_FILE = "faucet.key";
const COORDINATOR_KEY_FILE = /^coordinator-(\d+)\.key$/;

export function keysDir(dataDir: string): string {
  return join(dataDir, KEYS_DIR);
}

/** A fresh 32-byte secret (an Ed25519 seed or an HS256 key). */
export function freshSecret(): Uint8Array {
  return new Uint8Array(randomBytes(32));
}

/**
 * A key file is 66 characters and a newline; more than this is not a key file and is not read.
 * The path may come from a network file another operator wrote (`faucet.keyFile`, resolved
 * relative to the file), so it may name a device or a pipe: `/dev/zero` read whole took 630 MB
 * and a second before failing, a FIFO would hold the start for ever.
 */
export const MAX_KEY_FILE_BYTES = 1024;

/** Reads a key file: 64 hex digits, `0x` optional, surrounding whitespace allowed; the error names the file. */
export async function readKeyFile(path: string): Promise<Uint8Array> {
  let text: string;
  try {
    text = await readBoundedFile(
      path,
      MAX_KEY_FILE_BYTES,
      (why) => new LedgerNodeError(NodeErrorCode.InvalidKeyFile, why),
    );
  } catch (e) {
    throw new LedgerNodeError(NodeErrorCode.InvalidKeyFile, `cannot read key file ${path}: ${(e as Error).message}`);
  }
  const hex = text.trim();
  if (!/^(0x)?[0-9a-fA-F]{64}$/.test(hex)) {
    // never echo the content: it may be a key in another format
    throw new LedgerNodeError(
      NodeErrorCode.InvalidKeyFile,
      `key file ${path}: expected 64 hex digits (32 bytes), 0x optional`,
    );
  }
  return fromHex(hex.startsWith("0x") ? hex : `0x${hex}`, path, 32);
}

/** Writes a key file atomically, readable by the owner only. */
export async function writeKeyFile(path: string, secret: Uint8Array): Promise<void> {
  const tmp = `${path}.tmp`;
  await writeFile(tmp, `${toHex(secret)}\n`, { mode: 0o600 });
  await chmod(tmp, 0o600);
  await rename(tmp, path);
}

/** The coordinator seeds a data directory holds, in file order (`coordinator-1.key`, …). */
export async function readCoordinatorSeeds(dataDir: string): Promise<Uint8Array[]> {
  let names: string[];
  try {
    names = await readdir(keysDir(dataDir));
  } catch {
    return [];
  }
  const numbered = names
    .map((name) => ({ name, n: COORDINATOR_KEY_FILE.exec(name)?.[1] }))
    .filter((f): f is { name: string; n: string } => f.n !== undefined)
    .sort((a, b) => Number(a.n) - Number(b.n));
  return Promise.all(numbered.map((f) => readKeyFile(join(keysDir(dataDir), f.name))));
}

/** Writes the coordinator seeds as `coordinator-1.key`, `coordinator-2.key`, … */
export async function writeCoordinatorSeeds(dataDir: string, seeds: readonly Uint8Array[]): Promise<void> {
  await mkdir(keysDir(dataDir), { recursive: true, mode: 0o700 });
  for (const [i, seed] of seeds.entries()) {
    await writeKeyFile(join(keysDir(dataDir), `coordinator-${i + 1}.key`), seed);
  }
}

/** A secret kept in `keys/<name>`, or undefined when the file is not there. */
export async function readOptionalKeyFile(dataDir: string, name: string): Promise<Uint8Array | undefined> {
  const path = join(keysDir(dataDir), name);
  try {
    await access(path);
  } catch {
    return undefined;
  }
  return readKeyFile(path);
}

/** Writes `keys/<name>`. */
export async function writeNamedKeyFile(dataDir: string, name: string, secret: Uint8Array): Promise<void> {
  await mkdir(keysDir(dataDir), { recursive: true, mode: 0o700 });
  await writeKeyFile(join(keysDir(dataDir), name), secret);
}
