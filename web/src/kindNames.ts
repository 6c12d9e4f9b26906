import { AddressType, OutputType, PayloadType } from "../../src/codec/types";

/**
 * The kinds of things the pages name, in words, by the codec's type codes (src/codec/types.ts):
 * addresses, outputs (TIP-18) and payloads (TIP-24). A code without words is named by its number.
 */

/** The words of a type code from `names`, or "<thing> of unknown type <code>". */
const namesOf =
  (names: Record<number, string>, thing: string) =>
  (type: number): string =>
    names[type] ?? `${thing} of unknown type ${type}`;

export const addressKindName = namesOf(
  { [AddressType.Ed25519]: "Ed25519 address", [AddressType.Alias]: "alias address", [AddressType.Nft]: "NFT address" },
  "address",
);

export const outputKindName = namesOf(
  {
    [OutputType.Treasury]: "treasury output",
    [OutputType.Basic]: "basic output",
    [OutputType.Alias]: "alias output",
    [OutputType.Foundry]: "foundry output",
    [OutputType.Nft]: "NFT output",
  },
  "output",
);

const payloadName = namesOf(
  {
    [PayloadType.TaggedData]: "tagged data",
    [PayloadType.Transaction]: "transaction",
    [PayloadType.Milestone]: "milestone",
  },
  "payload",
);

/** A payload's kind; null or undefined: a block without payload. */
export const payloadKindName = (type: number | null | undefined): string =>
  type === null || type === undefined ? "no payload" : payloadName(type);
