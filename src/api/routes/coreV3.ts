import type { FastifyInstance } from "fastify";
import { fromHex, hexU32Le, toHex } from "../../codec/hex.js";
import { ID_LENGTH, OUTPUT_ID_LENGTH, outputIndexOf } from "../../codec/ids.js";
import { outputIdProofFromStored, outputIdProofJson } from "../../codec/outputIdProof.js";
import { decodeOutput } from "../../codec/outputs/output.js";
import { outputJsonText } from "../../codec/outputs/outputJsonText.js";
import { OutputType } from "../../codec/types.js";
import type { TangleView } from "../../tangle/tangleView.js";
import type { ApiNode } from "../apiNode.js";
import { ApiError, notFound } from "../errors.js";
import { JSON_CONTENT_TYPE } from "../httpConventions.js";
import { MilestoneAnswers } from "../milestoneAnswers.js";
import { getRoute, type RouteDefinition, registerRoute } from "../routeDefinition.js";
import { closedObject, hexOfBytes, integer, openObject, type Schema, string, Tag } from "../schemas/common.js";
import { blockId, outputIdParams, outputId as outputIdSchema, transactionId } from "../schemas/core.js";

/**
 * The `core/v3` full-output read (docs/decisions.md, The v3 output read): a Stardust output in the IOTA 2.0 shape
 * the interface asks for (v3 type codes, `mana`), the TIP-45-style proof of its output ID, and
 * its inclusion and spending as slots (milestone indexes) and commitments (confirmed milestones).
 */

export const CORE_V3 = "/api/core/v3";

/** Stardust output type → IOTA 2.0 output type (basic 0, account/alias 1, foundry 3, NFT 4). */
export const V3_OUTPUT_TYPES: Readonly<Record<number, number>> = {
  [OutputType.Basic]: 0,
  [OutputType.Alias]: 1,
  [OutputType.Foundry]: 3,
  [OutputType.Nft]: 4,
};

/** Commitment ID of a confirmed milestone: milestone ID ‖ index u32 LE (36 bytes, docs/decisions.md, Commitments). */
export function commitmentId(milestoneId: Uint8Array, index: number): string {
  return toHex(milestoneId) + hexU32Le(index);
}

/**
 * The commitment ID of milestone `index`, or undefined when its record is not stored (pruned).
 * Index 0 is the state before the first milestone, which has the zero milestone ID (as the
 * tangle names it before any milestone).
 */
function commitmentIdAt(tangle: TangleView, index: number): string | undefined {
  const id = stored("milestone record", () => tangle.milestoneIdAt(index));
  return id && commitmentId(id, index);
}

/** A stored value that does not decode is damage, not bad input: 500. */
function stored<T>(what: string, decode: () => T): T {
  try {
    return decode();
  } catch (e) {
    throw new ApiError(500, `the stored ${what} does not decode: ${(e as Error).message}`);
  }
}

const commitmentIdSchema = (what: string) =>
  hexOfBytes(36, `${what}: a commitment ID, the milestone ID and its index as u32 LE`);

/** Where an output was included or spent: a slot (milestone index) and its commitment. */
function ledgerEvent(what: string): Schema {
  return closedObject(
    {
      slot: integer(`the milestone index at which the output was ${what}`),
      transactionId: transactionId(),
      commitmentId: commitmentIdSchema(`the milestone that ${what} it (left out when pruned)`),
    },
    ["slot", "transactionId"],
    `the output was ${what}`,
  );
}

/** `{output, outputIdProof, metadata}` (docs/decisions.md, The v3 output read). */
function fullOutputSchema(): Schema {
  return closedObject(
    {
      output: openObject(
        {
          type: integer("the output type: 0 basic, 1 alias (account), 3 foundry, 4 NFT"),
          amount: string("the amount of base tokens, a decimal string"),
          mana: string('stored mana; "0" (this protocol has no mana)'),
        },
        ["type", "amount", "mana"],
        "the output in TIP-25 JSON with the IOTA 2.0 type code and mana",
      ),
      outputIdProof: closedObject(
        {
          slot: integer("the milestone index at which the output was booked"),
          outputIndex: integer("the index of the output in its transaction", 0, 127),
          transactionCommitment: hexOfBytes(32, "BLAKE2b-256 of the transaction essence without its outputs"),
          outputCommitmentProof: openObject(
            { type: integer("0 hashable node {l, r}, 1 leaf hash {hash}, 2 value hash {hash}", 0, 2) },
            ["type"],
            "the Merkle audit path of the output among the transaction's outputs (TIP-45 nodes)",
          ),
        },
        ["slot", "outputIndex", "transactionCommitment", "outputCommitmentProof"],
        "the proof of the output ID",
      ),
      metadata: closedObject(
        {
          outputId: outputIdSchema(),
          blockId: blockId(),
          included: ledgerEvent("included"),
          spent: ledgerEvent("spent"),
          latestCommitmentId: commitmentIdSchema("the latest confirmed milestone"),
        },
        ["outputId", "blockId", "included", "latestCommitmentId"],
        "the output's inclusion and spending",
      ),
    },
    ["output", "outputIdProof", "metadata"],
    "an output with the proof of its ID and its metadata",
  );
}

export const CORE_V3_ROUTES = {
  fullOutput: getRoute(
    `${CORE_V3}/outputs/:outputId/full`,
    { summary: "An output with the proof of its ID and its metadata", tags: [Tag.CoreV3], params: outputIdParams() },
    fullOutputSchema(),
    [400, 403, 404, 500],
  ),
} satisfies Record<string, RouteDefinition>;

/** `,"commitmentId":"0x…"` of milestone `index`, or nothing when its record is pruned. */
function commitmentField(tangle: TangleView, index: number): string {
  const id = commitmentIdAt(tangle, index);
  return id === undefined ? "" : `,"commitmentId":"${id}"`;
}

/**
 * `answers`: answers made at the latest milestone, kept by lower-case output ID, so an output
 * polled between two milestones is read and written once (milestoneAnswers.ts).
 */
export function registerCoreV3Routes(
  app: FastifyInstance,
  node: ApiNode,
  answers: MilestoneAnswers = new MilestoneAnswers(),
): void {
  // The latest milestone's commitment ID, which every read shows: made once per milestone.
  let latestCommitment = { index: -1, id: "" };
  const latestCommitmentId = (latest: { index: number; milestoneId: Uint8Array }): string => {
    if (latestCommitment.index !== latest.index) {
      latestCommitment = { index: latest.index, id: commitmentId(latest.milestoneId, latest.index) };
    }
    return latestCommitment.id;
  };
  registerRoute(
    app,
    CORE_V3_ROUTES.fullOutput,
    // synchronous throughout (point reads from LevelDB's caches, milestone IDs from memory):
    // no promise per request
    (request, reply) => {
      const raw = (request.params as { outputId?: unknown }).outputId;
      const tangle = node.tangle;
      // the ledger as of the tangle's latest milestone, which moves only after its batch is written
      const latest = tangle.latestMilestone;
      // an answer made at this milestone already: the same text (only answers of valid IDs are kept)
      const kept = typeof raw === "string" ? answers.get(latest, raw.toLowerCase()) : undefined;
      if (kept !== undefined) return reply.header("content-type", JSON_CONTENT_TYPE).send(kept);
      const outputId = fromHex(raw, "outputId", OUTPUT_ID_LENGTH);

      // 1. the output's record: its booking, its spending and the proof of its ID, in one
      // synchronous point read (served from LevelDB's caches it beats an async round trip)
      const record = node.db.outputs.getSync(outputId);
      if (!record) throw notFound(`output ${raw} not found`);
      // booked by a milestone whose batch is written but not yet taken in: not visible yet
      if (record.bookedIndex > latest.index) throw notFound(`output ${raw} not found`);
      const output = stored("output", () => decodeOutput(record.outputBytes));
      const v3Type = V3_OUTPUT_TYPES[output.type];
      if (v3Type === undefined) throw notFound(`output ${raw} is a treasury output, which has no core/v3 form`);

      // 2. the proof as booked with the creating transaction, or the genesis form without one
      const proof = stored("proof", () =>
        outputIdProofFromStored(record.bookedIndex, outputIndexOf(outputId), record.proof, record.outputBytes),
      );

      // 3. metadata as of the latest milestone: a spending newer than that is not shown yet
      const spent = record.spent;
      const spentJson =
        spent && spent.spentIndex <= latest.index
          ? `,"spent":{"slot":${spent.spentIndex},"transactionId":"${toHex(spent.transactionId)}"${commitmentField(tangle, spent.spentIndex)}}`
          : "";

      // The answer's text is assembled here: its own fields are integers and hex strings, which
      // JSON writes as they are, and the output's and the proof's JSON are written as text too
      // (outputJsonText, outputIdProofJson). The shape is the route's response schema
      // (fullOutputSchema): the output in TIP-25 JSON with the v3 type code and `mana`.
      const hexId = (raw as string).toLowerCase(); // fromHex took it: 0x and 68 hex digits
      const body =
        `{"output":${outputJsonText(output, v3Type, ',"mana":"0"')},` +
        `"outputIdProof":${outputIdProofJson(proof)},` +
        `"metadata":{"outputId":"${hexId}","blockId":"${toHex(record.blockId)}",` +
        `"included":{"slot":${record.bookedIndex},"transactionId":"${hexId.slice(0, 2 + 2 * ID_LENGTH)}"` +
        `${commitmentField(tangle, record.bookedIndex)}}${spentJson},` +
        `"latestCommitmentId":"${latestCommitmentId(latest)}"}}`;
      answers.set(latest, hexId, body);
      return reply.header("content-type", JSON_CONTENT_TYPE).send(body);
    },
  );
}
