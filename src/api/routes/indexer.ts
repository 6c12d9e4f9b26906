import type { FastifyInstance, FastifyReply } from "fastify";
import { fromHex, toHex, toHexEach } from "../../codec/hex.js";
import { POSITION_LENGTH } from "../../indexer/index.js";
import type { ApiNode } from "../apiNode.js";
import { notFound } from "../errors.js";
import { JSON_CONTENT_TYPE } from "../httpConventions.js";
import type { IndexerListingJson, IndexerLookupJson } from "../json/indexer.js";
import { MilestoneAnswers } from "../milestoneAnswers.js";
import { type RouteDefinition, registerRoute, STRINGIFIED } from "../routeDefinition.js";
import {
  arrayOf,
  closedObject,
  decimalString,
  hexOfBytes,
  hexString,
  integer,
  pathParams,
  patterned,
  queryString,
  responses,
  type Schema,
  Tag,
} from "../schemas/common.js";
import { outputId as outputIdSchema } from "../schemas/core.js";
import {
  FALSE,
  formatIndexerCursor,
  LISTINGS,
  LOOKUPS,
  MAX_INDEXER_PAGE_SIZE,
  parseListingQuery,
  TRUE,
} from "./indexerQuery.js";
import { queryParams } from "./queryParams.js";

export { formatIndexerCursor, MAX_INDEXER_PAGE_SIZE, parseIndexerCursor, parseListingQuery } from "./indexerQuery.js";

/**
 * The indexer API (inx-indexer v1 as `@iota/iota.js@2.0.0-rc.4`'s `IndexerPluginClient` calls
 * it): the current output of an alias, NFT or foundry by its ID, and listings of unspent basic,
 * alias, foundry and NFT outputs by inx-indexer's filters (indexerQuery.ts), paged by a cursor.
 * Listings answer `{ledgerIndex, pageSize, cursor?, items}` and lookups
 * `{ledgerIndex, items: [outputId]}`; `ledgerIndex` is the ledger the items were read from.
 */

export const INDEXER_V1 = "/api/indexer/v1";

// ---------------------------------------------------------------- schemas

const bech32 = (what: string): Schema => ({
  type: "string",
  minLength: 1,
  maxLength: 128,
  description: `${what}: a bech32 address with the network's human-readable part`,
});

/** The schema of each query parameter a listing takes. */
const PARAM_SCHEMAS: Record<string, Schema> = {
  address: bech32("the address unlocking the output (address unlock condition)"),
  unlockableByAddress: bech32(
    "an address that can unlock the output: owner or storage deposit/expiration return address (basic, NFT), state controller or governor (alias), controlling alias (foundry)",
  ),
  stateController: bech32("the state controller"),
  governor: bech32("the governor"),
  aliasAddress: bech32("the alias controlling the foundry (an alias address)"),
  sender: bech32("the sender feature's address"),
  issuer: bech32("the issuer feature's address"),
  storageDepositReturnAddress: bech32("the storage deposit return address"),
  expirationReturnAddress: bech32("the expiration return address"),
  tag: hexString("the tag feature", 1, 64),
  hasNativeTokens: boolParam("outputs with (true) or without (false) native tokens"),
  hasStorageDepositReturn: boolParam("outputs with or without a storage deposit return condition"),
  hasExpiration: boolParam("outputs with or without an expiration condition"),
  hasTimelock: boolParam("outputs with or without a timelock condition"),
  minNativeTokenCount: decimalString("the least number of distinct native tokens (0 to 64)"),
  maxNativeTokenCount: decimalString("the most number of distinct native tokens (0 to 64)"),
  createdBefore: decimalString("created before this unix time (seconds)"),
  createdAfter: decimalString("created after this unix time (seconds)"),
  expiresBefore: decimalString("expiring before this unix time (seconds)"),
  expiresAfter: decimalString("expiring after this unix time (seconds)"),
  timelockedBefore: decimalString("timelocked until before this unix time (seconds)"),
  timelockedAfter: decimalString("timelocked until after this unix time (seconds)"),
  pageSize: decimalString(
    `items per page, at least 1 (default and most ${MAX_INDEXER_PAGE_SIZE}); a cursor's page size wins`,
  ),
  cursor: patterned(
    `^[0-9a-fA-F]{${POSITION_LENGTH * 2}}\\.[0-9]{1,16}$`,
    `<${POSITION_LENGTH * 2} hex digits>.<page size>`,
    "the cursor of the previous page: <created-at 8 hex><output ID 68 hex>.<page size>",
  ),
};

function boolParam(description: string): Schema {
  return { type: "string", enum: [...TRUE, ...FALSE], description: `${description}; true or false` };
}

const ledgerIndexSchema = () => integer("the confirmed milestone the items were read at");

function listingSchema(what: string): Schema {
  return closedObject<IndexerListingJson>(
    {
      ledgerIndex: ledgerIndexSchema(),
      pageSize: integer("the page size used", 1, MAX_INDEXER_PAGE_SIZE),
      cursor: { type: "string", description: "the cursor of the next page; left out on the last" },
      items: arrayOf(outputIdSchema(), `IDs of unspent ${what} outputs, oldest first`),
    },
    ["ledgerIndex", "pageSize", "items"],
    `a page of ${what} outputs`,
  );
}

function lookupSchema(what: string): Schema {
  return closedObject<IndexerLookupJson>(
    {
      ledgerIndex: ledgerIndexSchema(),
      items: arrayOf(outputIdSchema(), `the ID of the ${what}'s current unspent output`),
    },
    ["ledgerIndex", "items"],
    `the current output of the ${what}`,
  );
}

type Listing = (typeof LISTINGS)[number];
type Lookup = (typeof LOOKUPS)[number];

const listingRoute = (listing: Listing): RouteDefinition => ({
  method: "GET",
  url: listing.path ? `${INDEXER_V1}/outputs/${listing.path}` : `${INDEXER_V1}/outputs`,
  schema: {
    summary: listing.path
      ? `Unspent ${listing.path} outputs matching filters, paged`
      : "Unspent outputs of every kind (basic, alias, foundry, NFT) matching filters, paged",
    tags: [Tag.Indexer],
    querystring: queryString(
      Object.fromEntries([...listing.params].map((name) => [name, structuredClone(PARAM_SCHEMAS[name]!)])),
    ),
    response: responses({ 200: listingSchema(listing.path || "basic, alias, foundry and NFT") }, [400, 403, 500]),
  },
});

const lookupRoute = (lookup: Lookup): RouteDefinition => ({
  method: "GET",
  url: `${INDEXER_V1}/outputs/${lookup.path}/:${lookup.param}`,
  schema: {
    summary: `The current unspent output of ${article(lookup.what)}`,
    tags: [Tag.Indexer],
    params: pathParams({ [lookup.param]: hexOfBytes(lookup.length, `${article(lookup.what)} ID`) }),
    querystring: queryString({}),
    response: responses({ 200: lookupSchema(lookup.what) }, [400, 403, 404, 500]),
  },
});

function article(what: string): string {
  return /^[aeiouAEIOUN]/.test(what) ? `an ${what}` : `a ${what}`;
}

// ---------------------------------------------------------------- routes

/**
 * `pages`: listing pages read at the latest milestone, kept by path and query, so a wallet
 * polling its address between two milestones is answered from memory (milestoneAnswers.ts).
 */
export function registerIndexerRoutes(
  app: FastifyInstance,
  node: ApiNode,
  pages: MilestoneAnswers = new MilestoneAnswers(),
): void {
  // The node keeps the indexes in step with the ledger; a read first lets them catch up when
  // they lag (a rebuild after a milestone slipped past them).
  const indexer = async () => {
    await node.indexer.catchUp();
    return node.indexer;
  };

  const none = new Set<string>();
  for (const lookup of LOOKUPS) {
    registerRoute(app, lookupRoute(lookup), async (request): Promise<IndexerLookupJson> => {
      queryParams(request.query, none);
      const raw = (request.params as Record<string, unknown>)[lookup.param];
      const chainId = fromHex(raw, lookup.param, lookup.length);
      const ix = await indexer();
      const { ledgerIndex, outputId } = await ix.chainOutput(lookup.type, chainId);
      if (!outputId) throw notFound(`no unspent output of ${lookup.what} ${raw}`);
      return { ledgerIndex, items: [toHex(outputId)] };
    });
  }

  // only a page of indexes at the latest milestone is kept, never one of indexes that lag behind it
  for (const listing of LISTINGS) {
    registerRoute(
      app,
      listingRoute(listing),
      async (request, reply): Promise<FastifyReply> => {
        const params = queryParams(request.query, listing.params);
        const latest = node.tangle.latestMilestone;
        const kept = pages.get(latest, request.url);
        if (kept !== undefined) return reply.header("content-type", JSON_CONTENT_TYPE).send(kept);
        const { query, pageSize } = parseListingQuery(params, listing.type, node.tangle.protocolParameters.bech32Hrp);
        // the indexes follow the ledger milestone by milestone: no catching up to wait for
        const ix = node.indexer.isSynced ? node.indexer : await indexer();
        const page = await ix.outputs(query);
        const answer: IndexerListingJson = {
          ledgerIndex: page.ledgerIndex,
          pageSize,
          ...(page.next ? { cursor: formatIndexerCursor(page.next, pageSize) } : {}),
          items: toHexEach(page.items),
        };
        // the text fastify's serializer for this route (STRINGIFIED) would send
        const body = JSON.stringify(answer);
        if (page.ledgerIndex === latest.index) pages.set(latest, request.url, body);
        return reply.header("content-type", JSON_CONTENT_TYPE).send(body);
      },
      STRINGIFIED,
    );
  }
}
