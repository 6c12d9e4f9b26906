import { fastifyCompress } from "@fastify/compress";
import { fastifyCors } from "@fastify/cors";
import {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
  LogController,
} from "fastify";

/**
 * What every server of this API does as a production node's HTTP server does (Hornet's
 * `components/restapi`: echo's CORS middleware always on, gzip on by default, the request
 * logger off unless asked for): cross-origin access, compressed answers, request logs at debug.
 *
 * The two plugins are applied to the instance at once, as `installOpenApi` does and for the same
 * reason: compression hooks itself into each route as the route is added (an `onRoute` hook), and
 * the route modules add their routes synchronously, before a registered plugin would load. Applied
 * in `createApp` before anything else, the CORS hook also runs before every other hook, the access
 * check (auth.ts) included.
 */

/** The content type fastify gives a serialized JSON answer; a route that writes its JSON text itself sends it too. */
export const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

/** Which web pages (origins) may call the API from a browser. */
export interface ApiCorsOptions {
  /**
   * Origins allowed to read answers (`scheme://host[:port]`), or `*` for any. An empty list
   * allows none: browsers then refuse cross-origin answers, other clients are unaffected.
   */
  origins: string[];
}

/** Any origin, as Hornet: the API holds public ledger data and the protected routes need a JWT, never a cookie. */
export const defaultApiCorsOptions: ApiCorsOptions = { origins: ["*"] };

/**
 * The methods a page may use: those of Hornet's CORS middleware (echo's default list), a superset
 * of the API's routes (GET with HEAD, POST, DELETE), so a route of a new method needs no change here.
 */
const CORS_METHODS = ["GET", "HEAD", "PUT", "PATCH", "POST", "DELETE"];

/**
 * The request headers a cross-origin caller may send beyond the CORS-safelisted ones: the JWT of
 * the protected routes and the content type of a JSON or binary block (iota.js sends both).
 */
const CORS_ALLOWED_HEADERS = ["Authorization", "Content-Type"];

/** Answer headers a browser script may read beyond the safelisted ones: where a submitted block is (201). */
const CORS_EXPOSED_HEADERS = ["Location"];

/**
 * Bodies smaller than this are sent as they are: compressing a few hundred bytes saves less than
 * the CPU and the headers cost (an error body, a block's metadata, the node info).
 */
export const COMPRESSION_THRESHOLD = 1024;

/**
 * Bodies up to this size are compressed in one synchronous call rather than through a zlib
 * stream. The plugin's default on two cores is 8 KiB, but a stream costs far more than the
 * compression itself: an 11 KB listing gzipped took 2,575 answers/s through streams and 6,727/s
 * inline (7,597/s uncompressed), a 110 KB one 925/s and 1,140/s. Inline, 128 KiB of JSON full
 * of hex IDs holds the event loop for about 2 ms (gzip; brotli at quality 4 a little less);
 * larger bodies go through a stream, compressed on the thread pool.
 */
export const COMPRESSION_INLINE_LIMIT = 128 * 1024;

/**
 * Cross-origin resource sharing with @fastify/cors: every answer names the allowed origin
 * (`*`, or the caller's origin when it is listed; nothing for an origin not listed), and a
 * preflight (`OPTIONS` with `Access-Control-Request-Method`) is answered 204 by the hook, before
 * routing, the body checks or the access check run, so protected and unknown paths get their
 * preflight too (a browser sends it without the JWT). An `OPTIONS` request that is no preflight
 * gets the same empty 204, as from Hornet, rather than the plugin's plain-text 400, so no answer
 * leaves the error shape.
 */
export function allowCrossOrigin(app: FastifyInstance, options: ApiCorsOptions = defaultApiCorsOptions): void {
  // a single string would be sent to every caller as it is; a list is matched against the
  // caller's origin, and a list holding `*` is `*`
  const origin = options.origins.includes("*") ? "*" : [...options.origins];
  fastifyCors(
    app,
    {
      origin,
      methods: CORS_METHODS,
      allowedHeaders: CORS_ALLOWED_HEADERS,
      exposedHeaders: CORS_EXPOSED_HEADERS,
      strictPreflight: false,
    },
    (error) => {
      if (error) throw error;
    },
  );
}

/**
 * Compressed answers with @fastify/compress, as the client's `Accept-Encoding` asks: brotli
 * (quality 4, the plugin's default), gzip or deflate, for JSON and text bodies of at least
 * `COMPRESSION_THRESHOLD` bytes. A client that sends no `Accept-Encoding` gets every answer as
 * before. Binary block bodies (`application/vnd.iota.serializer-v1`) are not a compressible type
 * and go out as they are: Ed25519 signatures and hashes do not compress. Request bodies are never
 * decompressed (docs/decisions.md, HTTP API: a compressed body is refused by name).
 */
export function compressResponses(app: FastifyInstance): void {
  fastifyCompress(
    app,
    {
      encodings: ["br", "gzip", "deflate"],
      threshold: COMPRESSION_THRESHOLD,
      syncThreshold: COMPRESSION_INLINE_LIMIT,
      globalDecompression: false,
    },
    (error) => {
      if (error) throw error;
    },
  );
}

/**
 * Fastify's per-request log lines at debug instead of info (docs/decisions.md, HTTP API): a
 * request arriving and completing, a route not found, a client closing a stream early. An
 * operator's info log then holds what the node does, not who asked what.
 * Failures keep their level: an answer that failed (error), headers that could not be written
 * (warn). At a level above debug pino's debug is a no-op, so requests cost no logging work
 * (at info the node's server spent 60 µs of CPU on `GET info` and 67 µs on a short explorer
 * page, against 73 µs each with the two lines written).
 */
export class DebugRequestLog extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, "incoming request");
  }

  override requestCompleted(error: Error | null, request: FastifyRequest, reply: FastifyReply): void {
    if (error)
      reply.log.error(
        { res: reply, err: error, responseTime: reply.elapsedTime, ...requestIdOf(request) },
        "request errored",
      );
    else request.log.debug({ res: reply, responseTime: reply.elapsedTime }, "request completed");
  }

  override routeNotFound(request: FastifyRequest): void {
    request.log.debug(`Route ${request.raw.method}:${request.raw.url} not found`);
  }

  override streamError(error: Error & { code?: string }, request: FastifyRequest, reply: FastifyReply): void {
    if (error.code === "ERR_STREAM_PREMATURE_CLOSE") request.log.debug({ res: reply }, "stream closed prematurely");
    else super.streamError(error, request, reply);
  }
}

/** The levels at which the request lines of `DebugRequestLog` are written. */
const REQUEST_LINE_LEVELS = new Set(["debug", "trace"]);

/**
 * Each request's logger (`request.log`): a child bound to the request's ID when the request's
 * own lines are written (`DebugRequestLog`, at debug) or its route sets a level of its own;
 * otherwise the server's logger itself. A pino child per request cost about 2 µs of a 30 µs
 * answer (docs/performance.md, Reads over HTTP) for lines never written; the lines a request
 * writes above debug, its failures, name its request ID themselves (`requestIdOf`). The level is
 * read per request, so a level changed while the node runs takes effect at once.
 */
export const requestLogger: NonNullable<FastifyServerOptions["childLoggerFactory"]> = (logger, bindings, options) => {
  if (options.level === undefined && !REQUEST_LINE_LEVELS.has(logger.level)) return logger;
  return logger.child(bindings, options);
};

/**
 * The request's ID as a field of a line it writes above debug, when its logger does not carry it
 * already (`requestLogger` gives it the server's logger): one `reqId` per line either way.
 */
export function requestIdOf(request: FastifyRequest): { reqId?: string } {
  return request.log === request.server.log ? { reqId: request.id } : {};
}
