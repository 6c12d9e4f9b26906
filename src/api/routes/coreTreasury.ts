import type { FastifyInstance } from "fastify";
import { toHex } from "../../codec/hex.js";
import { decodeReceipt, milestoneOptionToJson } from "../../codec/milestoneOptions.js";
import { decodeStored, type StoredReceipt, type TreasuryRecord } from "../../storage/index.js";
import type { ApiNode } from "../apiNode.js";
import { badRequest } from "../errors.js";
import type { ReceiptsJson, TreasuryJson } from "../json/core.js";
import { getRoute, type RouteDefinition, registerRoute } from "../routeDefinition.js";
import { arrayOf, closedObject, integer, openObject, pathParams, patterned, Tag } from "../schemas/common.js";
import { milestoneId } from "../schemas/core.js";
import { CORE_V2 } from "./coreParams.js";

/**
 * The migration routes of the core API (TIP-25, TIP-34): receipts and the treasury, as Hornet's
 * `components/coreapi` answers them (docs/decisions.md, Receipts and the treasury).
 *
 * - `GET /treasury`: the node's treasury output, `{milestoneId, amount}`: the one a snapshot
 *   import brought (the full snapshot's header, moved by the receipts of the delta's
 *   milestones), else the empty one every network without migration has (32 zero bytes, "0").
 *   The same output goes into the header of the snapshots this node writes.
 * - `GET /receipts` and `GET /receipts/{migratedAt}`: the stored receipts as
 *   `{receipts: [{receipt, milestoneIndex}]}`, ordered by migratedAt, then milestone index
 *   (Hornet's key order); an index with none is an empty list, not a 404. Receipts come only
 *   from snapshot files: this node's coordinator issues none and a live milestone carrying one
 *   is refused (tangle/confirmMilestone.ts). At most `MAX_RECEIPTS` are listed.
 */

/** Receipts one answer lists at most (a receipt holds up to 127 entries: about 13 MB at most). */
export const MAX_RECEIPTS = 1000;

/** The TIP-25 JSON of a treasury output. */
export function treasuryToJson(t: TreasuryRecord): TreasuryJson {
  return { milestoneId: toHex(t.milestoneId), amount: t.amount.toString() };
}

/** The TIP-25 JSON of stored receipts; a stored receipt that does not decode is the node's fault. */
function receiptsToJson(stored: readonly StoredReceipt[]): ReceiptsJson {
  return {
    receipts: stored.map((r) => ({
      receipt: milestoneOptionToJson(
        decodeStored(r.bytes, (b) => decodeReceipt(b), `receipt of milestone ${r.milestoneIndex}`),
      ),
      milestoneIndex: r.milestoneIndex,
    })),
  };
}

function receiptsSchema() {
  return closedObject<ReceiptsJson>(
    {
      receipts: arrayOf(
        closedObject<ReceiptsJson["receipts"][number]>(
          {
            receipt: openObject(
              { type: integer("the milestone option type: 0, receipt", 0, 255) },
              ["type"],
              "the receipt milestone option (TIP-34)",
            ),
            milestoneIndex: integer("the milestone that carried the receipt"),
          },
          ["receipt", "milestoneIndex"],
          "a receipt and the milestone it came with",
        ),
        `the receipts the node keeps (at most ${MAX_RECEIPTS}), by migratedAt, then milestone index`,
      ),
    },
    ["receipts"],
    "receipts of migrated funds",
  );
}

export const TREASURY_ROUTES = {
  receipts: getRoute(
    `${CORE_V2}/receipts`,
    {
      summary: "All receipts of migrated funds",
      description:
        "The receipts of the milestones this node keeps (from snapshot files; its own networks have no migration), by migratedAt, then milestone index; empty when there are none.",
      tags: [Tag.Core],
    },
    receiptsSchema(),
    [403, 500],
  ),
  receiptsMigratedAt: getRoute(
    `${CORE_V2}/receipts/:migratedAt`,
    {
      summary: "The receipts of migrated funds of one legacy milestone",
      description:
        "The receipts of the funds migrated at that legacy milestone; an index without receipts is an empty list (as Hornet answers).",
      tags: [Tag.Core],
      params: pathParams({
        migratedAt: patterned(
          "^[0-9]{1,10}$",
          "a milestone index of at most 10 digits",
          "the legacy milestone index the funds were migrated at (0 to 4294967295)",
        ),
      }),
    },
    receiptsSchema(),
    [400, 403, 500],
  ),
  treasury: getRoute(
    `${CORE_V2}/treasury`,
    {
      summary: "The current treasury output",
      description:
        "The treasury output: the milestone that made it and its tokens. A node started from a snapshot has the snapshot's (moved by the receipts of its delta); a network without migration has the empty one (a milestone ID of 32 zero bytes, amount 0). Snapshots this node writes carry it in their header.",
      tags: [Tag.Core],
    },
    closedObject<TreasuryJson>(
      {
        milestoneId: milestoneId(),
        amount: patterned("^[0-9]+$", "decimal string", "the tokens in the treasury"),
      },
      ["milestoneId", "amount"],
      "the treasury output",
    ),
    [403, 500],
  ),
} satisfies Record<string, RouteDefinition>;

export function registerTreasuryRoutes(app: FastifyInstance, node: ApiNode): void {
  registerRoute(
    app,
    TREASURY_ROUTES.receipts,
    async (): Promise<ReceiptsJson> => receiptsToJson(await node.db.receipts.list({ limit: MAX_RECEIPTS })),
  );
  registerRoute(app, TREASURY_ROUTES.receiptsMigratedAt, async (request): Promise<ReceiptsJson> => {
    const raw = (request.params as { migratedAt: string }).migratedAt;
    const migratedAt = Number(raw);
    if (migratedAt > 0xffffffff) throw badRequest(`migratedAt: ${raw} exceeds u32`);
    return receiptsToJson(await node.db.receipts.list({ migratedAt, limit: MAX_RECEIPTS }));
  });
  registerRoute(
    app,
    TREASURY_ROUTES.treasury,
    async (): Promise<TreasuryJson> => treasuryToJson(await node.db.nodeState.treasury()),
  );
}
