import type { FastifySchemaValidationError } from "fastify";

/** The part of a request a schema checked (fastify's names). */
type SchemaErrorDataVar = "body" | "headers" | "params" | "querystring";
type SchemaErrorFormatter = (errors: FastifySchemaValidationError[], dataVar: SchemaErrorDataVar) => Error;

/**
 * How the route schemas validate requests, and the words a failed check answers with.
 *
 * The validator takes the request as sent: no type coercion (a JSON `"2"` is not the integer 2,
 * and query values stay strings, checked by patterns), no defaults filled in and no unknown
 * properties silently removed, so a schema only ever accepts or refuses and the handler sees the
 * bytes the client sent. `verbose` lets a reason quote the offending value and the schema's
 * title (the short form of what it takes). Validation stops at the first failure
 * (`allErrors: false`, fastify's defence against costly inputs).
 */
export const AJV_OPTIONS = {
  coerceTypes: false,
  useDefaults: false,
  removeAdditional: false,
  allErrors: false,
  verbose: true,
} as const;

/** An ajv error as `verbose` reports it. */
interface VerboseError extends FastifySchemaValidationError {
  data?: unknown;
  parentSchema?: { title?: string; description?: string };
  /** Set on the errors of a `propertyNames` check: the refused name. */
  propertyName?: string;
}

/**
 * A value of the request as a reason may quote it: strings shortened, structures only named, so
 * a reason never walks (or echoes) a deep or huge input.
 */
export function shown(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  if (typeof value === "string") return JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value);
  return String(value);
}

const article = (type: string) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);

/**
 * The label of the value at an ajv instance path, in the codec's field notation:
 * `/parents/0` under root `block` is `block.parents[0]`. With an empty root, top-level fields are
 * named bare (`index`) and the root itself `fallback`.
 */
function label(root: string, instancePath: string, fallback: string): string {
  let out = root;
  for (const raw of instancePath.split("/").slice(1)) {
    const part = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    out += /^[0-9]+$/.test(part) ? `[${part}]` : out === "" ? part : `.${part}`;
  }
  return out === "" ? fallback : out;
}

/** The reason of one failed check, in the words the handlers use for the same mistakes. */
export function validationReason(error: FastifySchemaValidationError, dataVar: SchemaErrorDataVar, root = ""): string {
  const e = error as VerboseError;
  const query = dataVar === "querystring";
  const at = label(root, e.instancePath, dataVar === "body" ? "body" : dataVar);
  const child = (name: string) => label(root, `${e.instancePath}/${name}`, name);
  const params = e.params as Record<string, unknown>;

  if (e.propertyName !== undefined || e.keyword === "propertyNames") {
    const name = e.propertyName ?? String(params.propertyName);
    return query ? `unknown query parameter "${name}"` : `${child(name)}: unknown field`;
  }
  switch (e.keyword) {
    case "additionalProperties":
      return query
        ? `unknown query parameter "${String(params.additionalProperty)}"`
        : `${child(String(params.additionalProperty))}: unknown field`;
    case "maxProperties":
      if (query && params.limit === 0) {
        const name = typeof e.data === "object" && e.data !== null ? Object.keys(e.data)[0] : undefined;
        return name === undefined ? "this route takes no query parameters" : `unknown query parameter "${name}"`;
      }
      break;
    case "required":
      return `${child(String(params.missingProperty))}: is required`;
    case "type":
      if (query && Array.isArray(e.data)) return `query parameter "${at}" is given more than once`;
      return `${at}: expected ${article(String(params.type))}, got ${shown(e.data)}`;
    case "enum":
      return `${at}: expected one of ${(params.allowedValues as unknown[]).join(", ")}, got ${shown(e.data)}`;
  }
  // a schema's `title` is the short form of what it takes ("0x-prefixed hex of 32 bytes")
  const expected = e.parentSchema?.title;
  if (expected !== undefined && (e.keyword === "pattern" || e.keyword === "format")) {
    return `${at}: expected ${expected}, got ${shown(e.data)}`;
  }
  return `${at}: ${e.message ?? "is not valid"}`;
}

/**
 * Turns a failed validation into the error the error handler answers 400 with (errors.ts);
 * `root` names the body in reasons (`block` for a submitted block), as the codec does.
 */
export function validationErrorFormatter(root = ""): SchemaErrorFormatter {
  return (errors, dataVar) => {
    const first = errors[0];
    return new Error(first ? validationReason(first, dataVar, root) : `the ${dataVar} is not valid`);
  };
}
