import type { FastifyInstance } from "fastify";
import { FOUNDRY_ID_LENGTH, ID_LENGTH } from "../../codec/ids.js";
import { AddressType, TokenSchemeType } from "../../codec/types.js";
import { IRC27_SCHEMA, IRC30_SCHEMA, type IrcCheck, IrcStandard, readIrcMetadata } from "../../indexer/index.js";
import type { ApiNode } from "../apiNode.js";
import { badRequest, notFound } from "../errors.js";
import type { Irc27MetadataJson, Irc30MetadataJson } from "../json/ircMetadata.js";
import { getRoute, type RouteDefinition, registerRoute, STRINGIFIED } from "../routeDefinition.js";
import { hexOfBytes, openObject, pathParams, type Schema, Tag } from "../schemas/common.js";
import { idParam } from "./coreParams.js";

/**
 * The IRC metadata API of Hornet's inx-irc-metadata plugin: an NFT's IRC-27 metadata (TIP-27)
 * and a native token's IRC-30 metadata (TIP-30), each the JSON of the immutable metadata
 * feature of the NFT's or the token's foundry's current output, answered only when it is valid
 * under the TIP's schema (src/indexer/ircMetadata.ts). Metadata that is missing, not JSON or
 * breaks the schema answers 404 with the reason (inx-irc-metadata: 406 without one), an ID
 * that is not one 400.
 */

export const IRC_METADATA_V1 = "/api/irc-metadata/v1";

/** A TIP's schema as an OpenAPI 3.0 schema: its properties and required names, open to more. */
function answerSchema(tip: typeof IRC27_SCHEMA | typeof IRC30_SCHEMA, description: string): Schema {
  return openObject(
    structuredClone(tip.properties) as unknown as Record<string, Schema>,
    [...tip.required],
    description,
  );
}

export const IRC_METADATA_ROUTES = {
  nft: getRoute(
    `${IRC_METADATA_V1}/nfts/:nftId`,
    {
      summary: "The IRC-27 metadata of an NFT",
      description:
        "The JSON of the NFT's immutable metadata feature when it is valid IRC-27 metadata (TIP-27); 404 with the reason when the NFT has no unspent output, no such feature, or its metadata is not JSON or breaks the schema.",
      tags: [Tag.IrcMetadata],
      params: pathParams({ nftId: hexOfBytes(ID_LENGTH, "an NFT ID") }),
    },
    answerSchema(IRC27_SCHEMA, "IRC-27 NFT metadata (TIP-27 irc27.schema.json)"),
    [400, 403, 404, 500, 503],
  ),
  token: getRoute(
    `${IRC_METADATA_V1}/tokens/:tokenId`,
    {
      summary: "The IRC-30 metadata of a native token",
      description:
        "The JSON of the immutable metadata feature of the token's foundry when it is valid IRC-30 metadata (TIP-30); 404 with the reason when the foundry has no unspent output, no such feature, or its metadata is not JSON or breaks the schema.",
      tags: [Tag.IrcMetadata],
      params: pathParams({
        tokenId: hexOfBytes(FOUNDRY_ID_LENGTH, "a native token ID: the ID of its foundry (TIP-18)"),
      }),
    },
    answerSchema(IRC30_SCHEMA, "IRC-30 native token metadata (TIP-30 irc30.schema.json)"),
    [400, 403, 404, 500, 503],
  ),
} satisfies Record<string, RouteDefinition>;

function answer<T>(check: IrcCheck): T {
  if (!check.ok) throw notFound(check.reason);
  return check.metadata as T;
}

export function registerIrcMetadataRoutes(app: FastifyInstance, node: ApiNode): void {
  // the metadata is open JSON of at most 8192 bytes: written as parsed (routeDefinition.ts)
  registerRoute(
    app,
    IRC_METADATA_ROUTES.nft,
    async (request): Promise<Irc27MetadataJson> =>
      answer(await readIrcMetadata(node, IrcStandard.Irc27, idParam(request, "nftId", ID_LENGTH))),
    STRINGIFIED,
  );
  registerRoute(
    app,
    IRC_METADATA_ROUTES.token,
    async (request): Promise<Irc30MetadataJson> => {
      const tokenId = idParam(request, "tokenId", FOUNDRY_ID_LENGTH);
      // TIP-18: foundry ID = alias address (0x08 ‖ alias ID) ‖ serial number (u32) ‖ token scheme type
      if (tokenId[0] !== AddressType.Alias || tokenId[FOUNDRY_ID_LENGTH - 1] !== TokenSchemeType.Simple) {
        throw badRequest(
          "tokenId: a native token ID is its foundry's ID: 0x08 (an alias address), the alias ID, the serial number and the token scheme type 0x00",
        );
      }
      return answer(await readIrcMetadata(node, IrcStandard.Irc30, tokenId));
    },
    STRINGIFIED,
  );
}
