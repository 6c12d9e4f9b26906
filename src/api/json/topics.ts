/**
 * The topics of the event API (TIP-28) as inx-mqtt names them (`components/mqtt/topics.go`):
 * the names the node publishes on (mqtt/publisher.ts) and takes subscriptions to
 * (mqtt/topics.ts), shared with the dashboard (web/), which imports this module as it is: it
 * imports nothing.
 */

export const Topic = {
  MilestoneInfoLatest: "milestone-info/latest",
  MilestoneInfoConfirmed: "milestone-info/confirmed",
  Milestones: "milestones",
  Blocks: "blocks",
  BlocksTransaction: "blocks/transaction",
  BlocksTransactionTaggedData: "blocks/transaction/tagged-data",
  BlocksTaggedData: "blocks/tagged-data",
  BlockMetadataReferenced: "block-metadata/referenced",
  Receipts: "receipts",
} as const;

/** The unlock conditions of the `outputs/unlock/{condition}/{address}` topics, by name. */
export const UNLOCK_CONDITIONS = [
  "address",
  "storage-return",
  "expiration",
  "state-controller",
  "governor",
  "immutable-alias",
] as const;
export type UnlockConditionName = (typeof UNLOCK_CONDITIONS)[number];

/** The wildcard level that stands for any unlock condition. */
export const ANY_CONDITION = "+";

export const taggedDataTopic = (tagHex: string, inTransaction: boolean): string =>
  `${inTransaction ? Topic.BlocksTransactionTaggedData : Topic.BlocksTaggedData}/${tagHex}`;
export const blockMetadataTopic = (blockIdHex: string): string => `block-metadata/${blockIdHex}`;
export const includedBlockTopic = (transactionIdHex: string): string =>
  `transactions/${transactionIdHex}/included-block`;
export const outputTopic = (outputIdHex: string): string => `outputs/${outputIdHex}`;
export const chainTopic = (kind: "alias" | "nft" | "foundry", idHex: string): string => `outputs/${kind}/${idHex}`;
export const unlockTopic = (condition: UnlockConditionName | typeof ANY_CONDITION, bech32: string, spent: boolean) =>
  `outputs/unlock/${condition}/${bech32}${spent ? "/spent" : ""}`;
