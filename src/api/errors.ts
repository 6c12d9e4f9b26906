import type { Socket } from "node:net";
import type { FastifyError, FastifyInstance, FastifyRequest } from "fastify";
import { CodecErrorCode } from "../codec/errors.js";
import { FaucetErrorCode } from "../faucet/errors.js";
import { IndexerErrorCode } from "../indexer/errors.js";
import { LedgerErrorCode } from "../ledger/errors.js";
import { NetworkErrorCode } from "../network/errors.js";
import { isPowError, PowErrorCode } from "../pow/errors.js";
import { SnapshotErrorCode } from "../snapshot/errors.js";
import { SpammerErrorCode } from "../spammer/errors.js";
import { StorageErrorCode } from "../storage/errors.js";
import { BlockErrorCode, DevErrorCode, TangleErrorCode } from "../tangle/errors.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { requestIdOf } from "./httpConventions.js";

/**
 * The one place where errors become HTTP answers (docs/decisions.md, HTTP API). Every error body is
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

/** The statuses an error of a layer below the API can become. */
type DomainStatus = 400 | 404 | 500 | 503;

/**
 * Every code of every layer, mapped deliberately: the caller's fault (400), data that is not
 * there (404), the node not able to serve now (503), or the node's own failure (500). A code
 * added to an enum without a status here does not compile.
 */
const STATUS_OF_CODE: Record<DomainErrorCode, DomainStatus> = {
  // decoding and syntactic rules: what was sent is wrong
  ...allCodes(CodecErrorCode, 400),
  // intake: the block is wrong (PoW, signature) or late (a stale milestone)
  ...allCodes(BlockErrorCode, 400),
  [BlockErrorCode.NotSynced]: 503,
  [BlockErrorCode.StateReverting]: 503,
  // the dev routes: the request's fault, or a state that is not saved
  ...allCodes(DevErrorCode, 400),
  [DevErrorCode.UnknownState]: 404,
  [TangleErrorCode.MilestoneMismatch]: 500,
  [TangleErrorCode.NotCoordinator]: 503,
  [TangleErrorCode.MilestoneNotApplied]: 500,
  [TangleErrorCode.PruningBusy]: 503,
  [TangleErrorCode.ConfirmationInconsistent]: 500,
  // proofs of inclusion (inx-poi): an unknown or pruned block 404, one not referenced yet 400
  [TangleErrorCode.ProofBlockUnknown]: 404,
  [TangleErrorCode.ProofBlockNotReferenced]: 400,
  [TangleErrorCode.ProofConeUnavailable]: 404,
  [TangleErrorCode.ProofInconsistent]: 500,
  [TangleErrorCode.ProofBusy]: 503,
  // the database: the node's own failures; a disk that refuses writes makes it unavailable
  ...allCodes(StorageErrorCode, 500),
  [StorageErrorCode.WriteFailed]: 503,
  // a ledger contract broken inside the node (a conflict never reaches a caller as an error)
  ...allCodes(LedgerErrorCode, 500),
  // PoW: the node cannot mine this block now (disabled, aborted, its miner failed)
  ...allCodes(PowErrorCode, 503),
  // snapshots: the request's fault, data pruned away, or a real failure
  [SnapshotErrorCode.BadIndex]: 400,
  [SnapshotErrorCode.NoFullSnapshot]: 400,
  [SnapshotErrorCode.NotMergeable]: 400,
  [SnapshotErrorCode.Pruned]: 404,
  [SnapshotErrorCode.Unreadable]: 500,
  [SnapshotErrorCode.Truncated]: 500,
  [SnapshotErrorCode.Corrupted]: 500,
  [SnapshotErrorCode.UnsupportedVersion]: 500,
  [SnapshotErrorCode.WrongType]: 500,
  [SnapshotErrorCode.WrongNetwork]: 500,
  [SnapshotErrorCode.Unverified]: 500,
  [SnapshotErrorCode.DatabaseNotEmpty]: 500,
  [SnapshotErrorCode.IncompleteImport]: 500,
  [SnapshotErrorCode.LedgerInconsistent]: 500,
  [SnapshotErrorCode.WriteFailed]: 500,
  // the indexes: busy while the ledger moves (retry), or damaged
  [IndexerErrorCode.Busy]: 503,
  [IndexerErrorCode.NotReady]: 503,
  [IndexerErrorCode.Corrupt]: 500,
  [IndexerErrorCode.ListMoved]: 503,
  [IndexerErrorCode.LedgerIndexOutOfRange]: 400,
  [IndexerErrorCode.HistoryPruned]: 404,
  // a balance beyond what one read examines: the node will not serve it (docs/decisions.md, Threats)
  [IndexerErrorCode.TooManyConditional]: 503,
  // the network: behind it (503); peers' failures never reach a client
  [NetworkErrorCode.NotSynced]: 503,
  [NetworkErrorCode.NoPeer]: 503,
  [NetworkErrorCode.Timeout]: 503,
  [NetworkErrorCode.Interrupted]: 503,
  [NetworkErrorCode.NotFound]: 404,
  [NetworkErrorCode.MalformedMessage]: 500,
  [NetworkErrorCode.UnexpectedResponse]: 500,
  [NetworkErrorCode.AnswerTooLarge]: 500,
  [NetworkErrorCode.InvalidIdentity]: 500,
  [NetworkErrorCode.InvalidNetworkConfig]: 500,
  [NetworkErrorCode.InvalidPeerAddress]: 400,
  [NetworkErrorCode.InvalidPeeringFile]: 500,
  [NetworkErrorCode.UnknownPeer]: 404,
  [NetworkErrorCode.TooManyPeers]: 400,
  // the faucet: the request's fault (inx-faucet's 400s, its rate limit's 429), or the faucet
  // cannot take it now (inx-faucet says 500: here 500 means the node failed, so 503)
  [FaucetErrorCode.InvalidAddress]: 400,
  [FaucetErrorCode.AlreadyQueued]: 400,
  [FaucetErrorCode.EnoughFunds]: 400,
  [FaucetErrorCode.AddressRateLimited]: 400,
  [FaucetErrorCode.ClientRateLimited]: 400,
  [FaucetErrorCode.QueueFull]: 503,
  [FaucetErrorCode.NoFunds]: 503,
  [FaucetErrorCode.NotHealthy]: 503,
  [FaucetErrorCode.InvalidOptions]: 500,
  [FaucetErrorCode.TransactionNotIncluded]: 500,
  [FaucetErrorCode.CannotPay]: 503,
  [FaucetErrorCode.NotSubmitted]: 503,
  // the spammer: a start setting out of range, value spam without a funded key
  [SpammerErrorCode.InvalidSettings]: 400,
  [SpammerErrorCode.NoFundedKey]: 400,
  [SpammerErrorCode.BlockRefused]: 500,
};

/** The code of any layer below the API. */
type DomainErrorCode =
  | CodecErrorCode
  | BlockErrorCode
  | TangleErrorCode
  | DevErrorCode
  | StorageErrorCode
  | LedgerErrorCode
  | PowErrorCode
  | SnapshotErrorCode
  | IndexerErrorCode
  | NetworkErrorCode
  | FaucetErrorCode
  | SpammerErrorCode;

function allCodes<C extends string>(codes: Record<string, C>, status: DomainStatus): Record<C, DomainStatus> {
  return Object.fromEntries(Object.values(codes).map((c) => [c, status])) as Record<C, DomainStatus>;
}

/** The status of a code of a layer below the API (undefined for any other code). */
export function statusOfCode(code: string): DomainStatus | undefined {
  return Object.hasOwn(STATUS_OF_CODE, code) ? STATUS_OF_CODE[code as DomainErrorCode] : undefined;
}

/** What a 503 for a PoW failure says (the spec's client sees the reason). */
function powDetails(e: LedgerNodeError<string, unknown>): string {
  return e.code === PowErrorCode.Disabled
    ? "proof of work is needed but disabled on this node"
    : `proof of work failed: ${e.message}`;
}

/** Maps an error of any layer to a status and a reason; `request` lets a reason name what was sent. */
export function toHttpError(e: unknown, request?: FastifyRequest): { status: number; details: string } {
  if (e instanceof ApiError) return { status: e.status, details: e.details };
  if (e instanceof LedgerNodeError) {
    const status = statusOfCode(e.code);
    if (status !== undefined) {
      return { status, details: isPowError(e) && status === 503 ? powDetails(e) : e.message };
    }
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
    // a status of the interface's set (400), with the true reason: too large, too slow, or not HTTP
    const reason =
      error.code === "HPE_HEADER_OVERFLOW"
        ? "the request headers are too large"
        : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
          ? "the request did not arrive whole within the request timeout"
          : "the request is not valid HTTP";
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
    if (status === 500) request.log.error({ err: error, ...requestIdOf(request) }, "internal error");
    else request.log.debug({ err: error }, "request refused");
    void reply.code(status).type("application/json").send(errorBody(status, details));
  });
  app.setNotFoundHandler((request, reply) => {
    void reply.code(404).send(errorBody(404, `no route ${request.method} ${request.url.split("?")[0]}`));
  });
}
