import { STATUS_MESSAGES } from "../errors.js";

/**
 * Building blocks of the route schemas. One schema object serves three purposes: fastify
 * validates requests with it (ajv, options in validation.ts), serializes responses with it
 * (fast-json-stringify, which drops every property a schema does not name, so open shapes say
 * `additionalProperties: true`), and @fastify/swagger turns it into the OpenAPI document.
 * Every helper returns a fresh object: fastify and its compilers may annotate what they get.
 */

/** A JSON schema as these modules write them (plain JSON, no classes). */
export type Schema = Record<string, unknown>;

/** Statuses a route answers with the error body. */
export type ErrorStatus = 400 | 403 | 404 | 500 | 503;

/** The tags that group the OpenAPI operations. */
export const Tag = {
  Node: "node",
  Core: "core v2",
  CoreV3: "core v3",
  Indexer: "indexer v1",
  Explorer: "explorer v2",
  Control: "control",
  Faucet: "faucet v1",
  Dashboard: "dashboard v1",
  Dev: "dev v1",
  IrcMetadata: "irc-metadata v1",
  Poi: "poi v1",
  Spammer: "spammer v1",
} as const;

/*
 * A string schema's `title` is the short form of what it takes; a refused value is answered
 * with "<field>: expected <title>, got <value>" (validation.ts). `description` says what it means.
 */

/** 0x-prefixed hex of exactly `bytes` bytes; `what` names it ("a block ID"). */
export function hexOfBytes(bytes: number, what: string): Schema {
  return patterned(`^0x[0-9a-fA-F]{${bytes * 2}}$`, `0x-prefixed hex of ${bytes} bytes`, what);
}

/** 0x-prefixed hex of any whole number of bytes (`minBytes` to `maxBytes`). */
export function hexString(what: string, minBytes = 0, maxBytes?: number): Schema {
  const count = `{${minBytes},${maxBytes ?? ""}}`;
  const size = maxBytes === undefined ? `at least ${minBytes} bytes` : `${minBytes} to ${maxBytes} bytes`;
  return patterned(`^0x(?:[0-9a-fA-F]{2})${count}$`, `0x-prefixed hex of ${size}`, what);
}

/** A decimal integer in a query string or path (values stay strings: no coercion). */
export function decimalString(what: string, maxDigits = 16): Schema {
  return patterned(`^[0-9]{1,${maxDigits}}$`, `a decimal integer of at most ${maxDigits} digits`, what);
}

/** A string of the form `pattern`, `title` saying it in words. */
export function patterned(pattern: string, title: string, description: string): Schema {
  return { type: "string", title, pattern, description };
}

export const integer = (description: string, minimum = 0, maximum?: number): Schema => ({
  type: "integer",
  minimum,
  ...(maximum === undefined ? {} : { maximum }),
  description,
});

export const string = (description: string): Schema => ({ type: "string", description });

export const arrayOf = (items: Schema, description: string): Schema => ({ type: "array", items, description });

/**
 * `properties` and `required` of an object schema whose answers keep their field order.
 * fast-json-stringify writes the required properties first, so only the leading run of
 * required properties (in `properties` order) is listed as `required`; a required property
 * after an optional one says "always present" in its description instead. OpenAPI 3.0 wants at
 * least one name in `required`, so an empty list is left out.
 */
function orderedProperties(properties: Record<string, Schema>, required: readonly string[]): Schema {
  const names = Object.keys(properties);
  let leading = 0;
  while (leading < names.length && required.includes(names[leading]!)) leading++;
  const out: Record<string, Schema> = {};
  names.forEach((name, i) => {
    const p = properties[name]!;
    out[name] =
      i >= leading && required.includes(name) ? { ...p, description: `${p.description ?? name} (always present)` } : p;
  });
  return { ...(leading === 0 ? {} : { required: names.slice(0, leading) }), properties: out };
}

/**
 * An object with exactly these properties (`required` among them), nothing else. Given the
 * TypeScript type of the answer (`closedObject<InfoJson>(...)`), the compiler insists that every
 * field of the type is described, so a field added to the answer cannot be dropped unseen.
 */
export function closedObject<T extends object = Record<string, unknown>>(
  properties: { [K in keyof T & string]-?: Schema },
  required: (keyof T & string)[],
  description?: string,
): Schema {
  return {
    type: "object",
    ...(description === undefined ? {} : { description }),
    ...orderedProperties(properties, required),
    additionalProperties: false,
  };
}

/**
 * An object whose named properties come first and whose other properties pass through as they
 * are: the open wire shapes (payloads, outputs) the codec owns. Properties are serialized in the
 * order named here, then the rest in the order of the object.
 */
export function openObject(properties: Record<string, Schema>, required: string[], description: string): Schema {
  return { type: "object", description, ...orderedProperties(properties, required), additionalProperties: true };
}

/**
 * The path parameters of a route. Unknown names cannot occur (the router names them), so the
 * object needs no closing.
 */
export function pathParams(properties: Record<string, Schema>): Schema {
  return { type: "object", required: Object.keys(properties), properties };
}

/**
 * The query parameters a route accepts; any other name is refused (400). `propertyNames` rather
 * than `additionalProperties: false`, because an ajv configured to remove additional properties
 * (fastify's default, when a route module is mounted on another instance) would drop unknown
 * names silently instead of refusing them.
 */
export function queryString(properties: Record<string, Schema>): Schema {
  const names = Object.keys(properties);
  return names.length === 0
    ? { type: "object", properties: {}, maxProperties: 0 }
    : { type: "object", properties, propertyNames: { enum: names } };
}

/** What each error status means on this API (the message is the spec's, verbatim). */
const ERROR_DESCRIPTIONS: Record<ErrorStatus, string> = {
  400: "the request is malformed or breaks a rule; error.details names the field and the reason",
  403: "the route is protected (send Authorization: Bearer <JWT>) or not exposed by this node",
  404: "the requested data does not exist",
  500: "an unexpected internal error; never caused by the request's content",
  503: "the node cannot serve the request now (not healthy, or proof of work needed but disabled)",
};

/** `{"error": {"code", "message", "details"}}` (docs/decisions.md, Error bodies and Access) for one status. */
export function errorResponse(status: ErrorStatus): Schema {
  return {
    description: `${STATUS_MESSAGES[status]}: ${ERROR_DESCRIPTIONS[status]}`,
    type: "object",
    required: ["error"],
    properties: {
      error: closedObject(
        {
          code: { type: "integer", enum: [status], description: "the HTTP status" },
          message: { type: "string", enum: [STATUS_MESSAGES[status]], description: "the spec's message" },
          details: string("the reason, in words"),
        },
        ["code", "message"],
      ),
    },
    additionalProperties: false,
  };
}

/** The response schemas of a route: its successes and the error statuses it can answer. */
export function responses(success: Record<number, Schema>, errors: readonly ErrorStatus[]): Record<number, Schema> {
  const out: Record<number, Schema> = { ...success };
  for (const status of errors) out[status] = errorResponse(status);
  return out;
}

/** Raw bytes in a media type (the TIP wire format); @fastify/swagger writes `format: binary`. */
export const binary = (description: string): Schema => ({ type: "string", contentEncoding: "binary", description });

/**
 * A request body of raw bytes: the content-type parser hands the route a Buffer, which a
 * `type: "string"` would refuse, so the schema states the encoding only (the OpenAPI document
 * adds the type, openapi.ts).
 */
export const binaryBody = (description: string): Schema => ({ contentEncoding: "binary", description });

/** A 200 that is JSON, or the raw bytes when the client's `Accept` prefers `mediaTypes`. */
export function jsonOrBinary(json: Schema, bytes: string, mediaTypes: readonly string[]): Schema {
  const content: Record<string, { schema: Schema }> = { "application/json": { schema: json } };
  for (const type of mediaTypes) content[type] = { schema: binary(bytes) };
  return { description: String(json.description ?? "the resource"), content };
}
