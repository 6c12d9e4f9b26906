import { ApiError, api } from "../api";
import {
  COMMITMENT_ID_BYTES,
  decodeBech32Address,
  FOUNDRY_ID_BYTES,
  hexBytes,
  ID_BYTES,
  isHex,
  MAX_TAG_BYTES,
  OUTPUT_ID_BYTES,
  utf8Hex,
} from "./ids";
import type { EntityKind } from "./links";

/**
 * What a search names, as the IOTA explorer reads its search box (one box for every kind of ID):
 * - digits: a milestone index;
 * - a bech32 string with the network's HRP: an address (TIP-31);
 * - hex (0x optional) of 32 bytes: a block, milestone, transaction, alias or NFT ID, which only
 *   the node can tell apart, so the REST routes are asked in that order and the first that has
 *   it wins (a transaction is known by its including block, an alias or NFT by its unspent output);
 * - 34 bytes: an output ID; 36: a commitment ID (its milestone); 38: a foundry ID;
 * - anything else: a tag, whose unspent outputs (tag feature, TIP-18) the indexer lists.
 * A search that names nothing says so in words.
 */

/** Where a search leads: an explorer page, or a sentence saying why nowhere. */
export type Resolution = { kind: EntityKind; id: string | number } | { message: string };

/** The largest milestone index (u32). */
const MAX_INDEX = 0xffffffff;

/** True when the call answered, false on 404; any other failure is thrown. */
async function exists(call: () => Promise<unknown>): Promise<boolean> {
  try {
    await call();
    return true;
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) return false;
    throw e;
  }
}

/** A 32-byte ID: block, milestone, transaction (included), alias, NFT, asked in that order. */
async function resolve32(id: string, signal: AbortSignal): Promise<Resolution> {
  const o = { signal };
  if (await exists(() => api.blockMetadata(id, o))) return { kind: "block", id };
  try {
    return { kind: "milestone", id: (await api.milestoneById(id, o)).index };
  } catch (e) {
    if (!(e instanceof ApiError && e.status === 404)) throw e;
  }
  if (await exists(() => api.includedBlockMetadata(id, o))) return { kind: "transaction", id };
  if (await exists(() => api.indexerChain("alias", id, o))) return { kind: "alias", id };
  if (await exists(() => api.indexerChain("nft", id, o))) return { kind: "nft", id };
  return {
    message:
      `Nothing has the ID ${id}: it is no block, milestone or included transaction this node knows, ` +
      "and no unspent output holds an alias or NFT of that ID.",
  };
}

/** A tag given as hex (its bytes): the tag page when an unspent basic or NFT output carries it. */
async function resolveTag(tagHex: string, shown: string, signal: AbortSignal): Promise<Resolution> {
  const o = { signal };
  const [basic, nft] = await Promise.all([
    api.indexerOutputs("basic", { tag: tagHex, pageSize: 1 }, o),
    api.indexerOutputs("nft", { tag: tagHex, pageSize: 1 }, o),
  ]);
  if (basic.items.length > 0 || nft.items.length > 0) return { kind: "tag", id: tagHex };
  return {
    message: `Nothing found for ${shown}: it is no ID or address, and no unspent output carries it as its tag.`,
  };
}

/**
 * Resolves a search against the node. `hrp` is the network's bech32 HRP (info route). Failures
 * other than "not found" (the node unreachable) are thrown, in words.
 */
export async function resolveSearch(raw: string, hrp: string, signal: AbortSignal): Promise<Resolution> {
  const text = raw.trim();
  if (text === "") {
    return {
      message:
        "Type a block, transaction, output or milestone ID, a milestone index, an address, an alias, NFT or foundry ID, or a tag.",
    };
  }

  if (/^[0-9]+$/.test(text)) {
    const index = Number(text);
    if (text.length > 10 || index > MAX_INDEX)
      return { message: `${text} is no milestone index (at most ${MAX_INDEX}).` };
    if (await exists(() => api.milestoneByIndex(index, { signal }))) return { kind: "milestone", id: index };
    return { message: `There is no milestone ${index} on this node (not issued yet, or pruned).` };
  }

  // hex IDs, with or without 0x
  const hex = (text.startsWith("0x") || text.startsWith("0X") ? `0x${text.slice(2)}` : `0x${text}`).toLowerCase();
  const idLengths = [ID_BYTES, OUTPUT_ID_BYTES, COMMITMENT_ID_BYTES, FOUNDRY_ID_BYTES];
  if (isHex(hex) && (text.toLowerCase().startsWith("0x") || idLengths.includes(hexBytes(hex)))) {
    switch (hexBytes(hex)) {
      case ID_BYTES:
        return resolve32(hex, signal);
      case OUTPUT_ID_BYTES:
        if (await exists(() => api.outputMetadata(hex, { signal }))) return { kind: "output", id: hex };
        return { message: `There is no output ${hex} on this node (not created yet, or pruned).` };
      case COMMITMENT_ID_BYTES: {
        // a commitment ID of the v3 read: the milestone's ID followed by its index
        const found = await resolve32(hex.slice(0, 2 + 2 * ID_BYTES), signal);
        return "kind" in found && found.kind === "milestone"
          ? found
          : { message: `${hex} is no commitment ID: no milestone has its first 32 bytes as its ID.` };
      }
      case FOUNDRY_ID_BYTES:
        if (await exists(() => api.indexerChain("foundry", hex, { signal }))) return { kind: "foundry", id: hex };
        return { message: `No unspent output holds the foundry ${hex}.` };
      default:
        if (hexBytes(hex) >= 1 && hexBytes(hex) <= MAX_TAG_BYTES) return resolveTag(hex, hex, signal);
        return { message: `${text} is hex of ${hexBytes(hex)} bytes: no ID has that length, and a tag holds 1 to 64.` };
    }
  }

  // addresses: the network's own, or a sentence about another network's
  const lower = text.toLowerCase();
  if (lower.startsWith(`${hrp}1`)) {
    const decoded = decodeBech32Address(lower);
    if ("error" in decoded) return { message: `${text} is ${decoded.error}.` };
    return { kind: "address", id: lower };
  }
  const other = decodeBech32Address(lower);
  if (!("error" in other)) {
    return { message: `${text} is an address of another network ("${other.hrp}"); this node's start with "${hrp}1".` };
  }

  const tagHex = utf8Hex(text);
  if (hexBytes(tagHex) > MAX_TAG_BYTES) {
    return { message: `"${text}" is no ID or address, and too long for a tag (at most ${MAX_TAG_BYTES} bytes).` };
  }
  return resolveTag(tagHex, `"${text}"`, signal);
}
