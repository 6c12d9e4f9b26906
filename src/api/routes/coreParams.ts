import type { FastifyReply, FastifyRequest } from "fastify";
import { fromHex } from "../../codec/hex.js";
import { badRequest } from "../errors.js";
import { MIME_SERIALIZER, MIME_SERIALIZER_ALIAS } from "../json/mediaTypes.js";

/**
 * What the core routes share: the base path, the binary media types, reading the path
 * parameters their schemas checked (schemas/core.ts: an ID is 0x-hex of its exact length, else
 * 400 before the handler runs) and content negotiation of the `Accept` header.
 */

export const CORE_V2 = "/api/core/v2";

export { MIME_SERIALIZER, MIME_SERIALIZER_ALIAS };
export const BINARY_MEDIA_TYPES = [MIME_SERIALIZER, MIME_SERIALIZER_ALIAS] as const;

/** Reads a path parameter the schema has checked (fromHex still guards a route without one). */
export function idParam(request: FastifyRequest, name: string, bytes: number): Uint8Array {
  return fromHex((request.params as Record<string, unknown>)[name], name, bytes);
}

export function parseMilestoneIndex(request: FastifyRequest): number {
  const raw = (request.params as { index?: unknown }).index;
  if (typeof raw !== "string" || !/^[0-9]{1,10}$/.test(raw)) throw badRequest("index: expected a milestone index");
  const index = Number(raw);
  if (index > 0xffffffff) throw badRequest(`index: ${raw} exceeds u32`);
  return index;
}

/**
 * Whether the client asks for the binary form: the `Accept` header names a serializer media type
 * with a higher (or equal, and earlier) preference than JSON. Anything else gets JSON.
 */
export function wantsBinary(request: FastifyRequest): boolean {
  const header = request.headers.accept;
  if (!header) return false;
  let binary = -1;
  let json = -1;
  header.split(",").forEach((entry, position) => {
    const [type, ...params] = entry.split(";").map((s) => s.trim().toLowerCase());
    const q = params.find((p) => p.startsWith("q="));
    const weight = q ? Number(q.slice(2)) : 1;
    // rank by weight, then by position (earlier wins on equal weight)
    const rank = Number.isFinite(weight) && weight > 0 ? weight * 1000 - position : -1;
    if ((BINARY_MEDIA_TYPES as readonly string[]).includes(type ?? "")) binary = Math.max(binary, rank);
    else if (type === "application/json") json = Math.max(json, rank);
  });
  return binary >= 0 && binary > json;
}

/** Answers with raw wire bytes in the serializer media type. */
export function sendBytes(reply: FastifyReply, bytes: Uint8Array): FastifyReply {
  return reply.type(MIME_SERIALIZER).send(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
}

/** The error statuses of a read by ID: bad ID, not public, not found, the node's failure. */
export const READ_ERRORS = [400, 403, 404, 500] as const;
