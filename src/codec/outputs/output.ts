import { CodecErrorCode, codecError } from "../errors.js";
import { expectU8 } from "../json.js";
import { decodeWith, type ReadStream } from "../readStream.js";
import { type Output, OutputType } from "../types.js";
import { encodeWith, type WriteStream } from "../writeStream.js";
import {
  type AliasOutputJson,
  aliasOutputFromJson,
  aliasOutputToJson,
  deserializeAliasOutput,
  serializeAliasOutput,
} from "./aliasOutput.js";
import {
  type BasicOutputJson,
  basicOutputFromJson,
  basicOutputToJson,
  deserializeBasicOutput,
  serializeBasicOutput,
} from "./basicOutput.js";
import {
  deserializeFoundryOutput,
  type FoundryOutputJson,
  foundryOutputFromJson,
  foundryOutputToJson,
  serializeFoundryOutput,
} from "./foundryOutput.js";
import {
  deserializeNftOutput,
  type NftOutputJson,
  nftOutputFromJson,
  nftOutputToJson,
  serializeNftOutput,
} from "./nftOutput.js";
import {
  deserializeTreasuryOutput,
  serializeTreasuryOutput,
  type TreasuryOutputJson,
  treasuryOutputFromJson,
  treasuryOutputToJson,
} from "./treasuryOutput.js";

/**
 * Any output, dispatched on its leading type byte (TIP-18 output types; treasury TIP-21/34).
 * Which kinds a position admits (a regular transaction takes no treasury output) is for the
 * caller to check.
 */

/** TIP-25 JSON form of any output. */
export type OutputJson = TreasuryOutputJson | BasicOutputJson | AliasOutputJson | FoundryOutputJson | NftOutputJson;

/** The conventional top-level label of each output kind, used when a caller gives no path. */
const OUTPUT_NAMES: Record<number, string> = {
  [OutputType.Treasury]: "treasuryOutput",
  [OutputType.Basic]: "basicOutput",
  [OutputType.Alias]: "aliasOutput",
  [OutputType.Foundry]: "foundryOutput",
  [OutputType.Nft]: "nftOutput",
};

function unknownOutput(type: number, field: string): never {
  throw codecError(CodecErrorCode.UnknownType, `${field}.type`, `unknown output type ${type}`);
}

/** Writes as given; decoding and `validateOutput` hold the rules. */
export function serializeOutput(w: WriteStream, o: Output): void {
  switch (o.type) {
    case OutputType.Treasury:
      serializeTreasuryOutput(w, o);
      return;
    case OutputType.Basic:
      serializeBasicOutput(w, o);
      return;
    case OutputType.Alias:
      serializeAliasOutput(w, o);
      return;
    case OutputType.Foundry:
      serializeFoundryOutput(w, o);
      return;
    case OutputType.Nft:
      serializeNftOutput(w, o);
      return;
  }
}

/** Reads one output of any kind; `field` is its path, e.g. "transaction.essence.outputs[3]". */
export function deserializeOutput(r: ReadStream, field: string): Output {
  const type = r.peekU8(`${field}.type`);
  switch (type) {
    case OutputType.Treasury:
      return deserializeTreasuryOutput(r, field);
    case OutputType.Basic:
      return deserializeBasicOutput(r, field);
    case OutputType.Alias:
      return deserializeAliasOutput(r, field);
    case OutputType.Foundry:
      return deserializeFoundryOutput(r, field);
    case OutputType.Nft:
      return deserializeNftOutput(r, field);
    default:
      return unknownOutput(type, field);
  }
}

/** TIP-25 JSON as Stardust nodes answer it: empty lists and empty state metadata left out. */
export function outputToJson(o: Output): OutputJson {
  switch (o.type) {
    case OutputType.Treasury:
      return treasuryOutputToJson(o);
    case OutputType.Basic:
      return basicOutputToJson(o);
    case OutputType.Alias:
      return aliasOutputToJson(o);
    case OutputType.Foundry:
      return foundryOutputToJson(o);
    case OutputType.Nft:
      return nftOutputToJson(o);
  }
}

/** Rejects what the binary decoder rejects, under the same code and field path. */
export function outputFromJson(json: unknown, field: string): Output {
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw codecError(CodecErrorCode.InvalidJson, field, "expected an object");
  }
  const type = expectU8((json as { type?: unknown }).type, `${field}.type`);
  switch (type) {
    case OutputType.Treasury:
      return treasuryOutputFromJson(json, field);
    case OutputType.Basic:
      return basicOutputFromJson(json, field);
    case OutputType.Alias:
      return aliasOutputFromJson(json, field);
    case OutputType.Foundry:
      return foundryOutputFromJson(json, field);
    case OutputType.Nft:
      return nftOutputFromJson(json, field);
    default:
      return unknownOutput(type, field);
  }
}

/** The serialized bytes of one output. */
export const encodeOutput = (o: Output): Uint8Array => encodeWith(serializeOutput, o, 64);

/**
 * Decodes exactly one output; trailing bytes are an error. Without `field`, errors are labelled
 * by kind ("basicOutput.amount").
 */
export function decodeOutput(bytes: Uint8Array, field?: string): Output {
  const label = field ?? (bytes.length > 0 ? (OUTPUT_NAMES[bytes[0]!] ?? "output") : "output");
  return decodeWith(deserializeOutput, bytes, label);
}
