import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { blockDraftFromJson, decodeBlock, MAX_BLOCK_LENGTH } from "../../codec/block.js";
import { concatBytes, fromHex, toHex } from "../../codec/hex.js";
import { expectObject } from "../../codec/json.js";
import { isPowError, minerPool, PowErrorCode, powDigest } from "../../pow/index.js";
import type { BlockDraft, Miner } from "../../tangle/blockCompletion.js";
import { takenBlock } from "../../tangle/intake.js";
import type { ApiNode } from "../apiNode.js";
import { badRequest, unavailable } from "../errors.js";
import type { BlockCreatedJson } from "../json/core.js";
import { type PowFailure, powObserverOf } from "../metrics/powObserver.js";
import { type RouteDefinition, registerRoute } from "../routeDefinition.js";
import { binaryBody, responses, Tag } from "../schemas/common.js";
import { blockCreated, blockSubmission } from "../schemas/core.js";
import { shown, validationErrorFormatter } from "../validation.js";
import { BINARY_MEDIA_TYPES, CORE_V2, MIME_SERIALIZER } from "./coreParams.js";

/**
 * `POST /api/core/v2/blocks` (TIP-25; docs/decisions.md, Block submission): a block as TIP-25
 * JSON or as raw bytes (`application/vnd.iota.serializer-v1`, alias
 * `application/vnd.node.serializer-v1`). The steps are ARCHITECTURE.md's (The life of a block).
 *
 * 1. Parse the body into a draft. `protocolVersion` is required and must be the network's;
 *    `payload` is optional; parents missing or empty (a parents count of 0 in bytes) are left to
 *    the intake's completion, which fills them by tip selection.
 * 2-4. The node's intake (src/tangle/intake.ts) completes the draft (syntax, known parents,
 *    none below max depth), decides duplicates, scores PoW once and, when a nonce is missing or 0
 *    and the score falls short, mines it here (`mineForClient`: its worker pool, to
 *    `minPowScore`; 503 when it has no workers), then stores and solidifies. Its verdict becomes
 *    the answer: accepted or already known → 201 `{blockId}` with
 *    `Location: /api/core/v2/blocks/<blockId>`; otherwise the error `verdictError` names, which
 *    src/api/errors.ts maps (not synced, a storage fault, a dev revert under way, a PoW failure →
 *    503; anything else → 400).
 */

const JSON_FIELDS = ["protocolVersion", "parents", "payload", "nonce"];

/** The largest binary body: a block's bytes as 0x-hex, with room for a line break. */
const BINARY_BODY_LIMIT = 2 * MAX_BLOCK_LENGTH + 64;

const rawBlock = () =>
  binaryBody(
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

function checkProtocolVersion(version: unknown, expected: number): void {
  if (version === undefined || version === null) throw badRequest("block.protocolVersion: is required");
  if (version !== expected) {
    throw badRequest(`block.protocolVersion: ${shown(version)} is not supported, this node runs ${expected}`);
  }
}

/**
 * Step 1 for a JSON body: the codec reads the block once its parents are known. Its length is
 * checked once it is encoded with its parents (validateBlockSyntax, in the intake's completion).
 */
function fromJsonBody(body: unknown, node: ApiNode): BlockDraft {
  const o = expectObject(body, "block", [], JSON_FIELDS);
  checkProtocolVersion(o.protocolVersion, node.tangle.protocolParameters.protocolVersion);
  const nonce = o.nonce === undefined || o.nonce === null ? "0" : o.nonce;
  const parentsGiven = Array.isArray(o.parents) ? o.parents.length > 0 : o.parents !== undefined && o.parents !== null;
  if (parentsGiven) return blockDraftFromJson({ ...o, nonce });
  // read now, with a stand-in parent, so the tips chosen later are set as they are, not hexed
  // and read back
  const block = blockDraftFromJson({ ...o, parents: [STAND_IN_PARENT], nonce });
  return (parents) => ({ ...block, parents });
}

const STAND_IN_PARENT = `0x${"00".repeat(32)}`;

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

/** Step 1 for raw bytes: a parents count of 0 means "fill them", as in JSON. */
function fromBinaryBody(raw: Uint8Array, node: ApiNode): BlockDraft {
  const body = blockBytesOfBody(raw);
  if (body.length === 0) throw badRequest("block: the body is empty");
  if (body.length > MAX_BLOCK_LENGTH) throw badRequest(`block: ${body.length} bytes, the limit is ${MAX_BLOCK_LENGTH}`);
  checkProtocolVersion(body[0], node.tangle.protocolParameters.protocolVersion);
  if (body.length >= 2 && body[1] === 0) {
    return (parents) => {
      const filled = concatBytes(Uint8Array.of(body[0]!, parents.length), ...parents, body.subarray(2));
      if (filled.length > MAX_BLOCK_LENGTH)
        throw badRequest(`block: with parents it exceeds ${MAX_BLOCK_LENGTH} bytes`);
      return decodeBlock(filled);
    };
  }
  return decodeBlock(body);
}

function parseSubmission(request: FastifyRequest, node: ApiNode): BlockDraft {
  const mediaType = (request.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  if (request.body === undefined || request.body === null) throw badRequest("block: the request has no body");
  if (mediaType === "")
    throw badRequest(`the request has no content type: send application/json or ${MIME_SERIALIZER}`);
  if (mediaType === "application/json") return fromJsonBody(request.body, node);
  if ((BINARY_MEDIA_TYPES as readonly string[]).includes(mediaType) && request.body instanceof Uint8Array) {
    return fromBinaryBody(request.body, node);
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
function mineForClient(node: ApiNode, reply: FastifyReply): Miner {
  return async (bytes, targetScore) => {
    const { powWorkers, powQueue = 16, powTimeoutMs = 60_000 } = node.options;
    const timeout = AbortSignal.timeout(powTimeoutMs);
    // the metrics' iota_restapi_pow_* (api/metrics/restApiMetrics.ts), when the app has them
    const observer = powObserverOf(reply.server);
    const started = performance.now();
    try {
      const nonce = await minerPool("clients").mine(powDigest(bytes), targetScore, bytes.length, {
        workers: powWorkers,
        signal: AbortSignal.any([abortOnDisconnect(reply), timeout]),
        maxJobs: powQueue,
      });
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
  };
}

export function registerSubmitBlockRoute(app: FastifyInstance, node: ApiNode): void {
  // A scope of its own, so its body parsers apply to this route only.
  void app.register(async (scope) => {
    // Raw blocks arrive as bytes (or hex text) and are handed on as they came; a body larger
    // than any block's hex is a 400.
    scope.addContentTypeParser(
      [...BINARY_MEDIA_TYPES],
      { parseAs: "buffer", bodyLimit: BINARY_BODY_LIMIT },
      (_r, body, done) => done(null, body),
    );
    // Any other media type reaches the handler, which names the ones it takes.
    scope.addContentTypeParser("*", { parseAs: "buffer" }, (_r, body, done) => done(null, body));

    registerRoute(
      scope,
      SUBMIT_BLOCK_ROUTE,
      async (request, reply): Promise<BlockCreatedJson> => {
        const draft = parseSubmission(request, node);
        const { blockId } = takenBlock(await node.intake.submitDraft(draft, "api", mineForClient(node, reply)));
        const id = toHex(blockId);
        void reply.code(201).header("location", `${CORE_V2}/blocks/${id}`);
        return { blockId: id };
      },
      // reasons name the body "block", as the codec does
      { schemaErrorFormatter: validationErrorFormatter("block") },
    );
  });
}
