import { addressFromBech32, serializeAddressBytes } from "../../codec/address.js";
import { fromHex, toHex } from "../../codec/hex.js";
import { FOUNDRY_ID_LENGTH, ID_LENGTH, OUTPUT_ID_LENGTH } from "../../codec/ids.js";
import { AddressType, OutputType } from "../../codec/types.js";
import {
  type FieldValue,
  IndexedField,
  type IndexedOutputType,
  type OutputQuery,
  POSITION_LENGTH,
  type Position,
} from "../../indexer/index.js";
import { badRequest } from "../errors.js";
import { parsePageSize, parseUint } from "./queryParams.js";

/**
 * The query parameters of the indexer routes (inx-indexer v1): which route takes which
 * parameters, and how their values become an indexer query. The route schemas (indexer.ts)
 * check names and spelling first; this module checks values, ranges and addresses, with the
 * same reasons whether or not a schema ran before it.
 */

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
export const LISTINGS: { path: string; type?: IndexedOutputType; params: Set<string> }[] = [
  // the combined listing: every kind, in one booking order
  { path: "", params: new Set([...COMMON, ...PAGING, "unlockableByAddress"]) },
  {
    path: "basic",
    type: OutputType.Basic,
    params: new Set([...COMMON, ...PAGING, ...CONDITIONS, "address", "unlockableByAddress", "sender", "tag"]),
  },
  {
    path: "alias",
    type: OutputType.Alias,
    params: new Set([...COMMON, ...PAGING, "unlockableByAddress", "stateController", "governor", "issuer", "sender"]),
  },
  {
    path: "foundry",
    type: OutputType.Foundry,
    params: new Set([...COMMON, ...PAGING, "unlockableByAddress", "aliasAddress"]),
  },
  {
    path: "nft",
    type: OutputType.Nft,
    params: new Set([...COMMON, ...PAGING, ...CONDITIONS, "address", "unlockableByAddress", "issuer", "sender", "tag"]),
  },
];

/** Each lookup route: the chain kind, its path parameter and the ID's length. */
export const LOOKUPS: { path: string; type: IndexedOutputType; param: string; length: number; what: string }[] = [
  { path: "alias", type: OutputType.Alias, param: "aliasId", length: ID_LENGTH, what: "alias" },
  { path: "nft", type: OutputType.Nft, param: "nftId", length: ID_LENGTH, what: "NFT" },
  { path: "foundry", type: OutputType.Foundry, param: "foundryId", length: FOUNDRY_ID_LENGTH, what: "foundry" },
];

// ---------------------------------------------------------------- query parameters

/** strconv.ParseBool's spellings, which inx-indexer accepts. */
export const TRUE = new Set(["1", "t", "T", "TRUE", "true", "True"]);
export const FALSE = new Set(["0", "f", "F", "FALSE", "false", "False"]);

function parseBool(name: string, value: string): boolean {
  if (TRUE.has(value)) return true;
  if (FALSE.has(value)) return false;
  throw badRequest(`${name}: expected true or false, got "${value}"`);
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
    pageSize: parsePageSize("cursor page size", m[3]!, MAX_INDEXER_PAGE_SIZE),
  };
}

/** The filters of a listing request as the indexer takes them. */
export function parseListingQuery(
  params: Map<string, string>,
  type: IndexedOutputType | undefined,
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
  if (size !== undefined) pageSize = parsePageSize("pageSize", size, MAX_INDEXER_PAGE_SIZE);
  const query: OutputQuery = { ...(type === undefined ? {} : { type }), fields, pageSize };
  const unlockable = params.get("unlockableByAddress");
  if (unlockable !== undefined) {
    query.unlockableBy = serializeAddressBytes(addressFromBech32(unlockable, hrp, "unlockableByAddress"));
  }
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
  checkRanges(query);
  return { query, pageSize };
}

/**
 * Ranges that can hold nothing are refused rather than answered with an empty page: a bound
 * after its counterpart is a mistake of the client (the explorer refuses an inverted time window
 * the same way). Time bounds are exclusive, counts inclusive.
 */
function checkRanges(q: OutputQuery): void {
  const exclusive: [TimeFilter, TimeFilter][] = [
    ["createdAfter", "createdBefore"],
    ["expiresAfter", "expiresBefore"],
    ["timelockedAfter", "timelockedBefore"],
  ];
  for (const [after, before] of exclusive) {
    const a = q[after];
    const b = q[before];
    if (a !== undefined && b !== undefined && a >= b) {
      throw badRequest(`${after} ${a} is not below ${before} ${b}: the range is empty`);
    }
  }
  const min = q.minNativeTokenCount;
  const max = q.maxNativeTokenCount;
  if (min !== undefined && max !== undefined && min > max) {
    throw badRequest(`minNativeTokenCount ${min} is above maxNativeTokenCount ${max}`);
  }
}
