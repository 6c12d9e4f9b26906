import type { FastifyInstance, FastifyReply } from "fastify";
import { toHex } from "../../codec/hex.js";
import { OUTPUT_ID_LENGTH, splitOutputId } from "../../codec/ids.js";
import { decodeOutput, outputToJson } from "../../codec/outputs/output.js";
import {
  Bucket,
  decodeOutputRecord,
  decodeSpentRecord,
  idKey,
  type OutputRecord,
  type SpentRecord,
} from "../../storage/index.js";
import { readLedgerIndex, type Tangle } from "../../tangle/tangle.js";
import type { ApiNode } from "../apiNode.js";
import { notFound } from "../errors.js";
import type { OutputJsonResponse, OutputMetadataJson } from "../json/core.js";
import { CORE_V2, idParam, outputIdParams, sendBytes, wantsBinary } from "./coreParams.js";

/**
 * Output reads (TIP-25): the output with its metadata (or its raw bytes), or the metadata alone. An output is known
 * once a milestone booked it; spent ones stay readable with the spending transaction and
 * milestone. `ledgerIndex` is read after the output, so it is never older than what is shown.
 */

interface LedgerOutput {
  record: OutputRecord;
  spent: SpentRecord | undefined;
  ledgerIndex: number;
}

async function readOutput(tangle: Tangle, outputId: Uint8Array): Promise<LedgerOutput> {
  const store = tangle.store;
  const [rec, unspent, spent] = await store.getMany([
    idKey(Bucket.Output, outputId),
    idKey(Bucket.Unspent, outputId),
    idKey(Bucket.Spent, outputId),
  ]);
  if (!rec) throw notFound(`output ${toHex(outputId)} not found`);
  const ledgerIndex = await readLedgerIndex(store);
  return {
    record: decodeOutputRecord(rec),
    spent: unspent === undefined && spent !== undefined ? decodeSpentRecord(spent) : undefined,
    ledgerIndex,
  };
}

function metadataJson(outputId: Uint8Array, o: LedgerOutput): OutputMetadataJson {
  const { transactionId, outputIndex } = splitOutputId(outputId);
  const json: OutputMetadataJson = {
    blockId: toHex(o.record.blockId),
    transactionId: toHex(transactionId),
    outputIndex,
    isSpent: o.spent !== undefined,
    milestoneIndexBooked: o.record.bookedIndex,
    milestoneTimestampBooked: o.record.bookedTimestamp,
    ledgerIndex: o.ledgerIndex,
  };
  if (o.spent) {
    json.milestoneIndexSpent = o.spent.spentIndex;
    json.milestoneTimestampSpent = o.spent.spentTimestamp;
    json.transactionIdSpent = toHex(o.spent.transactionId);
  }
  return json;
}

export function registerOutputRoutes(app: FastifyInstance, node: ApiNode): void {
  app.get(
    `${CORE_V2}/outputs/:outputId`,
    { schema: { params: outputIdParams } },
    async (request, reply): Promise<OutputJsonResponse | FastifyReply> => {
      const outputId = idParam(request, "outputId", OUTPUT_ID_LENGTH);
      const o = await readOutput(node.tangle, outputId);
      // the binary form is the output alone (TIP-18 bytes), as Hornet serves it
      if (wantsBinary(request)) return sendBytes(reply, o.record.outputBytes);
      return { metadata: metadataJson(outputId, o), output: outputToJson(decodeOutput(o.record.outputBytes)) };
    },
  );

  app.get(
    `${CORE_V2}/outputs/:outputId/metadata`,
    { schema: { params: outputIdParams } },
    async (request): Promise<OutputMetadataJson> => {
      const outputId = idParam(request, "outputId", OUTPUT_ID_LENGTH);
      return metadataJson(outputId, await readOutput(node.tangle, outputId));
    },
  );
}
