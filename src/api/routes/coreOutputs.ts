import type { FastifyInstance, FastifyReply } from "fastify";
import { toHex } from "../../codec/hex.js";
import { OUTPUT_ID_LENGTH, splitOutputId } from "../../codec/ids.js";
import { decodeOutput, outputToJson } from "../../codec/outputs/output.js";
import type { OutputRecord } from "../../storage/index.js";
import type { ApiNode } from "../apiNode.js";
import { notFound } from "../errors.js";
import type { OutputJsonResponse, OutputMetadataJson } from "../json/core.js";
import { getRoute, type RouteDefinition, registerRoute } from "../routeDefinition.js";
import { jsonOrBinary, Tag } from "../schemas/common.js";
import { outputIdParams, outputMetadata, outputWithMetadata } from "../schemas/core.js";
import { CORE_V2, idParam, MIME_SERIALIZER, READ_ERRORS, sendBytes, wantsBinary } from "./coreParams.js";

/**
 * Output reads (TIP-25): the output with its metadata (or its raw bytes), or the metadata alone. An output is known
 * once a milestone booked it; spent ones stay readable with the spending transaction and
 * milestone. `ledgerIndex` is read after the output, so it is never older than what is shown.
 */

interface LedgerOutput {
  record: OutputRecord;
  ledgerIndex: number;
}

async function readOutput(node: ApiNode, outputId: Uint8Array): Promise<LedgerOutput> {
  const record = await node.db.outputs.get(outputId);
  if (!record) throw notFound(`output ${toHex(outputId)} not found`);
  return { record, ledgerIndex: await node.db.nodeState.ledgerIndex() };
}

/** An output's metadata as the output routes (and the event API's output topics) answer it. */
export function outputMetadataJson(
  outputId: Uint8Array,
  record: OutputRecord,
  ledgerIndex: number,
): OutputMetadataJson {
  const { transactionId, outputIndex } = splitOutputId(outputId);
  const json: OutputMetadataJson = {
    blockId: toHex(record.blockId),
    transactionId: toHex(transactionId),
    outputIndex,
    isSpent: record.spent !== undefined,
    milestoneIndexBooked: record.bookedIndex,
    milestoneTimestampBooked: record.bookedTimestamp,
    ledgerIndex,
  };
  const spent = record.spent;
  if (spent) {
    json.milestoneIndexSpent = spent.spentIndex;
    json.milestoneTimestampSpent = spent.spentTimestamp;
    json.transactionIdSpent = toHex(spent.transactionId);
  }
  return json;
}

export const OUTPUT_ROUTES = {
  output: getRoute(
    `${CORE_V2}/outputs/:outputId`,
    { summary: "An output with its metadata, or its raw bytes", tags: [Tag.Core], params: outputIdParams() },
    jsonOrBinary(outputWithMetadata(), `the output's bytes alone (TIP-18) when Accept prefers ${MIME_SERIALIZER}`, [
      MIME_SERIALIZER,
    ]),
    READ_ERRORS,
  ),
  outputMetadata: getRoute(
    `${CORE_V2}/outputs/:outputId/metadata`,
    { summary: "The metadata of an output", tags: [Tag.Core], params: outputIdParams() },
    outputMetadata(),
    READ_ERRORS,
  ),
} satisfies Record<string, RouteDefinition>;

export function registerOutputRoutes(app: FastifyInstance, node: ApiNode): void {
  registerRoute(app, OUTPUT_ROUTES.output, async (request, reply): Promise<OutputJsonResponse | FastifyReply> => {
    const outputId = idParam(request, "outputId", OUTPUT_ID_LENGTH);
    const o = await readOutput(node, outputId);
    // the binary form is the output alone (TIP-18 bytes), as Hornet serves it
    if (wantsBinary(request)) return sendBytes(reply, o.record.outputBytes);
    return {
      metadata: outputMetadataJson(outputId, o.record, o.ledgerIndex),
      output: outputToJson(decodeOutput(o.record.outputBytes)),
    };
  });

  registerRoute(app, OUTPUT_ROUTES.outputMetadata, async (request): Promise<OutputMetadataJson> => {
    const outputId = idParam(request, "outputId", OUTPUT_ID_LENGTH);
    const o = await readOutput(node, outputId);
    return outputMetadataJson(outputId, o.record, o.ledgerIndex);
  });
}
