import type { FastifyInstance } from "fastify";
import { addressToBech32 } from "../../codec/address.js";
import { toHex } from "../../codec/hex.js";
import { MAX_CLOCK_STEP_SECONDS } from "../../tangle/nodeClock.js";
import type { ApiNode, DevApi } from "../apiNode.js";
import { badRequest } from "../errors.js";
import type {
  DevAccountJson,
  DevAccountsJson,
  DevMilestoneJson,
  DevRevertedJson,
  DevStateJson,
  DevTimeJson,
} from "../json/dev.js";
import { getRoute, type RouteDefinition, registerRoute } from "../routeDefinition.js";
import {
  closedObject,
  decimalString,
  hexOfBytes,
  integer,
  pathParams,
  responses,
  type Schema,
  string,
  Tag,
} from "../schemas/common.js";

/**
 * The routes of a node for builders (docs/decisions.md, A node for builders; Anvil's and
 * Hardhat's `anvil_*`/`evm_*` methods as REST): the funded accounts, milestones on demand, time
 * travel, and saved states to revert to. They exist only on a dev network's coordinator (the dev
 * network, or a network file with `"dev": true`): elsewhere they are not registered, so they
 * answer 404 and are listed nowhere (`/api/routes`, the OpenAPI document). Public by default, as
 * a local node's are; `--protected-routes /api/dev/v1/*` guards them like any route.
 */

export const DEV_V1 = "/api/dev/v1";

/** Milestones one request issues at most. */
export const MAX_MILESTONES_PER_REQUEST = 100;

const milestoneJson = (): Schema =>
  closedObject<DevMilestoneJson>(
    {
      index: integer("the milestone index"),
      milestoneId: hexOfBytes(32, "the milestone ID"),
      timestamp: integer("its timestamp, unix seconds"),
    },
    ["index", "milestoneId", "timestamp"],
    "a confirmed milestone",
  );

const timeJson = (): Schema =>
  closedObject<DevTimeJson>(
    {
      offsetSeconds: integer("seconds the node's clock is ahead of the wall clock"),
      timestamp: integer("unix seconds now on the node's clock"),
      wallClock: integer("unix seconds now on the wall clock"),
      latestMilestoneTimestamp: integer("the latest milestone's timestamp (0 before the first)"),
      nextMilestoneTimestamp: integer("the timestamp the next milestone will have unless the clock moves first"),
    },
    ["offsetSeconds", "timestamp", "wallClock", "latestMilestoneTimestamp", "nextMilestoneTimestamp"],
    "the node's clock (milestone timestamps are the clock of timelocks and expirations, TIP-18)",
  );

const stateJson = (): Schema =>
  closedObject<DevStateJson>(
    {
      id: decimalString("the state's ID", 10),
      milestoneIndex: integer("the ledger index when it was saved"),
      savedAt: integer("when it was saved, ms since the epoch"),
      entries: integer("database entries it holds"),
    },
    ["id", "milestoneIndex", "savedAt", "entries"],
    "a saved state",
  );

const revertedJson = (): Schema =>
  closedObject<DevRevertedJson>(
    {
      milestoneIndex: integer("the ledger index the node is back at"),
      dropped: { type: "array", items: decimalString("a state ID", 10), description: "the saved states dropped" },
    },
    ["milestoneIndex", "dropped"],
    "the node is back at the state",
  );

const operation = (summary: string, description: string) => ({ summary, description, tags: [Tag.Dev] });

export const DEV_ROUTES = {
  accounts: getRoute(
    `${DEV_V1}/accounts`,
    operation(
      "The funded dev accounts",
      "The accounts of the node's dev mnemonic (`--dev-mnemonic`, the well-known test one by default) along the IOTA SDK wallet's path m/44'/<coin type>'/<account>'/0'/0', with what each owns now.",
    ),
    closedObject<DevAccountsJson>(
      {
        coinType: integer("the SLIP-44 coin type of the path"),
        accounts: {
          type: "array",
          description: "accounts 0, 1, …",
          items: closedObject<DevAccountJson>(
            {
              index: integer("the account index of the path"),
              path: string("the BIP-44 path of its address"),
              address: string("its Ed25519 address, bech32"),
              publicKey: hexOfBytes(32, "its Ed25519 public key"),
              balance: decimalString("the base tokens it owns now", 20),
            },
            ["index", "path", "address", "publicKey", "balance"],
            "a dev account",
          ),
        },
      },
      ["coinType", "accounts"],
      "the dev accounts",
    ),
    [403, 500],
  ),
  milestones: {
    method: "POST",
    url: `${DEV_V1}/milestones`,
    schema: {
      ...operation(
        "Issue milestones now",
        `Issues \`count\` milestones (default 1, at most ${MAX_MILESTONES_PER_REQUEST}) after any in flight, whatever the milestone mode, and answers them once confirmed.`,
      ),
      // the body may be left out (null when the request has none)
      body: {
        ...closedObject<{ count: number }>(
          { count: integer("how many milestones", 1, MAX_MILESTONES_PER_REQUEST) },
          [],
          "the request (may be left out)",
        ),
        nullable: true,
      },
      response: responses(
        {
          200: closedObject<{ milestones: DevMilestoneJson[] }>(
            { milestones: { type: "array", items: milestoneJson(), description: "the milestones, in order" } },
            ["milestones"],
            "the milestones issued",
          ),
        },
        [400, 403, 500, 503],
      ),
    },
  },
  time: getRoute(
    `${DEV_V1}/time`,
    operation("The node's clock", "The clock of the next milestones and how far it is ahead of the wall clock."),
    timeJson(),
    [403, 500],
  ),
  setTime: {
    method: "POST",
    url: `${DEV_V1}/time`,
    schema: {
      ...operation(
        "Move the clock forward",
        "Moves the clock of the next milestones forward by `increaseSeconds`, or to `timestamp` (ahead of the clock and the latest milestone: it never goes back). No milestone is issued: the next one carries the new time.",
      ),
      body: closedObject<{ increaseSeconds: number; timestamp: number }>(
        {
          increaseSeconds: integer("seconds to move the clock forward", 1, MAX_CLOCK_STEP_SECONDS),
          timestamp: integer("unix seconds to move the clock to", 1, 0xffff_ffff),
        },
        [],
        "one of the two",
      ),
      response: responses({ 200: timeJson() }, [400, 403, 500]),
    },
  },
  states: getRoute(
    `${DEV_V1}/state`,
    operation("The saved states", "The states saved and not dropped yet, oldest first."),
    closedObject<{ states: DevStateJson[] }>(
      { states: { type: "array", items: stateJson(), description: "oldest first" } },
      ["states"],
      "the saved states",
    ),
    [403, 500],
  ),
  save: {
    method: "POST",
    url: `${DEV_V1}/state`,
    schema: {
      ...operation(
        "Save the state",
        "Saves the whole state (ledger, tangle, indexes, milestones, the clock) between two milestones and answers its ID.",
      ),
      response: responses({ 200: stateJson() }, [400, 403, 500]),
    },
  },
  revert: {
    method: "POST",
    url: `${DEV_V1}/state/:id/revert`,
    schema: {
      ...operation(
        "Revert to a saved state",
        "Puts the node back exactly as it was when the state was saved, every route and the indexes included; the state and every later one are dropped (as evm_revert does). Refused while blocks are being submitted; blocks submitted meanwhile answer 503.",
      ),
      params: pathParams({ id: decimalString("the state's ID", 10) }),
      response: responses({ 200: revertedJson() }, [400, 403, 404, 500, 503]),
    },
  },
  reset: {
    method: "POST",
    url: `${DEV_V1}/reset`,
    schema: {
      ...operation(
        "Back to genesis",
        "Puts the node back to the network's genesis and issues its first milestone; every saved state is dropped.",
      ),
      response: responses({ 200: revertedJson() }, [400, 403, 500, 503]),
    },
  },
} satisfies Record<string, RouteDefinition>;

export function registerDevRoutes(app: FastifyInstance, node: ApiNode): void {
  const dev: DevApi | undefined = node.dev;
  if (!dev) return;
  const hrp = () => node.tangle.protocolParameters.bech32Hrp;

  registerRoute(app, DEV_ROUTES.accounts, async (): Promise<DevAccountsJson> => {
    const { coinType, accounts } = await dev.accounts();
    return {
      coinType,
      accounts: accounts.map((a) => ({
        index: a.index,
        path: a.path,
        address: addressToBech32(a.address, hrp()),
        publicKey: toHex(a.publicKey),
        balance: a.balance.toString(),
      })),
    };
  });

  registerRoute(app, DEV_ROUTES.milestones, async (request): Promise<{ milestones: DevMilestoneJson[] }> => {
    const count = (request.body as { count?: number } | undefined)?.count ?? 1;
    const issued = await dev.issueMilestones(count);
    return {
      milestones: issued.map((m) => ({ index: m.index, milestoneId: toHex(m.milestoneId), timestamp: m.timestamp })),
    };
  });

  registerRoute(app, DEV_ROUTES.time, async (): Promise<DevTimeJson> => dev.time());

  registerRoute(app, DEV_ROUTES.setTime, async (request): Promise<DevTimeJson> => {
    const body = (request.body ?? {}) as { increaseSeconds?: number; timestamp?: number };
    if ((body.increaseSeconds === undefined) === (body.timestamp === undefined)) {
      throw badRequest("give either increaseSeconds or timestamp");
    }
    return dev.setTime(
      body.increaseSeconds !== undefined ? { increaseSeconds: body.increaseSeconds } : { timestamp: body.timestamp! },
    );
  });

  registerRoute(app, DEV_ROUTES.states, async () => ({ states: dev.savedStates() }));

  registerRoute(app, DEV_ROUTES.save, async (): Promise<DevStateJson> => dev.saveState());

  registerRoute(app, DEV_ROUTES.revert, async (request): Promise<DevRevertedJson> => {
    const { id } = request.params as { id: string };
    const { state, dropped } = await dev.revertState(String(Number(id)));
    return { milestoneIndex: state.milestoneIndex, dropped };
  });

  registerRoute(app, DEV_ROUTES.reset, async (): Promise<DevRevertedJson> => {
    const { dropped } = await dev.reset();
    return { milestoneIndex: node.tangle.latestMilestone.index, dropped };
  });
}
