import type { FastifyInstance } from "fastify";
import type { ApiNode } from "../apiNode.js";
import { ApiError, badRequest, notFound, unavailable } from "../errors.js";
import { BEARER_JWT } from "../openapi.js";
import { type RouteDefinition, registerRoute } from "../routeDefinition.js";
import { closedObject, integer, responses, string, Tag } from "../schemas/common.js";
import { shown } from "../validation.js";

/**
 * Control routes (protected by default: `control/*` needs a JWT, docs/decisions.md, Error bodies and Access).
 * Database pruning (`POST database/prune`, Hornet's `pruneDatabase`) takes `{index}` or
 * `{depth}`, hands the run to the node's background pruner and answers `{index}`, the pruning
 * index reached, once it has finished (docs/decisions.md, Snapshots).
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
  pruneDatabase: {
    method: "POST",
    url: `${CONTROL_V2}/database/prune`,
    schema: {
      summary: "Prune the database below a milestone",
      description:
        "Exactly one of index or depth. index: the new pruning index, the lowest milestone whose data stays (as info.status.pruningIndex reports it); depth: milestones kept below the ledger index (the new pruning index is the ledger index minus depth, as --prune-below keeps them). Deletes the blocks, milestones and ledger diffs below it and the outputs they spent, never unspent outputs or what their proofs need. At least belowMaxDepth + 1 milestones stay below the ledger index; an index above the ledger index or at or below the current pruning index is refused (400). Answers when the background pruner has finished, with the new pruning index; 503 while another requested pruning runs or when a snapshot being written holds the data.",
      tags: [Tag.Control],
      security: [{ [BEARER_JWT]: [] }],
      body: closedObject<PruneRequest>(
        {
          index: integer("the new pruning index: milestones below it are pruned", 1, 0xffffffff),
          depth: integer("milestones to keep below the ledger index", 0, 0xffffffff),
        },
        [],
        "what to prune: index or depth",
      ),
      response: responses(
        {
          200: closedObject<{ index: number }>(
            { index: integer("the new pruning index: the lowest milestone whose data is kept") },
            ["index"],
            "pruning done",
          ),
        },
        [400, 403, 500, 503],
      ),
    },
  },
} satisfies Record<string, RouteDefinition>;

export interface PruneRequest {
  index?: number;
  depth?: number;
}

/**
 * The pruning index a prune request asks for (the lowest milestone whose data stays, as
 * `info.status.pruningIndex` reports it), or 400 with the reason when the request would break
 * the node: fewer than `belowMaxDepth + 1` milestones kept below the ledger index (blocks may
 * still attach to them, and the solid entry points are computed from them), an index above the
 * ledger index, or nothing left to prune (at or below the current pruning index).
 */
export function pruneTarget(
  req: PruneRequest,
  at: { ledgerIndex: number; pruningIndex: number; belowMaxDepth: number },
): number {
  if ((req.index === undefined) === (req.depth === undefined)) {
    throw badRequest("give exactly one of index (the new pruning index) or depth (milestones to keep)");
  }
  const minKeep = at.belowMaxDepth + 1;
  let target: number;
  if (req.depth !== undefined) {
    if (req.depth < minKeep) {
      throw badRequest(
        `depth ${req.depth} keeps fewer than the ${minKeep} milestones below the ledger index the node needs (below max depth ${at.belowMaxDepth} + 1)`,
      );
    }
    target = at.ledgerIndex - req.depth;
    if (target < 1) {
      throw badRequest(`depth ${req.depth} keeps the whole history: the ledger index is ${at.ledgerIndex}`);
    }
  } else {
    target = req.index!;
    if (target > at.ledgerIndex) {
      throw badRequest(`index ${target} is above the ledger index ${at.ledgerIndex}`);
    }
    if (target > at.ledgerIndex - minKeep) {
      throw badRequest(
        `index ${target} keeps fewer than the ${minKeep} milestones below the ledger index ${at.ledgerIndex} the node needs: at most ${at.ledgerIndex - minKeep}`,
      );
    }
  }
  if (target <= at.pruningIndex) {
    throw badRequest(`nothing to prune: milestones below ${at.pruningIndex} are pruned already (target ${target})`);
  }
  return target;
}

export function registerControlRoutes(app: FastifyInstance, node: ApiNode): void {
  registerRoute(app, CONTROL_ROUTES.pruneDatabase, async (request): Promise<{ index: number }> => {
    const req = request.body as PruneRequest;
    if (!node.pruner) throw new ApiError(500, "this node has no pruner");
    const target = pruneTarget(req, {
      ledgerIndex: await node.db.nodeState.ledgerIndex(),
      pruningIndex: node.pruner.horizon,
      belowMaxDepth: node.tangle.protocolParameters.belowMaxDepth,
    });
    const reached = await node.pruner.request(target);
    if (reached < target) {
      throw unavailable(
        `pruned below ${reached} only: a snapshot being written needs the milestones from ${reached} on; try again when it is written`,
      );
    }
    return { index: reached };
  });

  registerRoute(app, CONTROL_ROUTES.createSnapshot, async (request) => {
    const req = parseSnapshotRequest(request.body);
    const nodeState = node.db.nodeState;
    const confirmed = await nodeState.ledgerIndex();
    if (req.index > confirmed) {
      throw badRequest(`index ${req.index} is newer than the confirmed milestone ${confirmed}`);
    }
    const pruningIndex = await nodeState.pruningIndex();
    if (req.index < pruningIndex) {
      throw notFound(`milestone ${req.index} is older than the pruning index ${pruningIndex}`);
    }
    if (!node.snapshots) throw new ApiError(500, "this node has no snapshot writer");
    return node.snapshots.create({ index: req.index, type: req.type });
  });
}
