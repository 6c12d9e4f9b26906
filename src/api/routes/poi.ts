import type { FastifyInstance } from "fastify";
import { ID_LENGTH } from "../../codec/ids.js";
import { inclusionProofToJson } from "../../codec/inclusionProof.js";
import { InclusionProofs, InclusionProofValidator } from "../../tangle/inclusionProof.js";
import type { ApiNode } from "../apiNode.js";
import type { PoiValidJson } from "../json/poi.js";
import { getRoute, type RouteDefinition, registerRoute, STRINGIFIED } from "../routeDefinition.js";
import { closedObject, responses, type Schema, Tag } from "../schemas/common.js";
import { blockIdParams, blockJson, milestonePayload } from "../schemas/core.js";
import { idParam } from "./coreParams.js";

/**
 * The routes of Hornet's inx-poi plugin (`/api/poi/v1`, its rest-api.yaml): a proof that a block
 * was confirmed, standing alone (the block, the milestone that referenced it, the Merkle audit
 * path from the block ID to the milestone's inclusion Merkle root), and its check against this
 * network's coordinator keys. Proofs made here validate on inx-poi and the other way round
 * (codec/inclusionProof.ts, tangle/inclusionProof.ts; docs/decisions.md, Proofs of inclusion).
 */

export const POI_V1 = "/api/poi/v1";

/**
 * Largest validate body: a proof holds at most a block and a milestone (each at most 32,768
 * bytes as bytes, about 2.5 times that as TIP-25 JSON, where hex doubles every byte and
 * signatures add field names) and an audit path of at most 65 nodes (about 5 KB): 256 KiB is
 * well above any real proof and a quarter of the API's general limit.
 */
export const POI_BODY_LIMIT = 256 * 1024;

/** One node of the audit path, as iota.go's merklehasher writes it (described, not recursed into). */
function proofNode(): Schema {
  return {
    type: "object",
    description:
      'a node of the audit path (iota.go merklehasher): an inner node {"l": <node>, "r": <node>}, the hash of a ' +
      'sibling subtree {"h": "0x<32 bytes>"}, or the proven block ID itself {"value": "0x<block ID>"}; at most ' +
      "32 levels deep and 65 nodes",
  };
}

const proofJson = (): Schema =>
  closedObject(
    { milestone: milestonePayload(), block: blockJson(), proof: proofNode() },
    ["milestone", "block", "proof"],
    "a proof of inclusion: the block, the milestone that referenced it and the audit path between them",
  );

export const POI_ROUTES = {
  create: getRoute(
    `${POI_V1}/create/:blockId`,
    {
      summary: "A proof of inclusion of a block",
      description:
        "The block, the milestone that referenced it and the Merkle audit path from the block ID to the milestone's " +
        "inclusionMerkleRoot (TIP-4, over every block the milestone referenced in white-flag order, conflicting ones " +
        "included), checkable offline against the coordinator's public keys. 400: a malformed block ID, or a block " +
        "no milestone references yet (as inx-poi answers); 404: a block the node does not have (never seen, or " +
        "pruned) or whose milestone is pruned; 503: the trees of other milestones are being built (ask again shortly).",
      tags: [Tag.Poi],
      params: blockIdParams(),
    },
    proofJson(),
    [400, 403, 404, 500, 503],
  ),
  validate: {
    method: "POST",
    url: `${POI_V1}/validate`,
    schema: {
      summary: "Checks a proof of inclusion",
      description:
        "`{valid: true}` when the proof's path holds the block's ID, hashes to the milestone's inclusionMerkleRoot and " +
        "the milestone carries the threshold of valid signatures by this network's coordinator keys (of its protocol " +
        "version); else `{valid: false}`. A proof made by inx-poi validates here. 400: a body that is not a proof " +
        `(shape, unknown fields, malformed hex, a tree deeper than 32 levels or over 65 nodes, over ${POI_BODY_LIMIT} bytes).`,
      tags: [Tag.Poi],
      body: closedObject(
        {
          milestone: { type: "object", description: "the milestone payload in TIP-25 JSON (checked by the codec)" },
          block: { type: "object", description: "the block in TIP-25 JSON (checked by the codec)" },
          proof: proofNode(),
        },
        ["milestone", "block", "proof"],
        "a proof of inclusion as `create` answers it",
      ),
      response: responses(
        {
          200: closedObject<PoiValidJson>(
            { valid: { type: "boolean", description: "whether the proof shows the block confirmed" } },
            ["valid"],
            "the verdict",
          ),
        },
        [400, 403, 500],
      ),
    },
  },
} satisfies Record<string, RouteDefinition>;

export function registerPoiRoutes(app: FastifyInstance, node: ApiNode): void {
  // read at each request: a dev revert builds the tangle anew (trees are kept by milestone ID)
  const proofs = new InclusionProofs(() => node.tangle);
  const validator = new InclusionProofValidator(() => ({
    keys: node.milestoneKeys,
    protocolVersion: node.tangle.protocolParameters.protocolVersion,
  }));

  registerRoute(
    app,
    POI_ROUTES.create,
    async (request) => inclusionProofToJson(await proofs.create(idParam(request, "blockId", ID_LENGTH))),
    STRINGIFIED,
  );

  registerRoute(
    app,
    POI_ROUTES.validate,
    async (request): Promise<PoiValidJson> => {
      const verdict = validator.validate(request.body);
      if (!verdict.valid) request.log.debug({ reason: verdict.reason }, "proof of inclusion not valid");
      return { valid: verdict.valid };
    },
    { bodyLimit: POI_BODY_LIMIT },
  );
}
