import type { FastifyInstance, FastifyRequest } from "fastify";
import { toHex } from "../../codec/hex.js";
import type { Repositories } from "../../storage/index.js";
import type { TangleView } from "../../tangle/tangleView.js";
import type { ApiNode } from "../apiNode.js";
import { ApiError, badRequest, notFound } from "../errors.js";
import type { MilestonesPage } from "../json/explorer.js";
import { getRoute, type RouteDefinition, registerRoute, STRINGIFIED } from "../routeDefinition.js";
import {
  arrayOf,
  closedObject,
  decimalString,
  hexOfBytes,
  integer,
  patterned,
  queryString,
  Tag,
} from "../schemas/common.js";
import { parsePageSize, parseUint, queryParams } from "./queryParams.js";

/**
 * The explorer's milestone listing (Chronicle's `explorer/v2/milestones`; docs/decisions.md, Explorer milestones):
 * confirmed milestones whose timestamp lies in `[startTimestamp, endTimestamp]` (unix seconds,
 * both inclusive), newest or oldest first, `pageSize` per page (default 100, at most 1000),
 * paged by `cursor = "<milestoneIndex>.<pageSize>"`, where the index is the first item of the
 * next page. The sort is not part of the cursor, so the same cursor with the other sort pages
 * backwards from that milestone. Milestone timestamps strictly increase with the index (TIP-29),
 * so a time window is an index range, found by binary search.
 */

export const EXPLORER_V2 = "/api/explorer/v2";

export const DEFAULT_MILESTONE_PAGE_SIZE = 100;
export const MAX_MILESTONE_PAGE_SIZE = 1000;
/** Page sizes of every explorer listing (docs/decisions.md, Explorer). */
export const EXPLORER_PAGES = { defaultSize: DEFAULT_MILESTONE_PAGE_SIZE, maxSize: MAX_MILESTONE_PAGE_SIZE };

const PARAMS = new Set(["startTimestamp", "endTimestamp", "sort", "pageSize", "cursor"]);

export type MilestoneSort = "newest" | "oldest";

export interface MilestonesQuery {
  startTimestamp?: number;
  endTimestamp?: number;
  sort: MilestoneSort;
  pageSize: number;
  /** Index of the first milestone of the page (inclusive). */
  cursor?: number;
}

/** Reads and checks the query; unknown or repeated parameters are bad input. */
export function parseMilestonesQuery(raw: Record<string, unknown>): MilestonesQuery {
  const params = queryParams(raw, PARAMS);
  const query: MilestonesQuery = { sort: "newest", pageSize: DEFAULT_MILESTONE_PAGE_SIZE };
  const start = params.get("startTimestamp");
  if (start !== undefined) query.startTimestamp = parseUint("startTimestamp", start);
  const end = params.get("endTimestamp");
  if (end !== undefined) query.endTimestamp = parseUint("endTimestamp", end);
  if (query.startTimestamp !== undefined && query.endTimestamp !== undefined) {
    if (query.endTimestamp < query.startTimestamp) throw badRequest("endTimestamp is before startTimestamp");
  }
  const sort = params.get("sort");
  if (sort !== undefined) {
    if (sort !== "newest" && sort !== "oldest") throw badRequest(`sort: expected newest or oldest, got "${sort}"`);
    query.sort = sort;
  }
  const size = params.get("pageSize");
  if (size !== undefined) query.pageSize = parsePageSize("pageSize", size, MAX_MILESTONE_PAGE_SIZE);
  const cursor = params.get("cursor");
  if (cursor !== undefined) {
    const m = /^([0-9]{1,10})\.([0-9]{1,16})$/.exec(cursor);
    if (!m) throw badRequest(`cursor: expected <milestone index>.<page size>, got "${cursor}"`);
    const index = Number(m[1]);
    if (index > 0xffffffff) throw badRequest(`cursor: milestone index ${m[1]} exceeds u32`);
    query.cursor = index;
    // the cursor's page size wins over pageSize
    query.pageSize = parsePageSize("cursor page size", m[2]!, MAX_MILESTONE_PAGE_SIZE);
  }
  return query;
}

function timestampAt(db: Repositories, index: number): number {
  const record = db.milestones.getSync(index);
  if (!record) throw new ApiError(500, `the record of milestone ${index} is missing`);
  return record.timestamp;
}

/** Lowest index in [lo, hi] whose timestamp is at least `t` (hi + 1 when there is none). */
function firstAtOrAfter(db: Repositories, lo: number, hi: number, t: number): number {
  let a = lo;
  let b = hi + 1;
  while (a < b) {
    const mid = a + Math.floor((b - a) / 2);
    if (timestampAt(db, mid) >= t) b = mid;
    else a = mid + 1;
  }
  return a;
}

/** Highest index in [lo, hi] whose timestamp is at most `t` (lo - 1 when there is none). */
function lastAtOrBefore(db: Repositories, lo: number, hi: number, t: number): number {
  return firstAtOrAfter(db, lo, hi, t + 1) - 1;
}

/** One page of the listing; a cursor naming a milestone that is not stored is 404. */
export async function listMilestones(
  tangle: TangleView,
  db: Repositories,
  q: MilestonesQuery,
): Promise<MilestonesPage> {
  if (q.cursor !== undefined && !db.milestones.hasSync(q.cursor)) {
    throw notFound(`milestone ${q.cursor} of the cursor does not exist`);
  }
  const range = await db.milestones.indexRange();
  if (!range) return { items: [], cursor: null };
  let low = range.first;
  let high = range.last;
  if (q.startTimestamp !== undefined) low = firstAtOrAfter(db, low, high, q.startTimestamp);
  if (q.endTimestamp !== undefined) high = lastAtOrBefore(db, range.first, high, q.endTimestamp);
  if (q.cursor !== undefined) {
    if (q.sort === "newest") high = Math.min(high, q.cursor);
    else low = Math.max(low, q.cursor);
  }
  if (low > high) return { items: [], cursor: null };

  // The page by ID, one per index (the range has no gaps): recent milestone IDs are held in
  // memory by the tangle, older ones cost one synchronous point read each.
  const items: MilestonesPage["items"] = [];
  const count = Math.min(q.pageSize, high - low + 1);
  const step = q.sort === "newest" ? -1 : 1;
  const start = q.sort === "newest" ? high : low;
  for (let i = 0; i < count; i++) {
    const index = start + step * i;
    let milestoneId: Uint8Array | undefined;
    try {
      milestoneId = tangle.milestoneIdAt(index);
    } catch (e) {
      throw new ApiError(500, `the stored milestone ${index} does not decode: ${(e as Error).message}`);
    }
    if (!milestoneId) throw new ApiError(500, `the record of milestone ${index} is missing`);
    items.push({ milestoneId: toHex(milestoneId), index });
  }
  const next = high - low + 1 > q.pageSize ? start + step * q.pageSize : undefined;
  return { items, cursor: next === undefined ? null : `${next}.${q.pageSize}` };
}

export const EXPLORER_ROUTES = {
  milestones: getRoute(
    `${EXPLORER_V2}/milestones`,
    {
      summary: "Confirmed milestones in a time window, paged",
      description:
        "Newest or oldest first; follow `cursor` for the next page. The same cursor with the other sort pages backwards from that milestone. Unknown parameters are refused.",
      tags: [Tag.Explorer],
      querystring: queryString({
        startTimestamp: decimalString("the earliest milestone timestamp, unix seconds, inclusive"),
        endTimestamp: decimalString("the latest milestone timestamp, unix seconds, inclusive"),
        sort: { type: "string", enum: ["newest", "oldest"], description: "newest (default) or oldest first" },
        pageSize: decimalString(
          `items per page, at least 1 (default ${DEFAULT_MILESTONE_PAGE_SIZE}, above ${MAX_MILESTONE_PAGE_SIZE} means ${MAX_MILESTONE_PAGE_SIZE}); a cursor's page size wins`,
        ),
        cursor: patterned(
          "^[0-9]{1,10}\\.[0-9]{1,16}$",
          "<milestone index>.<page size>",
          "the cursor of the previous page",
        ),
      }),
    },
    closedObject<MilestonesPage>(
      {
        items: arrayOf(
          closedObject<MilestonesPage["items"][number]>(
            { milestoneId: hexOfBytes(32, "the milestone ID"), index: integer("the milestone index") },
            ["milestoneId", "index"],
          ),
          "the milestones of the page",
        ),
        cursor: { type: "string", nullable: true, description: "the cursor of the next page; null on the last" },
      },
      ["items", "cursor"],
      "a page of milestones",
    ),
    [400, 403, 404, 500],
  ),
} satisfies Record<string, RouteDefinition>;

/**
 * Registers the explorer routes on `app`: the node's own server, or a separate one for
 * `--explorer-port` (which needs `registerErrorHandling` for the same error bodies).
 */
export function registerExplorerRoutes(app: FastifyInstance, node: Pick<ApiNode, "tangle" | "db">): void {
  registerRoute(
    app,
    EXPLORER_ROUTES.milestones,
    async (request: FastifyRequest) => {
      const query = parseMilestonesQuery((request.query ?? {}) as Record<string, unknown>);
      return listMilestones(node.tangle, node.db, query);
    },
    STRINGIFIED,
  );
}
