import type { FastifyInstance } from "fastify";
import { toHex } from "../../codec/hex.js";
import { ID_LENGTH } from "../../codec/ids.js";
import type { ApiNode } from "../apiNode.js";
import { badRequest } from "../errors.js";
import { getRoute, type RouteDefinition, registerRoute } from "../routeDefinition.js";
import { arrayOf, closedObject, integer, openObject, pathParams, patterned, Tag } from "../schemas/common.js";
import { milestoneId } from "../schemas/core.js";
import { CORE_V2 } from "./coreParams.js";

/**
 * The migration routes of the core API (TIP-25, TIP-34): receipts and the treasury. This node's
 * networks have no migration: its coordinator never puts a receipt into a milestone and its
 * ledger holds no treasury output beyond the empty one every Stardust network starts with. So
 * it answers what Hornet answers on such a network (docs/decisions.md, HTTP API):
 *
 * - `GET /receipts` and `GET /receipts/{migratedAt}`: `{"receipts": []}`, 200, as Hornet's
 *   `receipts` / `receiptsByMigratedAtIndex` do when no receipt is stored (an index with none
 *   is an empty list, not a 404);
 * - `GET /treasury`: the treasury output a genesis snapshot without a treasury allocation
 *   gives Hornet (`hornet tool snap-gen`, treasury 0): `{"milestoneId": <32 zero bytes>,
 *   "amount": "0"}`, the same output this node writes into the header of its snapshots.
 */

interface ReceiptsJson {
  receipts: { receipt: Record<string, unknown>; milestoneIndex: number }[];
}

interface TreasuryJson {
  milestoneId: string;
  amount: string;
}

/** The treasury of a network without migration (TIP-35 header of every snapshot this node writes). */
export const EMPTY_TREASURY: TreasuryJson = { milestoneId: toHex(new Uint8Array(ID_LENGTH)), amount: "0" };

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
        "the receipts the node keeps; always empty, since this node's networks have no migration",
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
      description: "This node's networks have no migration: the list is always empty (as Hornet's without receipts).",
      tags: [Tag.Core],
    },
    receiptsSchema(),
    [403, 500],
  ),
  receiptsMigratedAt: getRoute(
    `${CORE_V2}/receipts/:migratedAt`,
    {
      summary: "The receipts of migrated funds of one legacy milestone",
      description: "An index without receipts is an empty list (as Hornet answers); this node never has any.",
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
        "The treasury of a network without migration: the milestone ID of 32 zero bytes and amount 0, as every snapshot this node writes has it.",
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

export function registerTreasuryRoutes(app: FastifyInstance, _node: ApiNode): void {
  registerRoute(app, TREASURY_ROUTES.receipts, async (): Promise<ReceiptsJson> => ({ receipts: [] }));
  registerRoute(app, TREASURY_ROUTES.receiptsMigratedAt, async (request): Promise<ReceiptsJson> => {
    const raw = (request.params as { migratedAt: string }).migratedAt;
    if (Number(raw) > 0xffffffff) throw badRequest(`migratedAt: ${raw} exceeds u32`);
    return { receipts: [] };
  });
  registerRoute(app, TREASURY_ROUTES.treasury, async (): Promise<TreasuryJson> => ({ ...EMPTY_TREASURY }));
}
