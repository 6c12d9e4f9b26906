import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import { toHex } from "../codec/hex.js";
import { decodeOutput } from "../codec/outputs/output.js";
import { FeatureType, type Output, OutputType } from "../codec/types.js";
import type { Repositories } from "../storage/index.js";
import type { Indexer } from "./indexer.js";

/**
 * The IRC metadata of NFTs and native tokens, as Hornet's inx-irc-metadata serves it: the
 * immutable metadata feature of an NFT output (TIP-27, IRC-27) or of the foundry output of a
 * native token (TIP-30, IRC-30), parsed as JSON and checked against the TIP's JSON schema.
 * Metadata that is missing, not JSON or breaks the schema is no metadata: the caller answers
 * 404 with the reason (inx-irc-metadata answers 406 without one).
 *
 * The schemas are the TIPs' own (`tips/TIP-0027/irc27.schema.json`,
 * `tips/TIP-0030/irc30.schema.json`, draft 2020-12), written out here and compiled once.
 */

/** The IRC-27 NFT metadata schema, TIP-27 `irc27.schema.json`. */
export const IRC27_SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $id: "https://github.com/iotaledger/tips/main/tips/TIP-0027/irc27.schema.json",
  title: "IRC27 IOTA NFT Metadata Schema",
  description: "A JSON schema for validating IRC27 compliant NFT metadata",
  type: "object",
  properties: {
    standard: { type: "string", description: "identifier for the metadata standard used", pattern: "^IRC27$" },
    // the TIP's pattern, its unescaped dot included ("v1.0", and also "v1x0")
    version: { type: "string", description: "version of the metadata standard used", pattern: "^v\\d+.\\d+$" },
    name: { type: "string", description: "A descriptive name of the token" },
    description: { type: "string", description: "some information about the NFT project" },
    type: { type: "string", description: "MIME type of the asset" },
    uri: {
      type: "string",
      description: "URI pointing to the resource where the file with `type` MIME type is hosted",
    },
    collectionName: { type: "string", description: "A human readable name for the NFT collection" },
    royalties: {
      type: "object",
      description: "object containing the payout addresses mapped to their percentage share",
    },
    issuerName: { type: "string", description: "name of the artist" },
    attributes: { type: "array", description: "array containing any additional data as objects." },
  },
  required: ["standard", "type", "version", "uri", "name"],
} as const;

/** The IRC-30 native token metadata schema, TIP-30 `irc30.schema.json`. */
export const IRC30_SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $id: "https://github.com/iotaledger/tips/main/tips/TIP-0030/irc30.schema.json",
  title: "IRC30 Native Token Metadata Schema",
  description: "A JSON schema for validating IRC30 compliant native token metadata",
  type: "object",
  properties: {
    standard: { description: "The IRC standard of the token metadata", type: "string", pattern: "^IRC30$" },
    name: { description: "The human-readable name of the native token", type: "string" },
    description: { description: "The human-readable description of the token", type: "string" },
    symbol: { description: "The symbol/ticker of the token", type: "string" },
    decimals: {
      description:
        "Number of decimals the token uses (divide the token amount by 10^decimals to get its user representation)",
      type: "integer",
      minimum: 0,
    },
    url: { description: "URL pointing to more resources about the token", type: "string" },
    logoUrl: { description: "URL pointing to an image resource of the token logo", type: "string" },
    logo: { description: "The logo of the token encoded as a byte string", type: "string" },
  },
  required: ["standard", "name", "symbol", "decimals"],
} as const;

/** Which standard a metadata feature is checked against. */
export const IrcStandard = { Irc27: "IRC-27", Irc30: "IRC-30" } as const;
export type IrcStandard = (typeof IrcStandard)[keyof typeof IrcStandard];

/**
 * Deepest nesting of arrays and objects taken. The feature holds at most 8192 bytes (TIP-18),
 * so JSON.parse is bounded already; this keeps a reply's serialisation and any reader of it
 * off pathological nesting ("[[[[…"), far beyond what either schema describes.
 */
export const MAX_IRC_METADATA_DEPTH = 64;

/** Schema errors named in a reason at most. */
const MAX_REASONS = 4;

/**
 * Patterns of the schemas checked through an equivalent that runs in linear time. TIP-27's
 * version pattern `^v\d+.\d+$` backtracks quadratically on a long run of digits that does not
 * match (8 KB of metadata held the event loop ~70 ms a request); its equivalent: "v", then three
 * digits or more (the dot taking a digit), or digits, one character the dot takes that is not a
 * digit (no line terminator), digits. The schemas, and the reasons given, keep the TIP's pattern.
 */
const LINEAR_PATTERNS: ReadonlyMap<string, string> = new Map([
  [IRC27_SCHEMA.properties.version.pattern, "^v(?:\\d{3,}|\\d+[^\\d\\n\\r\\u2028\\u2029]\\d+)$"],
]);

const regExp = Object.assign(
  (pattern: string, flags: string): RegExp => new RegExp(LINEAR_PATTERNS.get(pattern) ?? pattern, flags),
  { code: "new RegExp" },
);

// compiled once, at load: allErrors is affordable on a document of at most 8192 bytes
const ajv = new Ajv2020({ allErrors: true, strict: true, code: { regExp } });
const VALIDATORS: Record<IrcStandard, ValidateFunction> = {
  [IrcStandard.Irc27]: ajv.compile(IRC27_SCHEMA),
  [IrcStandard.Irc30]: ajv.compile(IRC30_SCHEMA),
};

/** A metadata document checked against its standard: the JSON object, or why it is none. */
export type IrcCheck = { ok: true; metadata: Record<string, unknown> } | { ok: false; reason: string };

const UTF8 = new TextDecoder("utf-8", { fatal: true });

/** Whether `text` (JSON) nests arrays and objects deeper than `limit`, counted outside strings. */
function nestsDeeper(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

function describeSchemaError(e: ErrorObject): string {
  const at = e.instancePath === "" ? "the document" : e.instancePath.slice(1).replace(/\//g, ".");
  if (e.keyword === "required") return `${(e.params as { missingProperty: string }).missingProperty} is missing`;
  if (e.keyword === "pattern") return `${at} must match ${(e.params as { pattern: string }).pattern}`;
  return `${at} ${e.message ?? "is invalid"}`;
}

/**
 * Checks metadata bytes against `standard`: UTF-8 text, JSON of bounded nesting whose top level
 * is an object, valid under the TIP's schema. The reason names what failed.
 */
export function checkIrcMetadata(standard: IrcStandard, bytes: Uint8Array): IrcCheck {
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    return { ok: false, reason: `the metadata is not ${standard} JSON: it is not UTF-8 text` };
  }
  if (nestsDeeper(text, MAX_IRC_METADATA_DEPTH))
    return { ok: false, reason: `the metadata nests deeper than ${MAX_IRC_METADATA_DEPTH} levels` };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { ok: false, reason: `the metadata is not JSON: ${(e as Error).message}` };
  }
  const validate = VALIDATORS[standard];
  if (!validate(value)) {
    const errors = validate.errors ?? [];
    const named = errors.slice(0, MAX_REASONS).map(describeSchemaError);
    if (errors.length > MAX_REASONS) named.push(`${errors.length - MAX_REASONS} more`);
    return { ok: false, reason: `the metadata breaks ${standard}'s schema: ${named.join("; ")}` };
  }
  return { ok: true, metadata: value as Record<string, unknown> };
}

/** The bytes of an output's immutable metadata feature (TIP-18), if it has one. */
function immutableMetadata(output: Output): Uint8Array | undefined {
  if (output.type !== OutputType.Nft && output.type !== OutputType.Foundry) return undefined;
  const feature = output.immutableFeatures.find((f) => f.type === FeatureType.Metadata);
  return feature?.type === FeatureType.Metadata ? feature.data : undefined;
}

/** What the IRC metadata reads need of the node: the chain lookups and the stored outputs. */
export interface IrcMetadataDeps {
  indexer: Pick<Indexer, "catchUp" | "chainOutput">;
  db: Pick<Repositories, "outputs">;
}

/**
 * Reads and checks the IRC metadata of the NFT `nftId` (IRC-27) or of the native token (the
 * foundry) `tokenId` (IRC-30): the chain's current unspent output (the indexer), its immutable
 * metadata feature, checked. Immutable features never change along a chain, so the current
 * output holds the metadata the chain was created with.
 */
export async function readIrcMetadata(
  deps: IrcMetadataDeps,
  standard: IrcStandard,
  chainId: Uint8Array,
): Promise<IrcCheck> {
  const [type, what] =
    standard === IrcStandard.Irc27 ? ([OutputType.Nft, "NFT"] as const) : ([OutputType.Foundry, "token"] as const);
  await deps.indexer.catchUp();
  const { outputId } = await deps.indexer.chainOutput(type, chainId);
  if (!outputId) return { ok: false, reason: `no unspent output of ${what} ${toHex(chainId)}` };
  const record = await deps.db.outputs.get(outputId);
  if (!record) return { ok: false, reason: `the output ${toHex(outputId)} of ${what} ${toHex(chainId)} is not stored` };
  const data = immutableMetadata(decodeOutput(record.outputBytes));
  if (!data) {
    const holder = standard === IrcStandard.Irc27 ? "the NFT" : "the token's foundry";
    return { ok: false, reason: `${holder} has no immutable metadata feature` };
  }
  return checkIrcMetadata(standard, data);
}
