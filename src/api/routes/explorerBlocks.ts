import type { FastifyInstance, FastifyRequest } from "fastify";
import { fromHex, toHex } from "../../codec/hex.js";
import { blockChildren, milestoneBlocks } from "../../indexer/index.js";
import type { ApiNode } from "../apiNode.js";
import { badRequest, notFound } from "../errors.js";
import type { ChildrenPage, MilestoneBlocksPage } from "../json/explorer.js";
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
import { paging, queryParams } from "./queryParams.js";

/**
 * Explorer routes over the tangle's structure (Chronicle's explorer v2): the blocks a milestone
 * referenced, in white-flag order with each payload's type, and the children of a block. Both
 * page with `cursor = "<position>.<pageSize>"` naming the first item of the next page
 * (inclusive), whose page size wins over `pageSize`; `cursor` is null on the last page.
 * Unknown query parameters are refused, as on every explorer route.
 */

const pageSizeSchema = () =>
  decimalString(
    `items per page, at least 1 (default ${DEFAULT_MILESTONE_PAGE_SIZE}, above ${MAX_MILESTONE_PAGE_SIZE} means ${MAX_MILESTONE_PAGE_SIZE}); a cursor's page size wins`,
  );
const cursorOut = (): Schema => ({
  type: "string",
  nullable: true,
  description: "the cursor of the next page; null on the last",
});

const blocksResponse = closedObject<MilestoneBlocksPage>(
  {
    blocks: arrayOf(
      closedObject<MilestoneBlocksPage["blocks"][number]>(
        {
          blockId: hexOfBytes(32, "the block ID"),
          payloadType: { type: "integer", nullable: true, description: "the payload type (TIP-24); null without one" },
        },
        ["blockId", "payloadType"],
      ),
      "the referenced blocks in white-flag order (reversed with sort=newest)",
    ),
    cursor: cursorOut(),
  },
  ["blocks", "cursor"],
  "a page of the blocks a milestone referenced",
);

const blocksQuery = () =>
  queryString({
    sort: {
      type: "string",
      enum: ["oldest", "newest"],
      description: "oldest (white-flag order, the default) or newest first",
    },
    pageSize: pageSizeSchema(),
    cursor: patterned(
      "^[0-9]{1,10}\\.[0-9]{1,16}$",
      "<white-flag index>.<page size>",
      "the cursor of the previous page",
    ),
  });

export const EXPLORER_BLOCK_ROUTES = {
  milestoneBlocks: getRoute(
    `${EXPLORER_V2}/milestones/:milestoneId/blocks`,
    {
      summary: "The blocks a milestone referenced, in white-flag order, paged",
      tags: [Tag.Explorer],
      params: pathParams({ milestoneId: hexOfBytes(32, "a milestone ID") }),
      querystring: blocksQuery(),
    },
    blocksResponse,
    [400, 403, 404, 500],
  ),
  milestoneBlocksByIndex: getRoute(
    `${EXPLORER_V2}/milestones/by-index/:index/blocks`,
    {
      summary: "The blocks a milestone (by index) referenced, in white-flag order, paged",
      tags: [Tag.Explorer],
      params: pathParams({ index: decimalString("a milestone index", 10) }),
      querystring: blocksQuery(),
    },
    structuredClone(blocksResponse),
    [400, 403, 404, 500],
  ),
  children: getRoute(
    `${EXPLORER_V2}/blocks/:blockId/children`,
    {
      summary: "The children of a block (blocks naming it as a parent), paged",
      tags: [Tag.Explorer],
      params: pathParams({ blockId: hexOfBytes(32, "a block ID") }),
      querystring: queryString({
        pageSize: pageSizeSchema(),
        cursor: patterned(
          "^0x[0-9a-fA-F]{64}\\.[0-9]{1,16}$",
          "<child block ID>.<page size>",
          "the cursor of the previous page",
        ),
      }),
    },
    closedObject<ChildrenPage>(
      {
        blockId: hexOfBytes(32, "the parent block ID"),
        maxResults: integer("the page size used", 1, MAX_MILESTONE_PAGE_SIZE),
        count: integer("the number of children on this page"),
        children: arrayOf(hexOfBytes(32, "a child block ID"), "children in block ID order"),
        cursor: cursorOut(),
      },
      ["blockId", "maxResults", "count", "children", "cursor"],
      "a page of a block's children",
    ),
    [400, 403, 404, 500],
  ),
} satisfies Record<string, RouteDefinition>;

const BLOCK_PARAMS = new Set(["sort", "pageSize", "cursor"]);
const CHILD_PARAMS = new Set(["pageSize", "cursor"]);

/** Registers the milestone-blocks and children routes (the node keeps their index, explorerIndex.ts). */
export function registerExplorerBlockRoutes(app: FastifyInstance, node: Pick<ApiNode, "tangle" | "db">): void {
  const listBlocks = async (request: FastifyRequest, index: number): Promise<MilestoneBlocksPage> => {
    const p = queryParams(request.query, BLOCK_PARAMS);
    const sort = p.get("sort") ?? "oldest";
    if (sort !== "oldest" && sort !== "newest") throw badRequest(`sort: expected oldest or newest, got "${sort}"`);
    const { pageSize, from } = paging(p, EXPLORER_PAGES, (s) => {
      if (!/^[0-9]{1,10}$/.test(s) || Number(s) > 0xffffffff) throw badRequest(`cursor: bad white-flag index "${s}"`);
      return Number(s);
    });
    if (!(await node.db.milestones.has(index))) throw notFound(`no milestone ${index}`);
    const rows = await milestoneBlocks(node.db, index, {
      ...(from === undefined ? {} : { from }),
      reverse: sort === "newest",
      limit: pageSize + 1,
    });
    const next = rows.length > pageSize ? rows[pageSize] : undefined;
    return {
      blocks: rows.slice(0, pageSize).map((b) => ({ blockId: toHex(b.blockId), payloadType: b.payloadType ?? null })),
      cursor: next ? `${next.whiteFlagIndex}.${pageSize}` : null,
    };
  };

  registerRoute(app, EXPLORER_BLOCK_ROUTES.milestoneBlocks, async (request) => {
    const raw = (request.params as { milestoneId: string }).milestoneId;
    const index = await node.db.milestoneIndexes.get(fromHex(raw, "milestoneId", 32));
    if (index === undefined) throw notFound(`no milestone ${raw}`);
    return listBlocks(request, index);
  });

  registerRoute(app, EXPLORER_BLOCK_ROUTES.milestoneBlocksByIndex, async (request) => {
    const raw = (request.params as { index: string }).index;
    const index = Number(raw);
    if (!/^[0-9]{1,10}$/.test(raw) || index > 0xffffffff) throw badRequest(`index: expected a u32, got "${raw}"`);
    return listBlocks(request, index);
  });

  registerRoute(app, EXPLORER_BLOCK_ROUTES.children, async (request) => {
    const raw = (request.params as { blockId: string }).blockId;
    const blockId = fromHex(raw, "blockId", 32);
    const p = queryParams(request.query, CHILD_PARAMS);
    const { pageSize, from } = paging(p, EXPLORER_PAGES, (s) => fromHex(s, "cursor", 32));
    if (!node.tangle.isSolidEntryPoint(blockId) && !(await node.tangle.hasBlock(blockId))) {
      throw notFound(`no block ${raw}`);
    }
    // child links are written behind intake (Tangle.storeBlock): a child taken in before this
    // request is listed once its batch is on disk
    await node.tangle.intakeWritten().catch(() => {});
    const rows = await blockChildren(node.db, blockId, { ...(from ? { from } : {}), limit: pageSize + 1 });
    const next = rows.length > pageSize ? rows[pageSize] : undefined;
    const children = rows.slice(0, pageSize).map(toHex);
    return {
      blockId: toHex(blockId),
      maxResults: pageSize,
      count: children.length,
      children,
      cursor: next ? `${toHex(next)}.${pageSize}` : null,
    };
  });
}
