import type { FastifyInstance, FastifyRequest } from "fastify";
import { addressFromBech32, serializeAddressBytes } from "../../codec/address.js";
import { fromHex, toHex } from "../../codec/hex.js";
import { FOUNDRY_ID_LENGTH, ID_LENGTH, OUTPUT_ID_LENGTH } from "../../codec/ids.js";
import { AddressType, OutputType } from "../../codec/types.js";
import {
  type FieldValue,
  IndexedField,
  type IndexedOutputType,
  Indexer,
  IndexerError,
  type OutputQuery,
  POSITION_LENGTH,
  type Position,
} from "../../indexer/index.js";
import type { ApiNode } from "../apiNode.js";
import { ApiError, badRequest, notFound } from "../errors.js";

/**
 * The indexer API (inx-indexer v1 as `@iota/iota.js@2.0.0-rc.4`'s `IndexerPluginClient` calls
 * it): the current output of an alias, NFT or foundry by its ID, and listings of unspent basic,
 * alias, foundry and NFT outputs by inx-indexer's filters, paged by a cursor. Listings answer
 * `{ledgerIndex, pageSize, cursor?, items}` and lookups `{ledgerIndex, items: [outputId]}`;
 * `ledgerIndex` is the ledger the items were read from.
 */

export const INDEXER_V1 = "/api/indexer/v1";

/** Default and largest page of a listing (inx-indexer's `maxPageSize`). */
export const MAX_INDEXER_PAGE_SIZE = 1000;

/** Query parameters naming an address or tag and the indexed field each filters on, in index preference order. */
const FIELD_PARAMS: [string, IndexedField][] = [
  ["address", IndexedField.Address],
  ["stateController", IndexedField.StateController],
  ["governor", IndexedField.Governor],
  ["aliasAddress", IndexedField.ImmutableAlias],
  ["sender", IndexedField.Sender],
  ["issuer", IndexedField.Issuer],
  ["storageDepositReturnAddress", IndexedField.StorageDepositReturn],
  ["expirationReturnAddress", IndexedField.ExpirationReturn],
  ["tag", IndexedField.Tag],
];

type BoolFilter = "hasNativeTokens" | "hasStorageDepositReturn" | "hasExpiration" | "hasTimelock";
type TimeFilter =
  | "expiresBefore"
  | "expiresAfter"
  | "timelockedBefore"
  | "timelockedAfter"
  | "createdBefore"
  | "createdAfter";
type CountFilter = "minNativeTokenCount" | "maxNativeTokenCount";

const BOOL_PARAMS: BoolFilter[] = ["hasNativeTokens", "hasStorageDepositReturn", "hasExpiration", "hasTimelock"];
const TIME_PARAMS: TimeFilter[] = [
  "expiresBefore",
  "expiresAfter",
  "timelockedBefore",
  "timelockedAfter",
  "createdBefore",
  "createdAfter",
];
const COUNT_PARAMS: CountFilter[] = ["minNativeTokenCount", "maxNativeTokenCount"];

const COMMON = ["hasNativeTokens", "minNativeTokenCount", "maxNativeTokenCount", "createdBefore", "createdAfter"];
const PAGING = ["pageSize", "cursor"];
const CONDITIONS = [
  "hasStorageDepositReturn",
  "storageDepositReturnAddress",
  "hasExpiration",
  "expirationReturnAddress",
  "expiresBefore",
  "expiresAfter",
  "hasTimelock",
  "timelockedBefore",
  "timelockedAfter",
];

/** Each listing route: the output kind and the query parameters inx-indexer accepts on it. */
const LISTINGS: { path: string; type: IndexedOutputType; params: Set<string> }[] = [
  {
    path: "basic",
    type: OutputType.Basic,
    params: new Set([...COMMON, ...PAGING, ...CONDITIONS, "address", "sender", "tag"]),
  },
  {
    path: "alias",
    type: OutputType.Alias,
    params: new Set([...COMMON, ...PAGING, "stateController", "governor", "issuer", "sender"]),
  },
  { path: "foundry", type: OutputType.Foundry, params: new Set([...COMMON, ...PAGING, "aliasAddress"]) },
  {
    path: "nft",
    type: OutputType.Nft,
    params: new Set([...COMMON, ...PAGING, ...CONDITIONS, "address", "issuer", "sender", "tag"]),
  },
];

/** Each lookup route: the chain kind, its path parameter and the ID's length. */
const LOOKUPS: { path: string; type: IndexedOutputType; param: string; length: number; what: string }[] = [
  { path: "alias", type: OutputType.Alias, param: "aliasId", length: ID_LENGTH, what: "alias" },
  { path: "nft", type: OutputType.Nft, param: "nftId", length: ID_LENGTH, what: "NFT" },
  { path: "foundry", type: OutputType.Foundry, param: "foundryId", length: FOUNDRY_ID_LENGTH, what: "foundry" },
];

// ---------------------------------------------------------------- query parameters

/** strconv.ParseBool's spellings, which inx-indexer accepts. */
const TRUE = new Set(["1", "t", "T", "TRUE", "true", "True"]);
const FALSE = new Set(["0", "f", "F", "FALSE", "false", "False"]);

/** The query parameters as single strings; unknown names and repeated ones are bad input. */
function queryParams(request: FastifyRequest, allowed: ReadonlySet<string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, value] of Object.entries((request.query ?? {}) as Record<string, unknown>)) {
    if (!allowed.has(name)) throw badRequest(`unknown query parameter "${name}"`);
    if (typeof value !== "string") throw badRequest(`query parameter "${name}" is given more than once`);
    out.set(name, value);
  }
  return out;
}

function parseBool(name: string, value: string): boolean {
  if (TRUE.has(value)) return true;
  if (FALSE.has(value)) return false;
  throw badRequest(`${name}: expected true or false, got "${value}"`);
}

/** A non-negative decimal integer no larger than `max`. */
function parseUint(name: string, value: string, max = Number.MAX_SAFE_INTEGER): number {
  if (!/^[0-9]{1,16}$/.test(value)) throw badRequest(`${name}: expected a non-negative integer, got "${value}"`);
  const n = Number(value);
  if (n > max) throw badRequest(`${name}: ${value} is above ${max}`);
  return n;
}

/** A page size of at least 1; larger than the maximum means the maximum. */
function parsePageSize(name: string, value: string): number {
  const n = parseUint(name, value);
  if (n < 1) throw badRequest(`${name}: must be at least 1`);
  return Math.min(n, MAX_INDEXER_PAGE_SIZE);
}

/** inx-indexer's cursor: `<createdAt, 8 hex><outputId, 68 hex>.<pageSize>`. */
export function formatIndexerCursor(p: Position, pageSize: number): string {
  return `${p.createdAt.toString(16).padStart(8, "0")}${toHex(p.outputId).slice(2)}.${pageSize}`;
}

const CURSOR = new RegExp(`^([0-9a-fA-F]{8})([0-9a-fA-F]{${OUTPUT_ID_LENGTH * 2}})\\.([0-9]{1,16})$`);

export function parseIndexerCursor(value: string): { position: Position; pageSize: number } {
  const m = CURSOR.exec(value);
  if (!m) {
    throw badRequest(`cursor: expected <${POSITION_LENGTH * 2} hex digits>.<page size>, got "${value}"`);
  }
  return {
    position: { createdAt: Number.parseInt(m[1]!, 16), outputId: fromHex(`0x${m[2]!}`, "cursor") },
    pageSize: parsePageSize("cursor page size", m[3]!),
  };
}

/** The filters of a listing request as the indexer takes them. */
export function parseListingQuery(
  params: Map<string, string>,
  type: IndexedOutputType,
  hrp: string,
): { query: OutputQuery; pageSize: number } {
  const fields: FieldValue[] = [];
  for (const [name, field] of FIELD_PARAMS) {
    const value = params.get(name);
    if (value === undefined) continue;
    if (field === IndexedField.Tag) {
      const tag = fromHex(value, name);
      if (tag.length < 1 || tag.length > 64) throw badRequest(`${name}: a tag is 1 to 64 bytes, got ${tag.length}`);
      fields.push({ field, value: tag });
      continue;
    }
    const address = addressFromBech32(value, hrp, name);
    if (field === IndexedField.ImmutableAlias && address.type !== AddressType.Alias) {
      throw badRequest(`${name}: ${value} is not an alias address`);
    }
    fields.push({ field, value: serializeAddressBytes(address) });
  }
  let pageSize = MAX_INDEXER_PAGE_SIZE;
  const size = params.get("pageSize");
  if (size !== undefined) pageSize = parsePageSize("pageSize", size);
  const query: OutputQuery = { type, fields, pageSize };
  const cursor = params.get("cursor");
  if (cursor !== undefined) {
    // the cursor's page size wins, as inx-indexer has it
    const c = parseIndexerCursor(cursor);
    query.cursor = c.position;
    query.pageSize = pageSize = c.pageSize;
  }
  for (const name of BOOL_PARAMS) {
    const v = params.get(name);
    if (v !== undefined) query[name] = parseBool(name, v);
  }
  for (const name of TIME_PARAMS) {
    const v = params.get(name);
    if (v !== undefined) query[name] = parseUint(name, v);
  }
  for (const name of COUNT_PARAMS) {
    // TIP-18: at most 64 native tokens per output
    const v = params.get(name);
    if (v !== undefined) query[name] = parseUint(name, v, 64);
  }
  return { query, pageSize };
}

// ---------------------------------------------------------------- routes

/** The indexer's failures are the node's (500), with the reason. */
async function guarded<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (e) {
    if (e instanceof IndexerError) throw new ApiError(500, e.message);
    throw e;
  }
}

export function registerIndexerRoutes(app: FastifyInstance, node: ApiNode): void {
  const indexer = () => guarded(() => Indexer.attach(node.tangle));
  // Build or catch up the indexes before the first request (a node process attaches it earlier).
  app.addHook("onReady", async () => {
    await indexer();
  });

  const none = new Set<string>();
  for (const lookup of LOOKUPS) {
    app.get(`${INDEXER_V1}/outputs/${lookup.path}/:${lookup.param}`, async (request) => {
      queryParams(request, none);
      const raw = (request.params as Record<string, unknown>)[lookup.param];
      const chainId = fromHex(raw, lookup.param, lookup.length);
      const ix = await indexer();
      const { ledgerIndex, outputId } = await guarded(() => ix.chainOutput(lookup.type, chainId));
      if (!outputId) throw notFound(`no unspent output of ${lookup.what} ${raw}`);
      return { ledgerIndex, items: [toHex(outputId)] };
    });
  }

  for (const listing of LISTINGS) {
    app.get(`${INDEXER_V1}/outputs/${listing.path}`, async (request) => {
      const params = queryParams(request, listing.params);
      const { query, pageSize } = parseListingQuery(params, listing.type, node.tangle.protocolParameters.bech32Hrp);
      const ix = await indexer();
      const page = await guarded(() => ix.outputs(query));
      return {
        ledgerIndex: page.ledgerIndex,
        pageSize,
        ...(page.next ? { cursor: formatIndexerCursor(page.next, pageSize) } : {}),
        items: page.items.map(toHex),
      };
    });
  }
}
