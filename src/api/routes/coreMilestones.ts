import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { decodeBlock } from "../../codec/block.js";
import { toHex } from "../../codec/hex.js";
import { ID_LENGTH } from "../../codec/ids.js";
import type { JsonObject } from "../../codec/json.js";
import { encodePayload, payloadToJson } from "../../codec/payload.js";
import { type MilestonePayload, PayloadType } from "../../codec/types.js";
import type { Repositories } from "../../storage/index.js";
import type { ApiNode } from "../apiNode.js";
import { notFound } from "../errors.js";
import type { UtxoChangesJson } from "../json/core.js";
import { getRoute, type RouteDefinition, registerRoute } from "../routeDefinition.js";
import { jsonOrBinary, Tag } from "../schemas/common.js";
import {
  milestoneIdParams,
  milestoneIndexParams,
  milestonePayload as milestonePayloadSchema,
  utxoChanges as utxoChangesSchema,
} from "../schemas/core.js";
import {
  CORE_V2,
  idParam,
  MIME_SERIALIZER,
  parseMilestoneIndex,
  READ_ERRORS,
  sendBytes,
  wantsBinary,
} from "./coreParams.js";

/**
 * Milestone reads (TIP-25, TIP-29): the milestone payload by ID or index, as JSON or as the raw
 * payload bytes (type included), and the outputs the milestone created and consumed (its
 * ledger diff, white-flag order).
 */

async function indexOfMilestoneId(db: Repositories, milestoneId: Uint8Array): Promise<number> {
  const index = await db.milestoneIndexes.get(milestoneId);
  if (index === undefined) throw notFound(`milestone ${toHex(milestoneId)} not found`);
  return index;
}

async function milestonePayload(node: ApiNode, index: number): Promise<MilestonePayload> {
  const record = await node.db.milestones.get(index);
  if (!record) throw notFound(`milestone ${index} not found`);
  const bytes = await node.tangle.getBlockBytes(record.blockId);
  const payload = bytes && decodeBlock(bytes).payload;
  if (payload?.type !== PayloadType.Milestone) throw notFound(`the block of milestone ${index} is not stored`);
  return payload;
}

async function utxoChanges(db: Repositories, index: number): Promise<UtxoChangesJson> {
  const diff = await db.ledgerDiffs.get(index);
  if (!diff) throw notFound(`no ledger diff for milestone ${index}`);
  return { index, createdOutputs: diff.created.map(toHex), consumedOutputs: diff.consumed.map(toHex) };
}

function sendMilestone(request: FastifyRequest, reply: FastifyReply, payload: MilestonePayload) {
  if (wantsBinary(request)) return sendBytes(reply, encodePayload(payload));
  return payloadToJson(payload);
}

const milestoneOrBytes = () =>
  jsonOrBinary(
    milestonePayloadSchema(),
    `the milestone payload's bytes, type included (TIP-29), when Accept prefers ${MIME_SERIALIZER}`,
    [MIME_SERIALIZER],
  );

export const MILESTONE_ROUTES = {
  byId: getRoute(
    `${CORE_V2}/milestones/:milestoneId`,
    { summary: "A milestone payload by milestone ID", tags: [Tag.Core], params: milestoneIdParams() },
    milestoneOrBytes(),
    READ_ERRORS,
  ),
  utxoChangesById: getRoute(
    `${CORE_V2}/milestones/:milestoneId/utxo-changes`,
    {
      summary: "The outputs a milestone created and consumed, by milestone ID",
      tags: [Tag.Core],
      params: milestoneIdParams(),
    },
    utxoChangesSchema(),
    READ_ERRORS,
  ),
  byIndex: getRoute(
    `${CORE_V2}/milestones/by-index/:index`,
    { summary: "A milestone payload by index", tags: [Tag.Core], params: milestoneIndexParams() },
    milestoneOrBytes(),
    READ_ERRORS,
  ),
  utxoChangesByIndex: getRoute(
    `${CORE_V2}/milestones/by-index/:index/utxo-changes`,
    {
      summary: "The outputs a milestone created and consumed, by index",
      tags: [Tag.Core],
      params: milestoneIndexParams(),
    },
    utxoChangesSchema(),
    READ_ERRORS,
  ),
} satisfies Record<string, RouteDefinition>;

export function registerMilestoneRoutes(app: FastifyInstance, node: ApiNode): void {
  const byId = async (request: FastifyRequest) =>
    indexOfMilestoneId(node.db, idParam(request, "milestoneId", ID_LENGTH));

  registerRoute(
    app,
    MILESTONE_ROUTES.byId,
    async (request, reply): Promise<JsonObject | FastifyReply> =>
      sendMilestone(request, reply, await milestonePayload(node, await byId(request))),
  );

  registerRoute(app, MILESTONE_ROUTES.utxoChangesById, async (request) => utxoChanges(node.db, await byId(request)));

  registerRoute(
    app,
    MILESTONE_ROUTES.byIndex,
    async (request, reply): Promise<JsonObject | FastifyReply> =>
      sendMilestone(request, reply, await milestonePayload(node, parseMilestoneIndex(request))),
  );

  registerRoute(app, MILESTONE_ROUTES.utxoChangesByIndex, async (request) =>
    utxoChanges(node.db, parseMilestoneIndex(request)),
  );
}
