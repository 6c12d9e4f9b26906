import type { FastifyInstance, FastifyRequest } from "fastify";
import { errors as joseErrors, jwtVerify, SignJWT } from "jose";
import type { ApiNode } from "./apiNode.js";
import { badRequest, forbidden } from "./errors.js";

/**
 * Access control of the HTTP API (docs/decisions.md, Error bodies and Access), after Hornet's `publicRoutes` /
 * `protectedRoutes`: each route is public or protected by path patterns, matched on the path
 * only (never the query), case-insensitively, where `*` stands for any run of characters.
 *
 * - A path that matches a protected pattern needs `Authorization: Bearer <JWT>`; protected
 *   patterns win over public ones, so adding a protected pattern always closes a route.
 * - Otherwise a path that matches a public pattern is open to anyone.
 * - Any other path is not exposed: 403, as Hornet does.
 *
 * The JWT is HS256 with the node's secret (kept in its data directory), subject
 * `JWT_SUBJECT`, and always carries an expiry; `npm start -- token` prints one.
 */

export interface ApiAuthOptions {
  /** Patterns of routes anyone may call. */
  publicRoutes: string[];
  /** Patterns of routes that need a valid JWT; they take precedence over `publicRoutes`. */
  protectedRoutes: string[];
}

/**
 * Everything is public except the control routes, peer management, the metrics and the spammer
 * (the one list: node/options.ts takes its defaults from here).
 */
export const defaultApiAuthOptions: ApiAuthOptions = {
  publicRoutes: ["/*"],
  protectedRoutes: ["/api/core/v2/control/*", "/api/core/v2/peers*", "/metrics", "/api/spammer/v1/*"],
};

/** The `sub` claim of the node's API tokens. */
export const JWT_SUBJECT = "ledger-node";

/** Lifetime of a token when the caller names none (jose time span syntax). */
export const DEFAULT_TOKEN_LIFETIME = "30d";

export type RouteAccess = "public" | "protected" | "hidden";

/** Compiles a pattern to an anchored, case-insensitive regular expression. */
function compilePattern(pattern: string): RegExp {
  const escaped = pattern
    .toLowerCase()
    .split("*")
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${escaped}$`);
}

/** Decides the access of paths against a fixed set of patterns. */
export class RouteAccessPolicy {
  private readonly publicRoutes: RegExp[];
  private readonly protectedRoutes: RegExp[];

  constructor(options: ApiAuthOptions) {
    this.publicRoutes = options.publicRoutes.map(compilePattern);
    this.protectedRoutes = options.protectedRoutes.map(compilePattern);
  }

  /** Access of one normalized path (lower case, decoded, no query). */
  access(path: string): RouteAccess {
    if (this.protectedRoutes.some((r) => r.test(path))) return "protected";
    if (this.publicRoutes.some((r) => r.test(path))) return "public";
    return "hidden";
  }

  /** The stricter access of two spellings of one request (its path and its route pattern). */
  stricter(a: RouteAccess, b: RouteAccess): RouteAccess {
    if (a === "protected" || b === "protected") return "protected";
    if (a === "hidden" || b === "hidden") return "hidden";
    return "public";
  }
}

/**
 * The patterns protected by default that `options` leave open to anyone. `--protected-routes`
 * replaces its default list, as Hornet's `protectedRoutes` does: an operator who gives only the
 * route they meant to add opens the control routes, peers, metrics and the spammer (the start
 * warns, cli/main.ts).
 */
export function openedDefaultRoutes(options: ApiAuthOptions): string[] {
  const policy = new RouteAccessPolicy(options);
  // a pattern's own text with its wildcards empty is a path it matches
  return defaultApiAuthOptions.protectedRoutes.filter((p) => policy.access(p.replaceAll("*", "")) === "public");
}

/**
 * The path as the router sees it: the query cut off, percent-escapes decoded (the router decodes
 * them too, so `/api/core/v2/%63ontrol/...` must not slip past a pattern), repeated slashes
 * folded, lower case. A path that cannot be decoded is bad input.
 */
export function normalizePath(url: string): string {
  const q = url.indexOf("?");
  const raw = q < 0 ? url : url.slice(0, q);
  // the common path has neither escapes nor repeated slashes: only its case to fold
  if (raw.indexOf("%") < 0 && raw.indexOf("//") < 0) return raw.toLowerCase();
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    throw badRequest("the request path has a malformed percent-escape");
  }
  return decoded.replace(/\/{2,}/g, "/").toLowerCase();
}

/** Issues an API token: HS256, subject `JWT_SUBJECT`, expiring after `expiresIn` (e.g. "7d", "12h"). */
export async function issueApiToken(secret: Uint8Array, expiresIn: string | number = DEFAULT_TOKEN_LIFETIME) {
  return new SignJWT({})
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(JWT_SUBJECT)
    .setIssuedAt()
    .setExpirationTime(expiresIn)
    .sign(secret);
}

/** Why a token is refused, in words for the `details` of the 403; undefined when it is valid. */
export async function checkApiToken(secret: Uint8Array, token: string): Promise<string | undefined> {
  try {
    await jwtVerify(token, secret, { algorithms: ["HS256"], subject: JWT_SUBJECT, requiredClaims: ["exp"] });
    return undefined;
  } catch (e) {
    if (e instanceof joseErrors.JWTExpired) return "the token has expired";
    if (e instanceof joseErrors.JWSSignatureVerificationFailed) return "the token is not signed by this node";
    if (e instanceof joseErrors.JWTClaimValidationFailed) return `the token's claims are not accepted (${e.claim})`;
    if (e instanceof joseErrors.JOSEAlgNotAllowed) return "the token is not signed with HS256";
    return "the token is malformed";
  }
}

/** The bearer token of a request, or the reason there is none. */
function bearerToken(request: FastifyRequest): { token: string } | { reason: string } {
  const header = request.headers.authorization;
  if (header === undefined || header === "")
    return { reason: "the route is protected: send Authorization: Bearer <JWT>" };
  const m = /^bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) return { reason: "the Authorization header is not of the form Bearer <JWT>" };
  return { token: m[1]! };
}

/**
 * A CORS preflight: `OPTIONS` with `Access-Control-Request-Method` (Fetch standard). A browser
 * sends it without credentials, so it can never carry the JWT of the route it asks about; it
 * reads nothing and is answered with the CORS headers alone (httpConventions.ts).
 */
function isPreflight(request: FastifyRequest): boolean {
  return request.method === "OPTIONS" && request.headers["access-control-request-method"] !== undefined;
}

/**
 * Installs the access check as an `onRequest` hook, so it runs before every route registered
 * after it (and before the not-found handler): call it before registering routes. The hook is
 * synchronous (no promise per request) except where a token must be verified. Preflights pass:
 * refusing one would close a protected route to browsers even with a JWT.
 */
export function registerAuth(app: FastifyInstance, node: ApiNode, options: ApiAuthOptions = defaultApiAuthOptions) {
  const policy = new RouteAccessPolicy(options);
  // route patterns are few and fixed: their access is decided once each
  const patternAccess = new Map<string, RouteAccess>();
  app.addHook("onRequest", (request, _reply, done) => {
    // the CORS hook answers preflights before this one runs; this holds whatever the order
    if (isPreflight(request)) return done();
    let access: RouteAccess;
    try {
      access = policy.access(normalizePath(request.url));
    } catch (e) {
      done(e as Error);
      return;
    }
    // The matched route's own pattern too: what the router matched is what must be guarded.
    const pattern = request.routeOptions.url;
    if (pattern !== undefined) {
      let routeAccess = patternAccess.get(pattern);
      if (routeAccess === undefined) {
        routeAccess = policy.access(pattern.toLowerCase());
        patternAccess.set(pattern, routeAccess);
      }
      access = policy.stricter(access, routeAccess);
    }
    if (access === "public") return done();
    if (access === "hidden") return done(forbidden("the route is not exposed by this node"));
    const bearer = bearerToken(request);
    if ("reason" in bearer) return done(forbidden(bearer.reason));
    checkApiToken(node.jwtSecret, bearer.token).then(
      (refused) => done(refused === undefined ? undefined : forbidden(refused)),
      (e: Error) => done(e),
    );
  });
}
