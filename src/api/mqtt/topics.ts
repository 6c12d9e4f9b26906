import { addressFromBech32 } from "../../codec/address.js";
import { ANY_CONDITION, Topic, UNLOCK_CONDITIONS } from "../json/topics.js";

/**
 * The topics of the event API (TIP-28) as inx-mqtt names them (`components/mqtt/topics.go`;
 * the names are in json/topics.ts, which the dashboard shares), and which subscriptions this
 * node takes: exactly those topics, with IDs that parse, plus the
 * one wildcard inx-mqtt publishes to, `+` for the unlock condition of the output topics. Any
 * other filter (`#`, `blocks/+`, a malformed ID, a foreign address) is refused in the SUBACK.
 */

export {
  ANY_CONDITION,
  blockMetadataTopic,
  chainTopic,
  includedBlockTopic,
  outputTopic,
  Topic,
  taggedDataTopic,
  UNLOCK_CONDITIONS,
  type UnlockConditionName,
  unlockTopic,
} from "../json/topics.js";

/** What a subscription asks for when it wants the current state at once (inx-mqtt's `onSubscribeTopic`). */
export type CurrentState =
  | { kind: "milestoneLatest" }
  | { kind: "milestoneConfirmed" }
  | { kind: "blockMetadata"; blockIdHex: string }
  | { kind: "output"; outputIdHex: string }
  | { kind: "includedBlock"; transactionIdHex: string };

/** Lower-case 0x hex of exactly `bytes` bytes. */
const hexOf = (bytes: number) => new RegExp(`^0x[0-9a-f]{${bytes * 2}}$`);
const BLOCK_ID = hexOf(32);
const OUTPUT_ID = hexOf(34);
const FOUNDRY_ID = hexOf(38);
/** A tag is 1 to 64 bytes (TIP-23); the topic carries it as hex, as inx-mqtt encodes it. */
const TAG = /^0x(?:[0-9a-f]{2}){1,64}$/;

const EXACT = new Set<string>(Object.values(Topic));

/**
 * Whether `filter` is a topic this node publishes on (with `hrp` for the addresses), and what it
 * is owed at once; undefined when the subscription is refused.
 */
export function acceptSubscription(filter: string, hrp: string): { current?: CurrentState } | undefined {
  if (EXACT.has(filter)) {
    if (filter === Topic.MilestoneInfoLatest) return { current: { kind: "milestoneLatest" } };
    if (filter === Topic.MilestoneInfoConfirmed) return { current: { kind: "milestoneConfirmed" } };
    return {};
  }
  const levels = filter.split("/");
  const [first, second, third, fourth, fifth] = levels;
  switch (first) {
    case "blocks":
      if (levels.length === 3 && second === "tagged-data" && TAG.test(third!)) return {};
      if (levels.length === 4 && second === "transaction" && third === "tagged-data" && TAG.test(fourth!)) return {};
      return undefined;
    case "block-metadata":
      return levels.length === 2 && BLOCK_ID.test(second!)
        ? { current: { kind: "blockMetadata", blockIdHex: second! } }
        : undefined;
    case "transactions":
      return levels.length === 3 && BLOCK_ID.test(second!) && third === "included-block"
        ? { current: { kind: "includedBlock", transactionIdHex: second! } }
        : undefined;
    case "outputs":
      if (levels.length === 2)
        return OUTPUT_ID.test(second!) ? { current: { kind: "output", outputIdHex: second! } } : undefined;
      if (levels.length === 3) {
        if ((second === "alias" || second === "nft") && BLOCK_ID.test(third!)) return {};
        if (second === "foundry" && FOUNDRY_ID.test(third!)) return {};
        return undefined;
      }
      if (second !== "unlock" || (levels.length === 5 && fifth !== "spent") || levels.length > 5) return undefined;
      if (third !== ANY_CONDITION && !(UNLOCK_CONDITIONS as readonly string[]).includes(third!)) return undefined;
      try {
        addressFromBech32(fourth!, hrp, "address");
        return {};
      } catch {
        return undefined;
      }
    default:
      return undefined;
  }
}
