import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { blockFromJson, decodeBlock, encodeBlock, MAX_BLOCK_LENGTH } from "../../codec/block.js";
import { concatBytes, fromHex, toHex } from "../../codec/hex.js";
import { expectObject } from "../../codec/json.js";
import { validateBlockSyntax } from "../../codec/syntactic.js";
import { type Block, PayloadType } from "../../codec/types.js";
import { isPowError, minerPool, PowErrorCode, powDigest, powScore, withNonce } from "../../pow/index.js";
import { IgnoreReason, type IntakeVerdict } from "../../tangle/intake.js";
import type { ApiNode } from "../apiNode.js";
import { badRequest, unavailable } from "../errors.js";
import type { BlockCreatedJson } from "../json/core.js";
import { type PowFailure, powObserverOf } from "../metrics/powObserver.js";
import { type RouteDefinition, registerRoute } from "../routeDefinition.js";
import { binary, responses, Tag } from "../schemas/common.js";
import { blockCreated, blockSubmission } from "../schemas/core.js";
import { shown, validationErrorFormatter } from "../validation.js";
import { BINARY_MEDIA_TYPES, CORE_V2, MIME_SERIALIZER } from "./coreParams.js";

/**
 * `POST /api/core/v2/blocks` (TIP-25; docs/decisions.md, Block submission): a block as TIP-25
 * JSON or as raw bytes (`application/vnd.iota.serializer-v1`, alias
 * `application/vnd.node.serializer-v1`).
 *
 * 1. Parse. `protocolVersion` is required and must be the network's; `payload` is optional.
 * 2. Parents missing or empty → tip selection. A client that names no parents cannot have done
 *    PoW over them, so a non-zero nonce without parents is refused (as Hornet does).
 * 3. Syntactic rules (TIP-24 and the payload's TIP), and every named parent must be known here.
 * 4. Nonce missing or 0 and the PoW score short → the node mines (its worker pool, to
 *    `minPowScore`; 503 when it has no workers). A non-zero nonce is never re-mined, and a
 *    milestone block keeps nonce 0 (the coordinator's signature stands in for PoW).
 * 5. The node's intake (src/tangle/intake.ts): PoW score or coordinator signature, store,
 *    solidify. Its verdict becomes the answer: accepted or already known → 201 `{blockId}` with
 *    `Location: /api/core/v2/blocks/<blockId>`; not synced → 503; rejected or a stale milestone → 400.
 *    The intake is asked first whether it would take a client's block at all, so nothing is
 *    mined for a node that is behind.
 */

const JSON_FIELDS = ["protocolVersion", "parents", "payload", "nonce"];

/** The largest binary body: a block's bytes as 0x-hex, with room for a line break. */
const BINARY_BODY_LIMIT = 2 * MAX_BLOCK_LENGTH + 64;

const rawBlock = () =>
  binary(
    `the block's bytes (TIP-24), or the same bytes as one 0x-hex string; a parents count of 0 means "fill them"; at most ${MAX_BLOCK_LENGTH} bytes`,
  );

export const SUBMIT_BLOCK_ROUTE = {
  method: "POST",
  url: `${CORE_V2}/blocks`,
  schema: {
    summary: "Submit a block",
    description:
      "Takes a block as TIP-25 JSON or as raw bytes. Missing or empty parents are filled by tip selection; a missing or zero nonce is mined to the network's minimum PoW score when the score falls short. The block is stored and solidified; milestones confirm it later.",
    tags: [Tag.Core],
    body: {
      content: {
        "application/json": { schema: blockSubmission() },
        ...Object.fromEntries(BINARY_MEDIA_TYPES.map((type) => [type, { schema: rawBlock() }])),
      },
    },
    response: responses({ 201: blockCreated() }, [400, 403, 500, 503]),
  },
} satisfies RouteDefinition;

/** A submitted block before its parents (and maybe its nonce) are filled. */
interface Submission {
  /** The block with parents filled, nonce as sent (0 when missing). */
  block: Block;
  /** Whether the client named parents. */
  parentsGiven: boolean;
}

function checkProtocolVersion(version: unknown, expected: number): void {
  if (version === undefined || version === null) throw badRequest("block.protocolVersion: is required");
  if (version !== expected) {
    throw badRequest(`block.protocolVersion: ${shown(version)} is not supported, this node runs ${expected}`);
  }
}

/** Step 1-2 for a JSON body: the codec reads the block once the node's fields are filled in. */
function fromJsonBody(body: unknown, node: ApiNode): Submission {
  const o = expectObject(body, "block", [], JSON_FIELDS);
  checkProtocolVersion(o.protocolVersion, node.tangle.protocolParameters.protocolVersion);
  const parentsGiven = Array.isArray(o.parents) ? o.parents.length > 0 : o.parents !== undefined && o.parents !== null;
  const parents = parentsGiven ? o.parents : node.tangle.selectParents().map(toHex);
  const nonce = o.nonce === undefined || o.nonce === null ? "0" : o.nonce;
  const block = blockFromJson({ ...o, parents, nonce });
  return { block, parentsGiven };
}

/**
 * The body of a serializer media type: the raw block bytes, or the same bytes as one 0x-hex
 * string (the interface document calls the body "a string"). The two cannot be confused: a raw
 * block starting with the bytes of "0x" would carry protocol version 0x30.
 */
function blockBytesOfBody(body: Uint8Array): Uint8Array {
  if (body.length >= 2 && body[0] === 0x30 && body[1] === 0x78) {
    return fromHex(new TextDecoder().decode(body).trim(), "block");
  }
  return body;
}

/** Step 1-2 for raw bytes: a parents count of 0 means "fill them", as in JSON. */
function fromBinaryBody(raw: Uint8Array, node: ApiNode): Submission {
  const body = blockBytesOfBody(raw);
  if (body.length === 0) throw badRequest("block: the body is empty");
  if (body.length > MAX_BLOCK_LENGTH) throw badRequest(`block: ${body.length} bytes, the limit is ${MAX_BLOCK_LENGTH}`);
  checkProtocolVersion(body[0], node.tangle.protocolParameters.protocolVersion);
  if (body.length >= 2 && body[1] === 0) {
    const parents = node.tangle.selectParents();
    const filled = concatBytes(Uint8Array.of(body[0]!, parents.length), ...parents, body.subarray(2));
    if (filled.length > MAX_BLOCK_LENGTH) throw badRequest(`block: with parents it exceeds ${MAX_BLOCK_LENGTH} bytes`);
    return { block: decodeBlock(filled), parentsGiven: false };
  }
  return { block: decodeBlock(body), parentsGiven: true };
}

function parseSubmission(request: FastifyRequest, node: ApiNode): Submission {
  const mediaType = (request.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  if (request.body === undefined || request.body === null) throw badRequest("block: the request has no body");
  if (mediaType === "")
    throw badRequest(`the request has no content type: send application/json or ${MIME_SERIALIZER}`);
  if (mediaType === "application/json") return fromJsonBody(request.body, node);
  if ((BINARY_MEDIA_TYPES as readonly string[]).includes(mediaType) && typeof request.body === "string") {
    return fromBinaryBody(new Uint8Array(Buffer.from(request.body, "latin1")), node);
  }
  throw badRequest(`unsupported content type "${mediaType}": send application/json or ${MIME_SERIALIZER}`);
}

/** Aborts the node's PoW when the client goes away before the answer. */
function abortOnDisconnect(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once("close", () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller.signal;
}

/** Why mining a client's block failed, in the words of the PoW metrics. */
function powFailure(e: unknown, timedOut: boolean): PowFailure {
  if (timedOut) return "timeout";
  if (isPowError(e, PowErrorCode.Busy)) return "busy";
  if (isPowError(e, PowErrorCode.Aborted)) return "aborted";
  if (isPowError(e, PowErrorCode.Disabled)) return "disabled";
  return "error";
}

/**
 * The node mines a client's block only within bounds: at most `powQueue` blocks mined or
 * waiting, each for at most `powTimeoutMs`; beyond either the answer is 503 with the reason,
 * as the spec allows when the node cannot do the PoW (docs/decisions.md, Threats). Its own
 * blocks are mined in a pool of their own and never wait behind these.
 */
async function mineForClient(node: ApiNode, bytes: Uint8Array, reply: FastifyReply): Promise<bigint> {
  const { powWorkers, powQueue = 16, powTimeoutMs = 60_000 } = node.options;
  const timeout = AbortSignal.timeout(powTimeoutMs);
  // the metrics' iota_restapi_pow_* (api/metrics/restApiMetrics.ts), when the app has them
  const observer = powObserverOf(reply.server);
  const started = performance.now();
  try {
    const nonce = await minerPool("clients").mine(
      powDigest(bytes),
      node.tangle.protocolParameters.minPowScore,
      bytes.length,
      { workers: powWorkers, signal: AbortSignal.any([abortOnDisconnect(reply), timeout]), maxJobs: powQueue },
    );
    observer?.completed(bytes.length, (performance.now() - started) / 1000);
    return nonce;
  } catch (e) {
    observer?.failed(powFailure(e, timeout.aborted));
    if (timeout.aborted) {
      throw unavailable(`proof of work took longer than ${powTimeoutMs} ms; send the block with a nonce`);
    }
    if (isPowError(e, PowErrorCode.Busy)) {
      throw unavailable(`the node's proof-of-work queue is full (${e.message}); retry later or send a nonce`);
    }
    throw e;
  }
}

/**
 * Steps 3-4: syntax, known parents, PoW. Returns the bytes to accept and the block they encode
 * (already checked, so the submit path does not decode and validate it again).
 */
async function completeBlock(
  node: ApiNode,
  submission: Submission,
  reply: FastifyReply,
): Promise<{ bytes: Uint8Array; block: Block }> {
  const { block, parentsGiven } = submission;
  const tangle = node.tangle;
  const params = tangle.protocolParameters;
  const isMilestone = block.payload?.type === PayloadType.Milestone;
  if (!parentsGiven && block.nonce !== 0n && !isMilestone) {
    throw badRequest("block.nonce: a non-zero nonce needs the parents it was mined over");
  }
  let bytes = encodeBlock(block);
  validateBlockSyntax(block, params, { byteLength: bytes.length });
  for (const [i, parent] of block.parents.entries()) {
    if (!tangle.isSolidEntryPoint(parent) && !(await tangle.hasBlock(parent))) {
      throw badRequest(`block.parents[${i}]: block ${toHex(parent)} is not known to this node`);
    }
    // a block on a cone below max depth could never be confirmed (docs/decisions.md, Threats)
    if (await tangle.isBelowMaxDepth(parent)) {
      throw badRequest(
        `block.parents[${i}]: block ${toHex(parent)} is below max depth (more than ${params.belowMaxDepth} milestones old); take parents from the tips route`,
      );
    }
  }
  if (isMilestone || block.nonce !== 0n || params.minPowScore === 0) return { bytes, block };
  if (powScore(bytes) >= params.minPowScore) return { bytes, block };
  const nonce = await mineForClient(node, bytes, reply);
  bytes = withNonce(bytes, nonce);
  return { bytes, block: { ...block, nonce } };
}

/** The ID of an accepted or already known block; any other verdict is the error it answers with. */
function blockIdOf(verdict: IntakeVerdict): Uint8Array {
  if (verdict.kind === "accepted") return verdict.blockId;
  if (verdict.kind === "ignored" && verdict.reason === IgnoreReason.Duplicate) return verdict.blockId!;
  throw verdictError(verdict);
}

/** Not synced or a database refusing writes → 503; rejected (codec, syntax, PoW, signature) or a stale milestone → 400. */
function verdictError(verdict: IntakeVerdict): Error {
  if (
    verdict.kind === "ignored" &&
    (verdict.reason === IgnoreReason.NotSynced || verdict.reason === IgnoreReason.StorageFault)
  )
    return unavailable(verdict.details);
  return badRequest(verdict.kind === "accepted" ? "accepted" : verdict.details);
}

export function registerSubmitBlockRoute(app: FastifyInstance, node: ApiNode): void {
  // A scope of its own, so its body parsers apply to this route only.
  void app.register(async (scope) => {
    // Raw blocks arrive as bytes (or hex text); a body larger than any block's hex is a 400. The
    // bytes are handed on as a latin1 string (one character per byte, lossless), which is what
    // the schema describes: a binary string.
    scope.addContentTypeParser(
      [...BINARY_MEDIA_TYPES],
      { parseAs: "buffer", bodyLimit: BINARY_BODY_LIMIT },
      (_r, body, done) => done(null, (body as Buffer).toString("latin1")),
    );
    // Any other media type reaches the handler, which names the ones it takes.
    scope.addContentTypeParser("*", { parseAs: "buffer" }, (_r, body, done) => done(null, body));

    registerRoute(
      scope,
      SUBMIT_BLOCK_ROUTE,
      async (request, reply): Promise<BlockCreatedJson> => {
        const refused = node.intake.refusal("api");
        if (refused) throw verdictError(refused);
        const submission = parseSubmission(request, node);
        const { bytes, block } = await completeBlock(node, submission, reply);
        const verdict = await node.intake.submit(bytes, "api", block);
        const blockId = blockIdOf(verdict);
        const id = toHex(blockId);
        void reply.code(201).header("location", `${CORE_V2}/blocks/${id}`);
        return { blockId: id };
      },
      // reasons name the body "block", as the codec does
      { schemaErrorFormatter: validationErrorFormatter("block") },
    );
  });
}
