import type { FastifyInstance } from "fastify";
import { addressFromBech32, addressToBech32, deserializeAddress, serializeAddressBytes } from "../../codec/address.js";
import { fromHex, toHex } from "../../codec/hex.js";
import { decodeOutput } from "../../codec/outputs/output.js";
import { ReadStream } from "../../codec/readStream.js";
import {
  addressUpdates,
  explorerBalance,
  type LedgerRankings,
  ledgerRankings,
  ledgerRankingsAt,
  MAX_CONDITIONAL_READ,
  ownerAddress,
  RANKED_ADDRESSES,
  readAddressEntry,
} from "../../indexer/index.js";
import type { Repositories } from "../../storage/index.js";
import type { ApiNode } from "../apiNode.js";
import { ApiError, badRequest, notFound } from "../errors.js";
import type { AddressUpdates, BalanceAnswer, Distribution, MilestoneUpdates, Richest } from "../json/explorer.js";
import { getRoute, type RouteDefinition, registerRoute } from "../routeDefinition.js";
import {
  arrayOf,
  closedObject,
  decimalString,
  hexOfBytes,
  integer,
  pathParams,
  patterned,
  queryString,
  type Schema,
  Tag,
} from "../schemas/common.js";
import { DEFAULT_MILESTONE_PAGE_SIZE, EXPLORER_PAGES, EXPLORER_V2, MAX_MILESTONE_PAGE_SIZE } from "./explorer.js";
import { paging, parsePageSize, parseU32, queryParams } from "./queryParams.js";

/**
 * Explorer routes over the ledger by address (Chronicle's explorer v2): an address's balance,
 * the ledger updates of a milestone and of an address, the richest addresses and the token
 * distribution. Balances come from the per-address buckets kept in each milestone's batch
 * (indexer/addressLedger.ts). Paged routes take `pageSize` (default 100, above 1000 means 1000)
 * and a `cursor` naming the first item of the next page, whose page size wins over `pageSize`;
 * `cursor` is null on the last page:
 *
 * - by milestone: `<position>.<pageSize>`, the position in the milestone's ledger diff (its
 *   created outputs, then its consumed ones);
 * - by address: `<milestoneIndex>.<outputId>.<0|1 spent>.<pageSize>`; without a cursor,
 *   `startMilestoneIndex` starts the listing at that milestone (inclusive: at and below it
 *   newest first, at and above it oldest first; a cursor wins over it, as in Chronicle).
 *
 * The richest addresses and the token distribution take `ledgerIndex` (Chronicle's): the ledger
 * as of that milestone, the current one by default; an earlier one is rolled back from the
 * current balances (indexer/pastRankings.ts), within the history kept.
 *
 * Unknown query parameters are refused, as on every explorer route.
 */

export const DEFAULT_RICHEST_TOP = 200;
export const MAX_RICHEST_TOP = RANKED_ADDRESSES;

const bech32Param = (): Schema => ({
  type: "string",
  minLength: 1,
  maxLength: 128,
  description: "a bech32 address with the network's human-readable part",
});
const bech32Out = (what: string): Schema => ({ type: "string", description: `${what} (bech32)` });
const amount = (what: string) => patterned("^[0-9]+$", "decimal string", what);
const pageSizeSchema = () =>
  decimalString(
    `items per page, at least 1 (default ${DEFAULT_MILESTONE_PAGE_SIZE}, above ${MAX_MILESTONE_PAGE_SIZE} means ${MAX_MILESTONE_PAGE_SIZE}); a cursor's page size wins`,
  );
const milestoneIndexQuery = (description: string) =>
  patterned("^[0-9]{1,10}$", "a milestone index of at most 10 digits", description);
const ledgerIndexQuery = () =>
  milestoneIndexQuery(
    "the milestone whose ledger to rank (default: the ledger index); an earlier one must not be pruned and be at most 10,000 milestones back",
  );
const cursorOut = (): Schema => ({
  type: "string",
  nullable: true,
  description: "the cursor of the next page; null on the last",
});

export const EXPLORER_LEDGER_ROUTES = {
  balance: getRoute(
    `${EXPLORER_V2}/balance/:address`,
    {
      summary: "The total and available balance of an address",
      description: `As of the latest milestone's timestamp T (TIP-18). Total: the amounts of the unspent outputs the address owns (address unlock condition, state controller of an alias, immutable alias of a foundry) that have not expired (no expiration, or one later than T), each less its storage deposit return amount unless that returns to the address itself; plus the unspent outputs whose expiration names the address as return address and has passed (at or before T), each less its storage deposit return amount unless that returns to the address itself. Available: the same, less the outputs still timelocked at T (timelock later than T). The richest addresses and the token distribution sum the owned outputs' amounts only. 503 while the balances are rebuilt, when the ledger keeps moving during the read, or when the balance depends on more than ${MAX_CONDITIONAL_READ.toLocaleString("en-US")} outputs with a timelock, an expiration or a storage deposit return (what one request reads).`,
      tags: [Tag.Explorer],
      params: pathParams({ address: bech32Param() }),
      querystring: queryString({}),
    },
    closedObject<BalanceAnswer>(
      {
        totalBalance: amount(
          "what the address holds at T: owned outputs not expired and expired outputs it is the return address of, less the storage deposit returns it owes",
        ),
        availableBalance: amount("the part of the total the address can unlock now (not timelocked at T)"),
        ledgerIndex: integer("the ledger index the balance belongs to"),
      },
      ["totalBalance", "availableBalance", "ledgerIndex"],
      "an address's balance",
    ),
    [400, 403, 500, 503],
  ),
  updatesByMilestone: getRoute(
    `${EXPLORER_V2}/ledger/updates/by-milestone/:milestoneId`,
    {
      summary: "The outputs a milestone created and consumed, with their owners, paged",
      tags: [Tag.Explorer],
      params: pathParams({ milestoneId: hexOfBytes(32, "a milestone ID") }),
      querystring: queryString({
        pageSize: pageSizeSchema(),
        cursor: patterned("^[0-9]{1,10}\\.[0-9]{1,16}$", "<position>.<page size>", "the cursor of the previous page"),
      }),
    },
    closedObject<MilestoneUpdates>(
      {
        milestoneIndex: integer("the milestone index"),
        items: arrayOf(
          closedObject<MilestoneUpdates["items"][number]>(
            {
              address: bech32Out("the output's owner"),
              outputId: hexOfBytes(34, "the output ID"),
              isSpent: { type: "boolean", description: "true when the milestone consumed it" },
            },
            ["address", "outputId", "isSpent"],
          ),
          "created outputs, then consumed ones, in ledger diff order",
        ),
        cursor: cursorOut(),
      },
      ["milestoneIndex", "items", "cursor"],
      "a page of a milestone's ledger updates",
    ),
    [400, 403, 404, 500],
  ),
  updatesByAddress: getRoute(
    `${EXPLORER_V2}/ledger/updates/by-address/:address`,
    {
      summary: "The outputs an address gained and lost, by milestone, paged",
      tags: [Tag.Explorer],
      params: pathParams({ address: bech32Param() }),
      querystring: queryString({
        sort: { type: "string", enum: ["oldest", "newest"], description: "newest (the default) or oldest first" },
        pageSize: pageSizeSchema(),
        startMilestoneIndex: milestoneIndexQuery(
          "start the listing at this milestone (inclusive; at and below it with sort=newest, at and above it with sort=oldest); a cursor wins over it",
        ),
        cursor: patterned(
          "^[0-9]{1,10}\\.0x[0-9a-fA-F]{68}\\.[01]\\.[0-9]{1,16}$",
          "<milestone index>.<output ID>.<0|1>.<page size>",
          "the cursor of the previous page",
        ),
      }),
    },
    closedObject<AddressUpdates>(
      {
        address: bech32Out("the address"),
        items: arrayOf(
          closedObject<AddressUpdates["items"][number]>(
            {
              milestoneIndex: integer("the milestone that created or consumed the output"),
              outputId: hexOfBytes(34, "the output ID"),
              isSpent: { type: "boolean", description: "true when the milestone consumed it" },
            },
            ["milestoneIndex", "outputId", "isSpent"],
          ),
          "updates by milestone index, output ID and spent flag (reversed with sort=newest)",
        ),
        cursor: cursorOut(),
      },
      ["address", "items", "cursor"],
      "a page of an address's ledger updates",
    ),
    [400, 403, 500],
  ),
  richest: getRoute(
    `${EXPLORER_V2}/ledger/richest-addresses`,
    {
      summary: "The addresses with the highest balances",
      tags: [Tag.Explorer],
      querystring: queryString({
        top: decimalString(
          `how many, at least 1 (default ${DEFAULT_RICHEST_TOP}, above ${MAX_RICHEST_TOP} means ${MAX_RICHEST_TOP})`,
        ),
        ledgerIndex: ledgerIndexQuery(),
      }),
    },
    closedObject<Richest>(
      {
        top: arrayOf(
          closedObject<Richest["top"][number]>(
            { address: bech32Out("the address"), balance: amount("its total balance") },
            ["address", "balance"],
          ),
          "by balance, highest first (ties by address bytes)",
        ),
        ledgerIndex: integer("the ledger index the balances belong to"),
      },
      ["top", "ledgerIndex"],
      "the richest addresses",
    ),
    [400, 403, 404, 500, 503],
  ),
  distribution: getRoute(
    `${EXPLORER_V2}/ledger/token-distribution`,
    {
      summary: "How many addresses hold balances in each power-of-ten range",
      tags: [Tag.Explorer],
      querystring: queryString({ ledgerIndex: ledgerIndexQuery() }),
    },
    closedObject<Distribution>(
      {
        distribution: arrayOf(
          closedObject<Distribution["distribution"][number]>(
            {
              addressCount: integer("addresses whose balance lies in the range"),
              totalBalance: amount("the sum of their balances"),
              range: closedObject<{ start: number; end: number }>(
                {
                  start: integer("lowest balance of the range (inclusive), a power of ten"),
                  end: integer("end of the range (exclusive), ten times the start"),
                },
                ["start", "end"],
              ),
            },
            ["addressCount", "totalBalance", "range"],
          ),
          "non-empty ranges, lowest first",
        ),
        ledgerIndex: integer("the ledger index the balances belong to"),
      },
      ["distribution", "ledgerIndex"],
      "the token distribution",
    ),
    [400, 403, 404, 500, 503],
  ),
} satisfies Record<string, RouteDefinition>;

const NO_PARAMS = new Set<string>();
const PAGE_PARAMS = new Set(["pageSize", "cursor"]);
const ADDRESS_UPDATE_PARAMS = new Set(["sort", "pageSize", "startMilestoneIndex", "cursor"]);
const RICHEST_PARAMS = new Set(["top", "ledgerIndex"]);
const DISTRIBUTION_PARAMS = new Set(["ledgerIndex"]);

/** The rankings of the ledger `ledgerIndex` names, the current one when it is absent. */
function rankingsOf(db: Repositories, raw: string | undefined): Promise<LedgerRankings> {
  return raw === undefined ? ledgerRankings(db) : ledgerRankingsAt(db, parseU32("ledgerIndex", raw));
}

/** Registers the balance, ledger update, richest address and distribution routes and their writer. */
export function registerExplorerLedgerRoutes(app: FastifyInstance, node: Pick<ApiNode, "tangle" | "db">): void {
  const hrp = () => node.tangle.protocolParameters.bech32Hrp;
  const addressParam = (raw: unknown) =>
    serializeAddressBytes(addressFromBech32((raw as { address: string }).address, hrp(), "address"));
  const bech32Of = (bytes: Uint8Array) => addressToBech32(deserializeAddress(new ReadStream(bytes), "address"), hrp());

  registerRoute(app, EXPLORER_LEDGER_ROUTES.balance, async (request): Promise<BalanceAnswer> => {
    queryParams(request.query, NO_PARAMS);
    const address = addressParam(request.params);
    const { value, ledgerIndex, timestamp } = await readAddressEntry(node.db, address);
    const { total, available } = explorerBalance(value.total, value.conditional, timestamp);
    return { totalBalance: total.toString(), availableBalance: available.toString(), ledgerIndex };
  });

  registerRoute(app, EXPLORER_LEDGER_ROUTES.updatesByMilestone, async (request): Promise<MilestoneUpdates> => {
    const raw = (request.params as { milestoneId: string }).milestoneId;
    const milestoneId = fromHex(raw, "milestoneId", 32);
    const { pageSize, from } = paging(queryParams(request.query, PAGE_PARAMS), EXPLORER_PAGES, (s) =>
      parseU32("cursor position", s),
    );
    const index = await node.db.milestoneIndexes.get(milestoneId);
    if (index === undefined) throw notFound(`no milestone ${raw}`);
    const diff = await node.db.ledgerDiffs.get(index);
    if (!diff) throw notFound(`the ledger diff of milestone ${index} is pruned`);
    const all = [
      ...diff.created.map((outputId) => ({ outputId, isSpent: false })),
      ...diff.consumed.map((outputId) => ({ outputId, isSpent: true })),
    ];
    const start = from ?? 0;
    const page = all.slice(start, start + pageSize);
    const records = await node.db.outputs.getMany(page.map((u) => u.outputId));
    const items: MilestoneUpdates["items"] = [];
    page.forEach((u, i) => {
      const rec = records[i];
      if (!rec) throw new ApiError(500, `output ${toHex(u.outputId)} of the ledger diff is missing`);
      const owner = ownerAddress(decodeOutput(rec.outputBytes));
      if (owner)
        items.push({ address: addressToBech32(owner, hrp()), outputId: toHex(u.outputId), isSpent: u.isSpent });
    });
    const next = start + pageSize;
    return { milestoneIndex: index, items, cursor: next < all.length ? `${next}.${pageSize}` : null };
  });

  registerRoute(app, EXPLORER_LEDGER_ROUTES.updatesByAddress, async (request): Promise<AddressUpdates> => {
    const address = addressParam(request.params);
    const p = queryParams(request.query, ADDRESS_UPDATE_PARAMS);
    const sort = p.get("sort") ?? "newest";
    if (sort !== "oldest" && sort !== "newest") throw badRequest(`sort: expected oldest or newest, got "${sort}"`);
    const { pageSize, from } = paging(p, EXPLORER_PAGES, (s) => {
      const m = /^([0-9]{1,10})\.(0x[0-9a-fA-F]{68})\.([01])$/.exec(s);
      if (!m) throw badRequest(`cursor: expected <milestone index>.<output ID>.<0|1>.<page size>`);
      return {
        milestoneIndex: parseU32("cursor milestone index", m[1]!),
        outputId: fromHex(m[2]!, "cursor", 34),
        spent: m[3] === "1",
      };
    });
    const startRaw = p.get("startMilestoneIndex");
    // the first key at (oldest) or the last key at (newest) the start milestone: the bound is inclusive
    const start =
      from || startRaw === undefined
        ? from
        : {
            milestoneIndex: parseU32("startMilestoneIndex", startRaw),
            outputId: new Uint8Array(34).fill(sort === "newest" ? 0xff : 0),
            spent: sort === "newest",
          };
    const rows = await addressUpdates(node.db, address, {
      ...(start ? { from: start } : {}),
      reverse: sort === "newest",
      limit: pageSize + 1,
    });
    const next = rows.length > pageSize ? rows[pageSize] : undefined;
    return {
      address: bech32Of(address),
      items: rows
        .slice(0, pageSize)
        .map((r) => ({ milestoneIndex: r.milestoneIndex, outputId: toHex(r.outputId), isSpent: r.spent })),
      cursor: next ? `${next.milestoneIndex}.${toHex(next.outputId)}.${next.spent ? 1 : 0}.${pageSize}` : null,
    };
  });

  registerRoute(app, EXPLORER_LEDGER_ROUTES.richest, async (request): Promise<Richest> => {
    const p = queryParams(request.query, RICHEST_PARAMS);
    const raw = p.get("top");
    const top = raw === undefined ? DEFAULT_RICHEST_TOP : parsePageSize("top", raw, MAX_RICHEST_TOP);
    const { richest, ledgerIndex } = await rankingsOf(node.db, p.get("ledgerIndex"));
    return {
      top: richest.slice(0, top).map((e) => ({ address: bech32Of(e.address), balance: e.total.toString() })),
      ledgerIndex,
    };
  });

  registerRoute(app, EXPLORER_LEDGER_ROUTES.distribution, async (request): Promise<Distribution> => {
    const p = queryParams(request.query, DISTRIBUTION_PARAMS);
    const { distribution, ledgerIndex } = await rankingsOf(node.db, p.get("ledgerIndex"));
    return {
      distribution: distribution.map(({ k, addressCount, total }) => ({
        addressCount,
        totalBalance: total.toString(),
        range: { start: 10 ** k, end: 10 ** (k + 1) },
      })),
      ledgerIndex,
    };
  });
}
