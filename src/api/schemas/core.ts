import { ID_LENGTH, OUTPUT_ID_LENGTH } from "../../codec/ids.js";
import type {
  BlockCreatedJson,
  BlockMetadataJson,
  OutputJsonResponse,
  OutputMetadataJson,
  UtxoChangesJson,
} from "../json/core.js";
import {
  arrayOf,
  closedObject,
  hexOfBytes,
  hexString,
  integer,
  openObject,
  pathParams,
  patterned,
  type Schema,
  string,
} from "./common.js";

/**
 * Schemas of the core REST API v2 bodies (TIP-25 JSON, as Hornet serves them and
 * `@iota/iota.js@2.0.0-rc.4` reads them). What the API itself builds (metadata, info, tips) is
 * described field by field; the wire objects the codec owns (payloads, outputs) are open beyond
 * their leading fields, so a field the codec adds is never dropped on the way out.
 */

export const blockId = () => hexOfBytes(ID_LENGTH, "a block ID");
export const transactionId = () => hexOfBytes(ID_LENGTH, "a transaction ID");
export const milestoneId = () => hexOfBytes(ID_LENGTH, "a milestone ID");
export const outputId = () => hexOfBytes(OUTPUT_ID_LENGTH, "an output ID (transaction ID and u16 LE output index)");

/** A milestone index in a path: decimal digits (the range is checked by the handler). */
export const milestoneIndex = (): Schema =>
  patterned("^[0-9]{1,10}$", "a milestone index of at most 10 digits", "a milestone index (0 to 4294967295)");

export const blockIdParams = () => pathParams({ blockId: blockId() });
export const transactionIdParams = () => pathParams({ transactionId: transactionId() });
export const milestoneIdParams = () => pathParams({ milestoneId: milestoneId() });
export const milestoneIndexParams = () => pathParams({ index: milestoneIndex() });
export const outputIdParams = () => pathParams({ outputId: outputId() });

/** Any payload: its TIP-25 fields are checked by the codec, which names the field that fails. */
export function payload(): Schema {
  return openObject(
    { type: integer("the payload type: 4 treasury transaction, 5 tagged data, 6 transaction, 7 milestone", 0, 255) },
    ["type"],
    "a payload in TIP-25 JSON: tagged data (TIP-23), transaction (TIP-20) or milestone (TIP-29)",
  );
}

/**
 * The body of `POST /api/core/v2/blocks` as JSON. `protocolVersion` is required; `parents` (empty
 * or missing: the node selects tips), `payload` and `nonce` (missing or "0": the node does the
 * PoW) may be left out or null. Unknown fields are refused.
 */
export function blockSubmission(): Schema {
  return {
    type: "object",
    description: "a block in TIP-25 JSON; the node fills missing parents and nonce",
    required: ["protocolVersion"],
    properties: {
      protocolVersion: integer("the protocol version; this node runs 2", 0, 255),
      parents: { ...arrayOf(blockId(), "1 to 8 parent block IDs, sorted and unique"), maxItems: 8, nullable: true },
      payload: { ...payload(), nullable: true },
      nonce: { ...patterned("^[0-9]{1,20}$", "a decimal u64", "the PoW nonce"), nullable: true },
    },
    additionalProperties: false,
  };
}

/** A stored block as TIP-25 JSON. */
export function blockJson(): Schema {
  return closedObject(
    {
      protocolVersion: integer("the protocol version", 0, 255),
      parents: arrayOf(blockId(), "the parent block IDs"),
      payload: payload(),
      nonce: string("the PoW nonce, a decimal u64 string"),
    },
    ["protocolVersion", "parents", "nonce"],
    "a block in TIP-25 JSON",
  );
}

/** `{blockId}` of `POST /api/core/v2/blocks` (201). */
export function blockCreated(): Schema {
  return {
    ...closedObject<BlockCreatedJson>(
      { blockId: blockId() },
      ["blockId"],
      "the block was accepted (or was already known)",
    ),
    headers: { location: string("the path of the block: /api/core/v2/blocks/<blockId>") },
  };
}

export function blockMetadata(): Schema {
  const int = (d: string) => integer(d);
  return closedObject<BlockMetadataJson>(
    {
      blockId: blockId(),
      parents: arrayOf(blockId(), "the parent block IDs"),
      isSolid: { type: "boolean", description: "whether the block's past cone is known" },
      referencedByMilestoneIndex: int("the milestone that referenced the block (once referenced)"),
      milestoneIndex: int("the index of the milestone the block carries (milestone blocks only)"),
      ledgerInclusionState: {
        type: "string",
        enum: ["noTransaction", "included", "conflicting"],
        description: "the ledger inclusion state (once referenced)",
      },
      conflictReason: int("why the transaction conflicts (Hornet's codes; conflicting only)"),
      whiteFlagIndex: int("the position in the milestone's white-flag order (once referenced)"),
      shouldPromote: { type: "boolean", description: "tip advice for a solid block not referenced yet" },
      shouldReattach: { type: "boolean", description: "tip advice for a solid block not referenced yet" },
    },
    ["blockId", "parents", "isSolid"],
    "the metadata of a block (TIP-25)",
  );
}

/** A Stardust output in TIP-25 JSON (TIP-18). */
export function output(): Schema {
  return openObject(
    {
      type: integer("the output type: 2 treasury, 3 basic, 4 alias, 5 foundry, 6 NFT", 0, 255),
      amount: string("the amount of base tokens, a decimal string"),
    },
    ["type", "amount"],
    "an output in TIP-25 JSON (TIP-18): native tokens, unlock conditions and features as the codec writes them",
  );
}

export function outputMetadata(): Schema {
  return closedObject<OutputMetadataJson>(
    {
      blockId: blockId(),
      transactionId: transactionId(),
      outputIndex: integer("the index of the output in its transaction", 0, 127),
      isSpent: { type: "boolean", description: "whether a confirmed transaction spent the output" },
      milestoneIndexSpent: integer("the milestone that spent it (spent only)"),
      milestoneTimestampSpent: integer("that milestone's timestamp, unix seconds (spent only)"),
      transactionIdSpent: transactionId(),
      milestoneIndexBooked: integer("the milestone that booked the output"),
      milestoneTimestampBooked: integer("that milestone's timestamp, unix seconds"),
      ledgerIndex: integer("the confirmed milestone the answer was read at"),
    },
    [
      "blockId",
      "transactionId",
      "outputIndex",
      "isSpent",
      "milestoneIndexBooked",
      "milestoneTimestampBooked",
      "ledgerIndex",
    ],
    "the metadata of an output (TIP-25)",
  );
}

export function outputWithMetadata(): Schema {
  return closedObject<OutputJsonResponse>(
    { metadata: outputMetadata(), output: output() },
    ["metadata", "output"],
    "an output and its metadata",
  );
}

/** A milestone payload in TIP-25 JSON (TIP-29). */
export function milestonePayload(): Schema {
  const hash = (what: string) => hexOfBytes(32, what);
  return openObject(
    {
      type: integer("7, the milestone payload type", 7, 7),
      index: integer("the milestone index", 0, 0xffffffff),
      timestamp: integer("unix seconds", 0, 0xffffffff),
      protocolVersion: integer("the protocol version", 0, 255),
      previousMilestoneId: milestoneId(),
      parents: arrayOf(blockId(), "the parent block IDs"),
      inclusionMerkleRoot: hash("the Merkle root of the blocks the milestone newly references"),
      appliedMerkleRoot: hash("the Merkle root of the blocks whose transactions it applied"),
      metadata: hexString("the milestone metadata", 0, 8192),
      options: arrayOf(
        openObject({ type: integer("the option type: 0 receipt, 1 protocol parameters") }, ["type"], "an option"),
        "the milestone options",
      ),
      signatures: arrayOf(
        openObject(
          {
            type: integer("0, Ed25519"),
            publicKey: hexOfBytes(32, "the public key"),
            signature: hexOfBytes(64, "the signature"),
          },
          ["type", "publicKey", "signature"],
          "a signature over the milestone essence",
        ),
        "the coordinator's signatures",
      ),
    },
    [
      "type",
      "index",
      "timestamp",
      "protocolVersion",
      "previousMilestoneId",
      "parents",
      "inclusionMerkleRoot",
      "appliedMerkleRoot",
      "metadata",
      "options",
      "signatures",
    ],
    "a milestone payload in TIP-25 JSON (TIP-29)",
  );
}

export function utxoChanges(): Schema {
  return closedObject<UtxoChangesJson>(
    {
      index: integer("the milestone index"),
      createdOutputs: arrayOf(outputId(), "the outputs the milestone created, white-flag order"),
      consumedOutputs: arrayOf(outputId(), "the outputs the milestone spent, white-flag order"),
    },
    ["index", "createdOutputs", "consumedOutputs"],
    "the ledger changes of a milestone",
  );
}
