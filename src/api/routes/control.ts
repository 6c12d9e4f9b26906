import type { FastifyInstance } from "fastify";
import { readPruningIndex } from "../../tangle/prune.js";
import { readLedgerIndex } from "../../tangle/tangle.js";
import type { ApiNode } from "../apiNode.js";
import { ApiError, badRequest, notFound } from "../errors.js";
import { BEARER_JWT } from "../openapi.js";
import { type RouteDefinition, registerRoute } from "../routeDefinition.js";
import { closedObject, integer, responses, string, Tag } from "../schemas/common.js";
import { shown } from "../validation.js";

/**
 * Control routes (protected by default: `control/*` needs a JWT, docs/decisions.md, Error bodies and Access).
 * Snapshot creation checks its request fully: `{index, type?}` with `index` a confirmed
 * milestone (1 ≤ index ≤ ledger index, not below the pruning horizon) and `type` "full"
 * (default) or "delta". Writing TIP-35 snapshot files is not part of this node yet, so a valid
 * request is refused with 500 and that reason, never with a made-up file.
 */

export const CONTROL_V2 = "/api/core/v2/control";

export interface SnapshotRequest {
  index: number;
  type: "full" | "delta";
}

/** Checks the shape of a snapshot request body. */
export function parseSnapshotRequest(body: unknown): SnapshotRequest {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw badRequest('the body must be a JSON object {"index": <milestone index>, "type"?: "full" | "delta"}');
  }
  const fields = body as Record<string, unknown>;
  for (const name of Object.keys(fields)) {
    if (name !== "index" && name !== "type") throw badRequest(`unknown field "${name}"`);
  }
  const { index, type } = fields;
  if (index === undefined) throw badRequest("index: missing");
  if (typeof index !== "number" || !Number.isInteger(index) || index < 1 || index > 0xffffffff) {
    throw badRequest(`index: expected a milestone index of at least 1, got ${shown(index)}`);
  }
  if (type !== undefined && type !== "full" && type !== "delta") {
    throw badRequest(`type: expected "full" or "delta", got ${shown(type)}`);
  }
  return { index, type: type ?? "full" };
}

const snapshotIndex = (what: string) => integer(what, 1, 0xffffffff);

export const CONTROL_ROUTES = {
  createSnapshot: {
    method: "POST",
    url: `${CONTROL_V2}/snapshot/create`,
    schema: {
      summary: "Create a snapshot (TIP-35) at a confirmed milestone",
      description:
        "A full snapshot by default, or a delta against the latest full one. 400 for an index that is 0 or newer than the confirmed milestone, 404 for one older than the pruning index.",
      tags: [Tag.Control],
      security: [{ [BEARER_JWT]: [] }],
      body: closedObject(
        {
          index: snapshotIndex("the milestone index of the snapshot"),
          type: { type: "string", enum: ["full", "delta"], description: "full (default) or delta" },
        },
        ["index"],
        "what to snapshot",
      ),
      response: responses(
        {
          200: closedObject(
            {
              index: snapshotIndex("the milestone index of the snapshot"),
              filePath: string("the path of the snapshot file"),
              fullIndex: snapshotIndex("the index of the full snapshot"),
              fullFilePath: string("the path of the full snapshot file"),
              deltaIndex: snapshotIndex("the index of the delta snapshot"),
              deltaFilePath: string("the path of the delta snapshot file"),
            },
            [],
            "the snapshot written: index and filePath, or the full* and delta* fields for a delta snapshot",
          ),
        },
        [400, 403, 404, 500],
      ),
    },
  },
} satisfies Record<string, RouteDefinition>;

export function registerControlRoutes(app: FastifyInstance, node: ApiNode): void {
  registerRoute(app, CONTROL_ROUTES.createSnapshot, async (request) => {
    const req = parseSnapshotRequest(request.body);
    const store = node.tangle.store;
    const confirmed = await readLedgerIndex(store);
    if (req.index > confirmed) {
      throw badRequest(`index ${req.index} is newer than the confirmed milestone ${confirmed}`);
    }
    const pruningIndex = await readPruningIndex(store);
    if (req.index < pruningIndex) {
      throw notFound(`milestone ${req.index} is older than the pruning index ${pruningIndex}`);
    }
    if (!node.snapshots) throw new ApiError(500, "this node has no snapshot writer");
    return node.snapshots.create({ index: req.index, type: req.type });
  });
}
