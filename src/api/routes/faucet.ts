import type { FastifyInstance } from "fastify";
import { type Faucet, FaucetErrorCode } from "../../faucet/index.js";
import { LedgerNodeError } from "../../util/ledgerNodeError.js";
import type { ApiNode } from "../apiNode.js";
import { notFound } from "../errors.js";
import type { FaucetEnqueued, FaucetInfo } from "../json/faucet.js";
import { type RouteDefinition, registerRoute } from "../routeDefinition.js";
import { closedObject, integer, responses, string, Tag } from "../schemas/common.js";
import { BASE_TOKEN, nodeHealth } from "./core.js";

/**
 * The faucet's routes, as inx-faucet serves them (`components/faucet/routes.go`: `GET /info`,
 * `POST /enqueue` under `/api`) and Hornet proxies an INX plugin's routes under
 * `/api/<plugin>/<version>`: `GET /api/faucet/v1/info` and `POST /api/faucet/v1/enqueue`,
 * on the API port and public under the default patterns (README, Faucet).
 *
 * - The SDKs' `requestFundsFromFaucet(url, address)` POSTs `{"address": <bech32>}` to the URL
 *   it is given, so that URL is `http://<api>/api/faucet/v1/enqueue`.
 * - Answers are inx-faucet's: `{isHealthy, address, balance, tokenName, bech32Hrp}` with the
 *   balance a JSON integer (Go's uint64), 202 `{address, waitingRequests}`. Refusals carry
 *   inx-faucet's texts as `details` in this API's error shape; a request the faucet cannot
 *   take now (node not healthy, queue full, faucet out of funds) is 503 where inx-faucet says
 *   500, since 500 here means the node failed.
 * - A node without a faucet answers 404 "this node runs no faucet", as Hornet answers a plugin
 *   route no plugin registered.
 * - Every enqueue call counts against the client's (IP address's) limit before anything else,
 *   as inx-faucet's rate limiter sits in front of its route; `info` is not limited there either.
 */

export const FAUCET_V1 = "/api/faucet/v1";

/** A bech32 address is at most 90 characters (BIP-173); more is not read. */
const MAX_ADDRESS_LENGTH = 90;

export const FAUCET_ROUTES = {
  info: {
    method: "GET",
    url: `${FAUCET_V1}/info`,
    schema: {
      summary: "The faucet's address and balance",
      description:
        "The faucet's bech32 address, its balance once every waiting request is paid, the token's name and the network's HRP; healthy when the node is and the faucet can pay a request.",
      tags: [Tag.Faucet],
      response: responses(
        {
          200: closedObject<FaucetInfo>(
            {
              isHealthy: { type: "boolean", description: "the node is healthy and the faucet can pay a request" },
              address: string("the faucet's bech32 address"),
              balance: integer("what the faucet holds once every waiting request is paid, in base units"),
              tokenName: string("the name of the network's base token"),
              bech32Hrp: string("the network's bech32 human-readable part"),
            },
            ["isHealthy", "address", "balance", "tokenName", "bech32Hrp"],
            "the faucet",
          ),
        },
        [403, 404, 500],
      ),
    },
  },
  enqueue: {
    method: "POST",
    url: `${FAUCET_V1}/enqueue`,
    schema: {
      summary: "Ask the faucet for funds",
      description:
        "Queues a payment to the address; a later milestone confirms the transaction that pays it (with up to 126 others). Refused: an invalid address or one of another network, one already queued or that asked within its period, one that already holds the maximum, a client over its rate limit (400); the node not healthy, the queue full or the faucet out of funds (503).",
      tags: [Tag.Faucet],
      body: closedObject<{ address: string }>(
        {
          address: {
            type: "string",
            title: "a bech32 address",
            maxLength: MAX_ADDRESS_LENGTH,
            description: "the bech32 address to fund",
          },
        },
        ["address"],
        "the request",
      ),
      response: responses(
        {
          202: closedObject<FaucetEnqueued>(
            {
              address: string("the address, as sent"),
              waitingRequests: integer("requests waiting, this one included"),
            },
            ["address", "waitingRequests"],
            "the request is queued",
          ),
        },
        [400, 403, 404, 500, 503],
      ),
    },
  },
} satisfies Record<string, RouteDefinition>;

/** The info answer as JSON text, in inx-faucet's field order, the balance's digits exact (a bigint has no JSON form). */
function infoText(i: FaucetInfo): string {
  const str = JSON.stringify;
  return `{"isHealthy":${i.isHealthy},"address":${str(i.address)},"balance":${i.balance.toString()},"tokenName":${str(i.tokenName)},"bech32Hrp":${str(i.bech32Hrp)}}`;
}

function faucetOf(node: ApiNode): Faucet {
  if (!node.faucet) throw notFound("this node runs no faucet");
  return node.faucet;
}

export function registerFaucetRoutes(app: FastifyInstance, node: ApiNode): void {
  registerRoute(
    app,
    FAUCET_ROUTES.info,
    async (): Promise<FaucetInfo> => {
      const faucet = faucetOf(node);
      const balance = await faucet.balance();
      return {
        isHealthy: nodeHealth(node).healthy && balance >= faucet.options.amount,
        address: faucet.bech32,
        balance,
        tokenName: BASE_TOKEN.name,
        bech32Hrp: node.tangle.protocolParameters.bech32Hrp,
      };
    },
    {
      // the answer by infoText; error bodies (plain JSON) as JSON.stringify writes them
      serializerCompiler:
        ({ httpStatus }) =>
        (data) =>
          httpStatus === "200" ? infoText(data as FaucetInfo) : JSON.stringify(data),
    },
  );

  registerRoute(
    app,
    FAUCET_ROUTES.enqueue,
    async (request, reply): Promise<FaucetEnqueued> => {
      const faucet = faucetOf(node);
      const { address } = request.body as { address: string };
      // inx-faucet's order: the address, then the node's health, then the queue and balances
      faucet.parseAddress(address);
      if (!nodeHealth(node).healthy) {
        throw new LedgerNodeError(
          FaucetErrorCode.NotHealthy,
          "Faucet node is not synchronized/healthy. Please try again later!",
        );
      }
      const queued = await faucet.enqueue(address);
      void reply.code(202);
      return queued;
    },
    {
      // counted before the body is parsed or validated, so malformed requests count too
      onRequest: (request, _reply, done) => {
        try {
          node.faucet?.takeClientRequest(request.ip);
          done();
        } catch (e) {
          done(e as Error);
        }
      },
    },
  );
}
