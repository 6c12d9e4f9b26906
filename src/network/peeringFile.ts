import { type FileHandle, mkdir, open, readFile, rename, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { peerIdFromString } from "@libp2p/peer-id";
import { multiaddr } from "@multiformats/multiaddr";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { syncDirectory } from "../util/syncDirectory.js";
import { NetworkErrorCode } from "./errors.js";
import { isDialable, parsePeerAddress } from "./peering.js";

/**
 * The static peers added at runtime (`POST /api/core/v2/peers`), kept in the data directory so
 * they are dialled again after a restart; `DELETE /api/core/v2/peers/{peerId}` takes one out.
 * This is Hornet's `peering.json` (its `PeeringConfigManager` writes the peers the API adds and
 * removes), beside the identity key that the node's other P2P state lives with:
 *
 *   <data-dir>/p2p/peering.json
 *   { "peers": [ { "multiAddress": "/ip4/…/tcp/…/p2p/12D3Koo…", "alias": "b" } ] }
 *
 * The file is written whole to a temporary name, synced and renamed over the old one, so a
 * crash leaves either the old list or the new one. Peers given with `--peer` are not written:
 * the flag is read at every start anyway.
 */

export const PEERING_FILE = "peering.json";

/** Static peers a node keeps at most (flags and runtime additions together). */
export const MAX_STATIC_PEERS = 64;
/** Longest alias of a peer, in characters. */
export const MAX_PEER_ALIAS_LENGTH = 128;
/** Longest multiaddr text accepted for a peer. */
export const MAX_PEER_ADDRESS_LENGTH = 1024;

export interface PeeringEntry {
  /** A dialable multiaddr ending in `/p2p/<peer id>`. */
  multiAddress: string;
  alias?: string;
}

export function peeringFilePath(dataDir: string): string {
  return join(dataDir, "p2p", PEERING_FILE);
}

function invalid(path: string, reason: string): LedgerNodeError<NetworkErrorCode> {
  return new LedgerNodeError(NetworkErrorCode.InvalidPeeringFile, `${path}: ${reason}`);
}

/** A libp2p peer ID in its canonical text (base58btc), or InvalidPeerAddress naming `what`. */
export function canonicalPeerId(text: string, what: string): string {
  try {
    return peerIdFromString(text).toString();
  } catch (e) {
    throw new LedgerNodeError(
      NetworkErrorCode.InvalidPeerAddress,
      `${what}: "${text.length > 80 ? `${text.slice(0, 77)}...` : text}" is not a libp2p peer ID (${(e as Error).message})`,
    );
  }
}

/** Checks one entry as the API checks an added peer: a TCP multiaddr naming its peer ID. */
export function checkPeeringEntry(value: unknown, field: string): PeeringEntry & { peerId: string } {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new LedgerNodeError(NetworkErrorCode.InvalidPeerAddress, `${field}: expected an object`);
  }
  const { multiAddress, alias, ...rest } = value as Record<string, unknown>;
  const extra = Object.keys(rest)[0];
  if (extra !== undefined) throw new LedgerNodeError(NetworkErrorCode.InvalidPeerAddress, `${field}.${extra}: unknown`);
  if (typeof multiAddress !== "string" || multiAddress.length > MAX_PEER_ADDRESS_LENGTH) {
    throw new LedgerNodeError(
      NetworkErrorCode.InvalidPeerAddress,
      `${field}.multiAddress: expected a multiaddr of at most ${MAX_PEER_ADDRESS_LENGTH} characters`,
    );
  }
  if (alias !== undefined && (typeof alias !== "string" || alias.length > MAX_PEER_ALIAS_LENGTH)) {
    throw new LedgerNodeError(
      NetworkErrorCode.InvalidPeerAddress,
      `${field}.alias: expected a string of at most ${MAX_PEER_ALIAS_LENGTH} characters`,
    );
  }
  const { address, peerId } = parsePeerAddress(multiAddress);
  const p2p = address.getComponents().filter((c) => c.name === "p2p").length;
  if (!peerId || p2p !== 1) {
    throw new LedgerNodeError(
      NetworkErrorCode.InvalidPeerAddress,
      `"${multiAddress}": the multiaddr must name the peer once, with /p2p/<peer id>, so the node knows whom it dials`,
    );
  }
  return {
    multiAddress,
    peerId: canonicalPeerId(peerId, `${field}.multiAddress`),
    ...(alias === undefined ? {} : { alias }),
  };
}

/** The runtime static peers stored in `dataDir` (none when the file does not exist). */
export async function readPeeringFile(dataDir: string): Promise<PeeringEntry[]> {
  const path = peeringFilePath(dataDir);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw e;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw invalid(path, `not JSON: ${(e as Error).message}`);
  }
  const peers = (parsed as { peers?: unknown } | null)?.peers;
  if (!Array.isArray(peers)) throw invalid(path, 'expected {"peers": [...]}');
  if (peers.length > MAX_STATIC_PEERS) throw invalid(path, `more than ${MAX_STATIC_PEERS} peers`);
  return peers.flatMap((p, i) => {
    // an address of a kind the transport cannot dial (a WebSocket, a relay, port 0), which an
    // earlier version stored, is left out: it was never dialled, and the start goes on
    const address = (p as { multiAddress?: unknown } | null)?.multiAddress;
    if (typeof address === "string" && isUndialableMultiaddr(address)) return [];
    try {
      const { peerId: _, ...entry } = checkPeeringEntry(p, `peers[${i}]`);
      return [entry];
    } catch (e) {
      throw invalid(path, (e as Error).message);
    }
  });
}

/** A well-formed multiaddr that names no TCP address to dial (what `parsePeerAddress` refuses). */
function isUndialableMultiaddr(address: string): boolean {
  try {
    multiaddr(address);
  } catch {
    return false; // not a multiaddr at all: a damaged file, refused with its path
  }
  return !isDialable(address);
}

/** Replaces the stored list with `entries`, atomically (temporary file, fsync, rename, fsync of the directory). */
export async function writePeeringFile(dataDir: string, entries: readonly PeeringEntry[]): Promise<void> {
  const path = peeringFilePath(dataDir);
  await mkdir(dirname(path), { recursive: true });
  const temp = `${path}.tmp`;
  const text = `${JSON.stringify({ peers: entries }, null, 2)}\n`;
  let fh: FileHandle | undefined;
  try {
    fh = await open(temp, "w", 0o600);
    await fh.writeFile(text);
    await fh.sync();
  } finally {
    await fh?.close();
  }
  try {
    await rename(temp, path);
  } catch (e) {
    await rm(temp, { force: true });
    throw e;
  }
  await syncDirectory(dirname(path));
}
