import type { Socket } from "node:net";
import type { FastifyError, FastifyInstance, FastifyRequest } from "fastify";
import { isCodecError } from "../codec/errors.js";
import { isNetworkError, NetworkErrorCode } from "../network/errors.js";
import { isPowError, PowErrorCode } from "../pow/errors.js";
import { SnapshotError, SnapshotErrorCode } from "../snapshot/errors.js";
import { BlockError } from "../tangle/errors.js";

/**
 * The one place where errors become HTTP answers (DESIGN.md section 3). Every error body is
 * `{"error": {"code": <status>, "message": <spec text>, "details": <reason>}}`; bad input of any
 * kind (malformed JSON, wrong content type, huge bodies, codec and syntactic errors) is a 400,
 * never a 500, and a 500 never carries a stack trace.
 */

/** The spec's message for each status, verbatim. */
export const STATUS_MESSAGES: Record<number, string> = {
  400: "invalid data provided",
  403: "not available for public use",
  404: "could not find data",
  500: "internal server error",
  503: "service unavailable",
};

export class ApiError extends Error {
  constructor(
    readonly status: 400 | 403 | 404 | 500 | 503,
    readonly details: string,
  ) {
    super(details);
    this.name = "ApiError";
  }
}

export const badRequest = (details: string) => new ApiError(400, details);
export const forbidden = (details = "the route is protected: send a valid JWT as Authorization: Bearer <token>") =>
  new ApiError(403, details);
export const notFound = (details: string) => new ApiError(404, details);
export const unavailable = (details: string) => new ApiError(503, details);

export interface ErrorBody {
  error: { code: number; message: string; details?: string };
}

export function errorBody(status: number, details?: string): ErrorBody {
  return {
    error: { code: status, message: STATUS_MESSAGES[status] ?? STATUS_MESSAGES[500]!, ...(details ? { details } : {}) },
  };
}

const SNAPSHOT_STATUS: Partial<Record<SnapshotErrorCode, number>> = {
  [SnapshotErrorCode.BadIndex]: 400,
  [SnapshotErrorCode.NoFullSnapshot]: 400,
  [SnapshotErrorCode.NotMergeable]: 400,
  [SnapshotErrorCode.Pruned]: 404,
};

/** Maps an error of any layer to a status and a reason; `request` lets a reason name what was sent. */
export function toHttpError(e: unknown, request?: FastifyRequest): { status: number; details: string } {
  if (e instanceof ApiError) return { status: e.status, details: e.details };
  if (isCodecError(e)) return { status: 400, details: e.message };
  if (e instanceof BlockError) return { status: 400, details: e.message };
  if (isNetworkError(e, NetworkErrorCode.NotSynced)) return { status: 503, details: e.message };
  if (e instanceof SnapshotError) {
    // the request's fault (400), data pruned away (404), or a real write failure (500)
    const status = SNAPSHOT_STATUS[e.code] ?? 500;
    return { status, details: e.message };
  }
  if (isPowError(e)) {
    if (e.code === PowErrorCode.Disabled)
      return { status: 503, details: "proof of work is needed but disabled on this node" };
    return { status: 503, details: `proof of work failed: ${e.message}` };
  }
  const fe = e as FastifyError;
  if (fe?.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE" && request) {
    const type = request.headers["content-type"] ?? "";
    return {
      status: 400,
      details: `unsupported content type "${type}" on ${request.method} ${request.url.split("?")[0]}`,
    };
  }
  if (typeof fe?.statusCode === "number" && fe.statusCode >= 400 && fe.statusCode < 500) {
    // fastify's own client errors: bad JSON, wrong content type, body too large (413), schema
    // validation (the reason from validation.ts)
    return { status: 400, details: fe.message };
  }
  return { status: 500, details: "unexpected error while serving the request" };
}

/**
 * Answers requests the HTTP parser refuses before fastify sees them (malformed request line or
 * headers, headers too large) in the error shape, as 400, instead of fastify's own body.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  if (socket.writable) {
    const reason =
      error.code === "HPE_HEADER_OVERFLOW" ? "the request headers are too large" : "the request is not valid HTTP";
    const body = JSON.stringify(errorBody(400, reason));
    socket.write(
      `HTTP/1.1 400 Bad Request\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/** Installs the error and not-found handlers on `app`. */
export function registerErrorHandling(app: FastifyInstance): void {
  // While the server closes, requests still arriving get a 503 in the error shape (the app is
  // built with `return503OnClosing: false`, whose body would not be).
  let closing = false;
  app.addHook("preClose", async () => {
    closing = true;
  });
  app.addHook("onRequest", (_request, reply, done) => {
    if (!closing) return done();
    void reply.header("connection", "close");
    done(unavailable("the node is shutting down"));
  });
  app.setErrorHandler((error, request, reply) => {
    const { status, details } = toHttpError(error, request);
    if (status === 500) request.log.error({ err: error }, "internal error");
    else request.log.debug({ err: error }, "request refused");
    void reply.code(status).type("application/json").send(errorBody(status, details));
  });
  app.setNotFoundHandler((request, reply) => {
    void reply.code(404).send(errorBody(404, `no route ${request.method} ${request.url.split("?")[0]}`));
  });
}
