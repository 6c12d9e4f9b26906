import type { FastifyInstance, FastifyReply } from "fastify";
import { blockToJson, decodeBlock, parentsOfBlockBytes } from "../../codec/block.js";
import { toHex } from "../../codec/hex.js";
import { ID_LENGTH } from "../../codec/ids.js";
import type { JsonObject } from "../../codec/json.js";
import { PayloadType } from "../../codec/types.js";
import type { Repositories } from "../../storage/index.js";
import type { TangleView } from "../../tangle/tangleView.js";
import type { ApiNode } from "../apiNode.js";
import { notFound } from "../errors.js";
import { type BlockMetadataJson, LEDGER_INCLUSION_STATES } from "../json/core.js";
import { getRoute, type RouteDefinition, registerRoute } from "../routeDefinition.js";
import { jsonOrBinary, Tag } from "../schemas/common.js";
import {
  blockIdParams,
  blockJson,
  blockMetadata as blockMetadataSchema,
  transactionIdParams,
} from "../schemas/core.js";
import { CORE_V2, idParam, MIME_SERIALIZER, READ_ERRORS, sendBytes, wantsBinary } from "./coreParams.js";

/**
 * Block reads: the block (TIP-25 JSON, or its raw bytes when the client accepts the serializer
 * media type), its metadata, and the block that included a transaction in the ledger.
 */

async function blockBytes(tangle: TangleView, blockId: Uint8Array): Promise<Uint8Array> {
  const bytes = await tangle.getBlockBytes(blockId);
  if (!bytes) throw notFound(`block ${toHex(blockId)} not found`);
  return bytes;
}

/**
 * Hornet's advice for a solid block no milestone references yet, from its cone root indexes and
 * the confirmed milestone index (CMI): below max depth (OCRI more than `belowMaxDepth` behind) →
 * reattach; YCRI or OCRI beyond the tip selection's deltas → promote; else neither.
 */
function tipAdvice(tangle: TangleView, blockId: Uint8Array): { promote: boolean; reattach: boolean } {
  const cmi = tangle.latestMilestone.index;
  const cri = tangle.coneRootIndexes(blockId);
  if (!cri || cmi - cri.ocri > tangle.protocolParameters.belowMaxDepth) return { promote: false, reattach: true };
  const tips = tangle.options.tipPool;
  if (cmi - cri.ycri > tips.maxDeltaYoungestConeRoot || cmi - cri.ocri > tips.maxDeltaOldestConeRoot) {
    return { promote: true, reattach: false };
  }
  return { promote: false, reattach: false };
}

/** TIP-25 block metadata, with Hornet's optional fields. */
export async function blockMetadata(tangle: TangleView, blockId: Uint8Array): Promise<BlockMetadataJson> {
  const bytes = await blockBytes(tangle, blockId);
  const meta = await tangle.getMetadata(blockId);
  if (!meta) throw notFound(`metadata of block ${toHex(blockId)} not found`);
  const json: BlockMetadataJson = {
    blockId: toHex(blockId),
    parents: parentsOfBlockBytes(bytes).map(toHex),
    isSolid: await tangle.isSolid(blockId),
  };
  if (meta.referencedByMilestoneIndex > 0) json.referencedByMilestoneIndex = meta.referencedByMilestoneIndex;
  if (meta.milestone) {
    const payload = decodeBlock(bytes).payload;
    if (payload?.type === PayloadType.Milestone) json.milestoneIndex = payload.index;
  }
  if (meta.referencedByMilestoneIndex > 0) {
    json.ledgerInclusionState = LEDGER_INCLUSION_STATES[meta.inclusionState] ?? "noTransaction";
    if (json.ledgerInclusionState === "conflicting") json.conflictReason = meta.conflictReason;
    json.whiteFlagIndex = meta.whiteFlagIndex;
  } else if (json.isSolid) {
    const advice = tipAdvice(tangle, blockId);
    json.shouldPromote = advice.promote;
    json.shouldReattach = advice.reattach;
  }
  return json;
}

/** Sends a stored block as TIP-25 JSON or, when asked for, as its raw bytes. */
export function sendBlock(reply: FastifyReply, bytes: Uint8Array, binary: boolean): FastifyReply | JsonObject {
  if (binary) return sendBytes(reply, bytes);
  return blockToJson(decodeBlock(bytes));
}

/** The block that included a transaction in the ledger (TransactionBlock bucket). */
async function includingBlockId(db: Repositories, transactionId: Uint8Array): Promise<Uint8Array> {
  const record = await db.transactionBlocks.get(transactionId);
  if (!record) throw notFound(`transaction ${toHex(transactionId)} is not included in the ledger`);
  return record.blockId;
}

const blockOrBytes = () =>
  jsonOrBinary(blockJson(), `the block's bytes (TIP-24) when Accept prefers ${MIME_SERIALIZER}`, [MIME_SERIALIZER]);

export const BLOCK_ROUTES = {
  block: getRoute(
    `${CORE_V2}/blocks/:blockId`,
    { summary: "A block, as JSON or raw bytes", tags: [Tag.Core], params: blockIdParams() },
    blockOrBytes(),
    READ_ERRORS,
  ),
  blockMetadata: getRoute(
    `${CORE_V2}/blocks/:blockId/metadata`,
    { summary: "The metadata of a block", tags: [Tag.Core], params: blockIdParams() },
    blockMetadataSchema(),
    READ_ERRORS,
  ),
  includedBlock: getRoute(
    `${CORE_V2}/transactions/:transactionId/included-block`,
    { summary: "The block that included a transaction in the ledger", tags: [Tag.Core], params: transactionIdParams() },
    blockOrBytes(),
    READ_ERRORS,
  ),
  includedBlockMetadata: getRoute(
    `${CORE_V2}/transactions/:transactionId/included-block/metadata`,
    {
      summary: "The metadata of the block that included a transaction",
      tags: [Tag.Core],
      params: transactionIdParams(),
    },
    blockMetadataSchema(),
    READ_ERRORS,
  ),
} satisfies Record<string, RouteDefinition>;

export function registerBlockRoutes(app: FastifyInstance, node: ApiNode): void {
  // read at each request: a dev revert builds the tangle anew
  const tangle = () => node.tangle;

  registerRoute(app, BLOCK_ROUTES.block, async (request, reply) => {
    const blockId = idParam(request, "blockId", ID_LENGTH);
    return sendBlock(reply, await blockBytes(tangle(), blockId), wantsBinary(request));
  });

  registerRoute(app, BLOCK_ROUTES.blockMetadata, async (request) =>
    blockMetadata(tangle(), idParam(request, "blockId", ID_LENGTH)),
  );

  registerRoute(app, BLOCK_ROUTES.includedBlock, async (request, reply) => {
    const blockId = await includingBlockId(node.db, idParam(request, "transactionId", ID_LENGTH));
    return sendBlock(reply, await blockBytes(tangle(), blockId), wantsBinary(request));
  });

  registerRoute(app, BLOCK_ROUTES.includedBlockMetadata, async (request) =>
    blockMetadata(tangle(), await includingBlockId(node.db, idParam(request, "transactionId", ID_LENGTH))),
  );
}
