import { addressToBech32 } from "../../codec/address.js";
import { fromHex, toHex } from "../../codec/hex.js";
import { OUTPUT_ID_LENGTH } from "../../codec/ids.js";
import { decodeOutput, outputToJson } from "../../codec/outputs/output.js";
import { type Block, type Output, OutputType, PayloadType, UnlockConditionType } from "../../codec/types.js";
import { chainIdOf } from "../../indexer/index.js";
import type { LedgerOutput, WhiteFlagResult } from "../../ledger/whiteFlag.js";
import type { OutputRecord } from "../../storage/index.js";
import type { MilestoneInfo, NodeEventMap } from "../../tangle/events.js";
import type { ApiNode } from "../apiNode.js";
import { type BlockMetadataJson, LEDGER_INCLUSION_STATES } from "../json/core.js";
import { blockMetadata } from "../routes/coreBlocks.js";
import { outputMetadataJson } from "../routes/coreOutputs.js";
import type { EventBroker, Message } from "./broker.js";
import {
  ANY_CONDITION,
  blockMetadataTopic,
  type CurrentState,
  chainTopic,
  includedBlockTopic,
  outputTopic,
  Topic,
  taggedDataTopic,
  type UnlockConditionName,
  unlockTopic,
} from "./topics.js";

/**
 * What the node's event stream becomes on the event API, as inx-mqtt publishes it
 * (`components/mqtt/publish.go`):
 *
 * - a block taken in: `blocks` and the topic of its payload kind (`blocks/transaction`,
 *   `.../tagged-data[/{tag}]`), its bytes; a milestone's payload bytes on `milestones`;
 * - a milestone announced: `milestone-info/latest`; a milestone confirmed (its batch on disk):
 *   `milestone-info/confirmed`, then in white-flag order each referenced block's metadata
 *   (`block-metadata/referenced`, `block-metadata/{id}`), the blocks that included a
 *   transaction (`transactions/{id}/included-block`), the outputs it created and those it spent
 *   (`outputs/{id}`, the alias/NFT/foundry topics, `outputs/unlock/{condition}/{address}[/spent]`);
 * - a block that became solid: `block-metadata/{id}`.
 *
 * A milestone's events go out after the previous milestone's, whatever reads they wait for.
 * Nothing is built for a topic nobody subscribed to. The node issues no receipts (it has no
 * migration from a legacy network), so nothing is ever published on `receipts`.
 */

type EventNode = Pick<ApiNode, "tangle" | "db">;

const json = (value: unknown) => Buffer.from(JSON.stringify(value));

/** Referenced blocks published in one go before the event loop gets a turn. */
const PUBLISH_SLICE = 64;

/** The unlock conditions of an output that name an address, by their topic name. */
function unlockAddresses(output: Output): [UnlockConditionName, Parameters<typeof addressToBech32>[0]][] {
  if (output.type === OutputType.Treasury) return [];
  const out: [UnlockConditionName, Parameters<typeof addressToBech32>[0]][] = [];
  for (const uc of output.unlockConditions) {
    switch (uc.type) {
      case UnlockConditionType.Address:
        out.push(["address", uc.address]);
        break;
      case UnlockConditionType.StorageDepositReturn:
        out.push(["storage-return", uc.returnAddress]);
        break;
      case UnlockConditionType.Expiration:
        out.push(["expiration", uc.returnAddress]);
        break;
      case UnlockConditionType.StateControllerAddress:
        out.push(["state-controller", uc.address]);
        break;
      case UnlockConditionType.GovernorAddress:
        out.push(["governor", uc.address]);
        break;
      case UnlockConditionType.ImmutableAliasAddress:
        out.push(["immutable-alias", uc.address]);
        break;
    }
  }
  return out;
}

/** The bytes of a block's payload within its bytes (TIP-24: version, parents, length, payload, nonce). */
function payloadBytes(bytes: Uint8Array): Uint8Array {
  const start = 2 + 32 * bytes[1]! + 4;
  return bytes.subarray(start, bytes.length - 8);
}

export class EventPublisher {
  /** The newest milestone announced (for `milestone-info/latest` at subscription). */
  private latest: MilestoneInfo;
  /** The milestones' publishing, one after the other. */
  private milestones: Promise<void> = Promise.resolve();

  constructor(
    private readonly node: EventNode,
    private readonly broker: EventBroker,
    private readonly onError: (e: unknown) => void,
  ) {
    this.latest = node.tangle.latestMilestone;
  }

  private get hrp(): string {
    return this.node.tangle.protocolParameters.bech32Hrp;
  }

  // ---- listeners of the node's events (attached in api/server.ts) ----

  /** `blockTaken`: `blocks`, `blocks/...` and `milestones`. */
  onBlockTaken(e: NodeEventMap["blockTaken"]): void {
    this.blockTaken(e.block, e.bytes);
  }

  /** `blockSolid`: `block-metadata/{id}`. */
  onBlockSolid(e: NodeEventMap["blockSolid"]): void {
    this.blockSolid(e.blockId, e.key);
  }

  /** `milestoneConfirmed`: published in the order they came, one after the other. */
  onMilestoneConfirmed(e: NodeEventMap["milestoneConfirmed"]): void {
    this.milestones = this.milestones
      .then(() => this.milestoneConfirmed(e.milestone, e.result))
      .catch((err: unknown) => this.onError(err));
  }

  /** Resolves once every milestone event received so far is published (tests, shutdown). */
  idle(): Promise<void> {
    return this.milestones;
  }

  /** The message a subscription is owed at once, when the state exists. */
  async current(state: CurrentState): Promise<Message | undefined> {
    switch (state.kind) {
      case "milestoneLatest":
        return this.latest.index > 0
          ? { topic: Topic.MilestoneInfoLatest, payload: json(milestoneInfo(this.latest)) }
          : undefined;
      case "milestoneConfirmed": {
        const confirmed = this.node.tangle.latestMilestone;
        return confirmed.index > 0
          ? { topic: Topic.MilestoneInfoConfirmed, payload: json(milestoneInfo(confirmed)) }
          : undefined;
      }
      case "blockMetadata": {
        const id = fromHex(state.blockIdHex, "blockId", 32);
        if (!(await this.node.tangle.getMetadata(id))) return undefined;
        return {
          topic: blockMetadataTopic(state.blockIdHex),
          payload: json(await blockMetadata(this.node.tangle, id)),
        };
      }
      case "output": {
        const id = fromHex(state.outputIdHex, "outputId", OUTPUT_ID_LENGTH);
        const record = await this.node.db.outputs.get(id);
        if (!record) return undefined;
        const ledgerIndex = await this.node.db.nodeState.ledgerIndex();
        return { topic: outputTopic(state.outputIdHex), payload: json(outputPayload(id, record, ledgerIndex)) };
      }
      case "includedBlock": {
        const record = await this.node.db.transactionBlocks.get(fromHex(state.transactionIdHex, "transactionId", 32));
        const bytes = record && (await this.node.tangle.getBlockBytes(record.blockId));
        return bytes ? { topic: includedBlockTopic(state.transactionIdHex), payload: Buffer.from(bytes) } : undefined;
      }
    }
  }

  private blockTaken(block: Block, bytes: Uint8Array): void {
    const b = this.broker;
    // every block is taken in: no topic string (nor the tag's hex) built when nobody follows blocks
    if (!b.hasSubscribersUnder("blocks") && !b.hasSubscribersUnder("milestones")) return;
    const raw = () => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    b.publish(Topic.Blocks, raw);
    const payload = block.payload;
    if (payload?.type === PayloadType.Transaction) {
      b.publish(Topic.BlocksTransaction, raw);
      const inner = payload.essence.payload;
      if (inner?.type === PayloadType.TaggedData) {
        b.publish(Topic.BlocksTransactionTaggedData, raw);
        if (inner.tag.length > 0) b.publish(taggedDataTopic(toHex(inner.tag), true), raw);
      }
    } else if (payload?.type === PayloadType.TaggedData) {
      b.publish(Topic.BlocksTaggedData, raw);
      if (payload.tag.length > 0) b.publish(taggedDataTopic(toHex(payload.tag), false), raw);
    } else if (payload?.type === PayloadType.Milestone) {
      b.publish(Topic.Milestones, () => Buffer.from(payloadBytes(bytes)));
    }
  }

  private blockSolid(blockId: Uint8Array, key: string): void {
    // every block turns solid: no topic string for it when nobody follows any block's metadata
    if (!this.broker.hasSubscribersUnder("block-metadata")) return;
    const topic = blockMetadataTopic(key);
    if (!this.broker.hasSubscribers(topic)) return;
    blockMetadata(this.node.tangle, blockId).then(
      (meta) => this.broker.publish(topic, json(meta)),
      (e: unknown) => this.onError(e),
    );
  }

  /**
   * `reverted`: the ledger's milestone is the latest again (a dev revert or reset moved it back),
   * said on `milestone-info/latest` and `…/confirmed` after the milestones published before it.
   */
  reverted(e: NodeEventMap["reverted"]): void {
    const m = e.milestone;
    this.latest = m;
    this.milestones = this.milestones.then(() => {
      this.latest = m;
      if (m.index === 0) return;
      this.broker.publish(Topic.MilestoneInfoLatest, () => json(milestoneInfo(m)));
      this.broker.publish(Topic.MilestoneInfoConfirmed, () => json(milestoneInfo(m)));
    });
  }

  /** `latestMilestone`: `milestone-info/latest`. */
  latestMilestone(e: NodeEventMap["latestMilestone"]): void {
    if (e.index <= this.latest.index) return;
    this.latest = { index: e.index, milestoneId: e.milestoneId, blockId: e.blockId, timestamp: e.timestamp };
    this.broker.publish(Topic.MilestoneInfoLatest, () => json(milestoneInfo(this.latest)));
  }

  private async milestoneConfirmed(milestone: MilestoneInfo, result: WhiteFlagResult): Promise<void> {
    const b = this.broker;
    if (milestone.index > this.latest.index) this.latest = milestone;
    b.publish(Topic.MilestoneInfoConfirmed, () => json(milestoneInfo(milestone)));
    await this.referencedBlocks(milestone, result);
    await this.includedBlocks(result);
    if (b.hasSubscribersUnder("outputs")) this.outputs(milestone, result);
  }

  /** Each referenced block's metadata, in white-flag order, to whoever wants it. */
  private async referencedBlocks(milestone: MilestoneInfo, result: WhiteFlagResult): Promise<void> {
    const b = this.broker;
    // a milestone references thousands of blocks: nothing per block when nobody follows their metadata
    if (!b.hasSubscribersUnder("block-metadata")) return;
    const all = b.hasSubscribers(Topic.BlockMetadataReferenced);
    const keyOf = (r: WhiteFlagResult["referenced"][number]) => r.key ?? toHex(r.blockId);
    const wanted = result.referenced.filter((r) => all || b.hasSubscribers(blockMetadataTopic(keyOf(r))));
    if (wanted.length === 0) return;
    for (let i = 0; i < wanted.length; i++) {
      // a wide milestone is published in slices, so intake and the other topics' deliveries
      // go on in between (white-flag order holds: the slices are in order)
      if (i > 0 && i % PUBLISH_SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
      const r = wanted[i]!;
      const id = keyOf(r);
      // parents and milestone index come with the white-flag result: no block is read back
      const meta: BlockMetadataJson = {
        blockId: id,
        parents: r.parents.map(toHex),
        isSolid: true,
        referencedByMilestoneIndex: milestone.index,
      };
      if (r.milestoneIndex !== undefined) meta.milestoneIndex = r.milestoneIndex;
      meta.ledgerInclusionState = LEDGER_INCLUSION_STATES[r.inclusionState] ?? "noTransaction";
      if (meta.ledgerInclusionState === "conflicting") meta.conflictReason = r.conflictReason;
      meta.whiteFlagIndex = r.whiteFlagIndex;
      const payload = json(meta);
      if (all) b.publish(Topic.BlockMetadataReferenced, payload);
      b.publish(blockMetadataTopic(id), payload);
    }
  }

  /** The block that included each transaction, to the subscribers of that transaction. */
  private async includedBlocks(result: WhiteFlagResult): Promise<void> {
    // a milestone includes thousands of transactions: no topic string per one when nobody follows any
    if (!this.broker.hasSubscribersUnder("transactions")) return;
    for (const t of result.included) {
      const topic = includedBlockTopic(toHex(t.transactionId));
      if (!this.broker.hasSubscribers(topic)) continue;
      const bytes = await this.node.tangle.getBlockBytes(t.blockId);
      if (bytes) this.broker.publish(topic, Buffer.from(bytes));
    }
  }

  /** The outputs the milestone created, then those it spent, on their output topics. */
  private outputs(milestone: MilestoneInfo, result: WhiteFlagResult): void {
    const ledgerIndex = milestone.index;
    const created = [...result.created, ...result.createdAndConsumed.map((s) => s.output)];
    for (const o of created) {
      const payload = lazy(() => json(outputPayload(o.outputId, recordOf(o), ledgerIndex)));
      this.publishOutput(o, payload, false);
    }
    for (const s of [...result.consumed, ...result.createdAndConsumed]) {
      const spent = {
        spentIndex: milestone.index,
        spentTimestamp: milestone.timestamp,
        transactionId: s.spendingTransactionId,
      };
      const payload = lazy(() => json(outputPayload(s.output.outputId, { ...recordOf(s.output), spent }, ledgerIndex)));
      this.publishOutput(s.output, payload, true);
    }
  }

  private publishOutput(o: LedgerOutput, payload: () => Buffer, spent: boolean): void {
    const b = this.broker;
    b.publish(outputTopic(toHex(o.outputId)), payload);
    if (!spent) {
      const kind = o.output.type === OutputType.Alias ? "alias" : o.output.type === OutputType.Nft ? "nft" : "foundry";
      const chainId = o.output.type === OutputType.Basic ? undefined : chainIdOf(o);
      if (chainId) b.publish(chainTopic(kind, toHex(chainId)), payload);
    }
    // each condition's topic, then the `+` topic once per address (inx-mqtt's addressesToPublishForAny)
    const anyTopics = new Set<string>();
    for (const [condition, address] of unlockAddresses(o.output)) {
      const bech32 = addressToBech32(address, this.hrp);
      b.publish(unlockTopic(condition, bech32, spent), payload);
      anyTopics.add(unlockTopic(ANY_CONDITION, bech32, spent));
    }
    for (const topic of anyTopics) b.publish(topic, payload);
  }
}

function lazy(make: () => Buffer): () => Buffer {
  let value: Buffer | undefined;
  return () => {
    value ??= make();
    return value;
  };
}

function recordOf(o: LedgerOutput): OutputRecord {
  return {
    blockId: o.blockId,
    bookedIndex: o.bookedIndex,
    bookedTimestamp: o.bookedTimestamp,
    proof: new Uint8Array(),
    outputBytes: o.outputBytes,
  };
}

function milestoneInfo(m: MilestoneInfo) {
  return { index: m.index, timestamp: m.timestamp, milestoneId: toHex(m.milestoneId) };
}

/** `{metadata, output}` as `GET /api/core/v2/outputs/{id}` answers it. */
function outputPayload(outputId: Uint8Array, record: OutputRecord, ledgerIndex: number) {
  return {
    metadata: outputMetadataJson(outputId, record, ledgerIndex),
    output: outputToJson(decodeOutput(record.outputBytes)),
  };
}
