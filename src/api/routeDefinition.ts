import type { FastifyInstance, RouteHandlerMethod, RouteShorthandOptions } from "fastify";
import { type ErrorStatus, responses, type Schema } from "./schemas/common.js";

/**
 * A REST route as data: method, path and the schemas of its parameters, query, body and
 * responses, plus the words of its OpenAPI operation. Each route module declares its routes
 * this way and turns them into fastify routes with `registerRoute`; the OpenAPI document is
 * generated from the same objects (@fastify/swagger reads them as fastify registers them), and
 * a unit test checks the published document against the routes fastify serves.
 */
export interface RouteDefinition {
  method: "GET" | "POST" | "DELETE";
  url: string;
  schema: {
    summary: string;
    description?: string;
    tags: string[];
    params?: Schema;
    querystring?: Schema;
    /** JSON schema of the body, or one per media type (`{content: {<type>: {schema}}}`). */
    body?: Schema;
    /** Status → schema, for every status the route answers with. */
    response: Record<number, Schema>;
    /** Security requirements the document lists (protected by default). */
    security?: Record<string, string[]>[];
  };
}

/**
 * Route option: answers serialized by JSON.stringify instead of the schema-driven serializer,
 * which escapes every string character by character. For answers of many hex strings (listings)
 * or open wire JSON, where V8's JSON.stringify is several times faster. The schema still
 * documents the answer (OpenAPI) and the route's tests check its shape.
 */
export const STRINGIFIED: Pick<RouteShorthandOptions, "serializerCompiler"> = {
  serializerCompiler: () => (data) => JSON.stringify(data),
};

/** Registers `definition` on `app` with `handler`; `options` adds route options (body parser limits, formatter). */
export function registerRoute(
  app: FastifyInstance,
  definition: RouteDefinition,
  handler: RouteHandlerMethod,
  options: Omit<RouteShorthandOptions, "schema"> = {},
): void {
  app.route({ ...options, method: definition.method, url: definition.url, schema: definition.schema, handler });
}

/**
 * A GET route: its path, the words and request schemas of its operation, the schema of its 200
 * answer and the error statuses it answers with (each in the spec's error shape).
 */
export function getRoute(
  url: string,
  operation: Omit<RouteDefinition["schema"], "response" | "body">,
  ok: Schema,
  errors: readonly ErrorStatus[],
): RouteDefinition {
  return { method: "GET", url, schema: { ...operation, response: responses({ 200: ok }, errors) } };
}
