import type { FastifyInstance } from "fastify";
import { decodeU32, NodeStateKey, nodeStateKey } from "../../storage/index.js";
import { readLedgerIndex } from "../../tangle/tangle.js";
import type { ApiNode } from "../apiNode.js";
import { ApiError, badRequest, notFound } from "../errors.js";

/**
 * Control routes (protected by default: `control/*` needs a JWT, DESIGN.md section 3).
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
    throw badRequest(`index: expected a milestone index of at least 1, got ${JSON.stringify(index)}`);
  }
  if (type !== undefined && type !== "full" && type !== "delta") {
    throw badRequest(`type: expected "full" or "delta", got ${JSON.stringify(type)}`);
  }
  return { index, type: type ?? "full" };
}

export function registerControlRoutes(app: FastifyInstance, node: ApiNode): void {
  app.post(`${CONTROL_V2}/snapshot/create`, async (request) => {
    const req = parseSnapshotRequest(request.body);
    const store = node.tangle.store;
    const confirmed = await readLedgerIndex(store);
    if (req.index > confirmed) {
      throw badRequest(`index ${req.index} is newer than the confirmed milestone ${confirmed}`);
    }
    const pruning = await store.get(nodeStateKey(NodeStateKey.PruningIndex));
    const pruningIndex = pruning ? decodeU32(pruning, "nodeState.pruningIndex") : 0;
    if (req.index < pruningIndex) {
      throw notFound(`milestone ${req.index} is older than the pruning index ${pruningIndex}`);
    }
    throw new ApiError(
      500,
      `the snapshot writer is not available yet: this node cannot write a ${req.type} snapshot at milestone ${req.index}`,
    );
  });
}
