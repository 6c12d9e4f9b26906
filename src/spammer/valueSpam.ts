import { ed25519AddressOf, serializeAddressBytes } from "../codec/address.js";
import { bytesEqual } from "../codec/hex.js";
import { computeTransactionId, networkIdFromName, outputIdFromParts } from "../codec/ids.js";
import { decodeOutput, encodeOutput } from "../codec/outputs/output.js";
import {
  type Ed25519Address,
  OutputType,
  type ProtocolParameters,
  type TransactionPayload,
  UnlockConditionType,
} from "../codec/types.js";
import { blake2b256 } from "../crypto/blake2b.js";
import { type Ed25519KeyPair, ed25519KeyPairFromSeed } from "../crypto/ed25519.js";
import { basicOutputDeposit, buildFaucetTransaction, type FaucetInput, planBatch } from "../faucet/transaction.js";
import { IndexedField, type Indexer } from "../indexer/index.js";
import { type BlockMetadataRecord, InclusionState, type OutputRecord } from "../storage/index.js";
import { ChainCycle, type CycleTransfer } from "./chainCycle.js";
import { SPAMMER_TAG } from "./options.js";

/**
 * Value spam (inx-spammer's `valueSpam`, its first states `basicOutputCreate` and
 * `basicOutputSend`): signed basic transfers among the spammer's own addresses, paid from the
 * funded key once. `LANES` lanes, each a pair of addresses derived from the funded seed that
 * hands one output back and forth; a lane's next transfer spends the output its last one created
 * before any milestone confirmed it, and names that transfer's block among its parents, so the
 * white-flag order (TIP-2) meets the spent output first. One transfer per lane is in flight at a
 * time. After each milestone a lane whose last transfer was referenced as included is confirmed
 * up to there; one whose transfer conflicted, was dropped or is below max depth is read again
 * from the ledger. Lanes the ledger has no output for are funded by one transaction from the
 * funded key (`fund`), whose block the lanes then name as their parent.
 *
 * Lane 0 runs inx-spammer's later states instead (chainCycle.ts): an alias created, state
 * transitioned and destroyed, a foundry minting native tokens, melting them and destroyed, an
 * NFT created, sent and destroyed, one step per block.
 */

/** Lanes of transfers; transfers in flight at most. */
export const LANES = 16;

/** What each lane's output holds, in base units (1 token of 6 decimals). */
export const LANE_AMOUNT = 1_000_000n;

/** What value spam reads of the node. */
export interface ValueSpamDeps {
  readonly tangle: {
    readonly protocolParameters: ProtocolParameters;
    readonly latestMilestone: { index: number };
    getMetadata(blockId: Uint8Array): Promise<BlockMetadataRecord | undefined>;
    isBelowMaxDepth(blockId: Uint8Array): Promise<boolean>;
  };
  readonly indexer: Pick<Indexer, "outputs">;
  readonly outputs: { getMany(ids: readonly Uint8Array[]): Promise<(OutputRecord | undefined)[]> };
}

interface Holder {
  keyPair: Ed25519KeyPair;
  address: Ed25519Address;
}

/** One lane: two addresses and the output one of them holds. */
export interface Lane {
  readonly index: number;
  readonly holders: [Holder, Holder];
  /** Which holder owns `output`. */
  owner: 0 | 1;
  output: FaucetInput | undefined;
  /** The block of the transfer that created `output`, while no milestone has confirmed it. */
  head: Uint8Array | undefined;
  /** A transfer of this lane is being submitted. */
  busy: boolean;
}

/** A transfer ready to submit, and what to record once its block is taken. */
export interface Transfer {
  lane: Lane;
  transaction: TransactionPayload;
  /** A block its parents must name (the block that created its input), if unconfirmed. */
  parent: Uint8Array | undefined;
  /** The chain lane's step: what it records once the block is taken. */
  cycle?: CycleTransfer;
}

const holderOf = (seed: Uint8Array): Holder => {
  const keyPair = ed25519KeyPairFromSeed(seed);
  return { keyPair, address: ed25519AddressOf(blake2b256(keyPair.publicKey)) };
};

/** The seed of lane `i`'s holder `h`: BLAKE2b-256 of the funded seed, a label and both numbers. */
function laneSeed(funded: Uint8Array, i: number, h: number): Uint8Array {
  const label = new TextEncoder().encode(`spammer lane ${i}.${h}`);
  const bytes = new Uint8Array(funded.length + label.length);
  bytes.set(funded);
  bytes.set(label, funded.length);
  return blake2b256(bytes);
}

export class ValueSpam {
  readonly funder: Holder;
  readonly lanes: Lane[];
  private next = 0;
  private turn = 0;
  /** The ledger index the lanes were last checked at. */
  private checkedAt = -1;
  private checking: Promise<void> | undefined;
  /** The funding transaction's block, while no milestone has referenced it. */
  private funding: Uint8Array | undefined;
  /** Lane 0 runs the chain cycle (chainCycle.ts) instead of basic transfers. */
  private readonly cycle: ChainCycle;

  constructor(
    private readonly deps: ValueSpamDeps,
    fundedSeed: Uint8Array,
  ) {
    this.funder = holderOf(fundedSeed);
    this.lanes = Array.from({ length: LANES }, (_, index) => ({
      index,
      holders: [holderOf(laneSeed(fundedSeed, index, 0)), holderOf(laneSeed(fundedSeed, index, 1))] as [Holder, Holder],
      owner: 0 as const,
      output: undefined,
      head: undefined,
      busy: false,
    }));
    const lane0 = this.lanes[0]!;
    const params = deps.tangle.protocolParameters;
    this.cycle = new ChainCycle(
      lane0.holders[0],
      lane0.holders[1],
      networkIdFromName(params.networkName),
      params.rentStructure,
      new TextEncoder().encode(SPAMMER_TAG),
    );
  }

  /** The lanes' outputs as the ledger holds them (a start); one read at a time. */
  refresh(): Promise<void> {
    const index = this.deps.tangle.latestMilestone.index;
    if (this.checking) return this.checking;
    if (index === this.checkedAt) return Promise.resolve();
    this.checking = this.check(index).finally(() => {
      this.checking = undefined;
    });
    return this.checking;
  }

  /** Forgets what the lanes held: the next `refresh` reads the ledger for every lane. */
  forget(): void {
    for (const lane of this.lanes) {
      lane.output = undefined;
      lane.head = undefined;
    }
    this.funding = undefined;
    this.checkedAt = -1;
  }

  /**
   * 1. Each idle lane with an unconfirmed transfer: included → confirmed; conflicting, dropped or
   *    below max depth → read again. 2. Each lane without an output: read from the ledger.
   */
  private async check(index: number): Promise<void> {
    if (this.funding) {
      const meta = await this.deps.tangle.getMetadata(this.funding);
      if (!meta || meta.referencedByMilestoneIndex > 0 || (await this.deps.tangle.isBelowMaxDepth(this.funding)))
        this.funding = undefined;
    }
    for (const lane of this.lanes) {
      if (lane.busy || !lane.head) continue;
      const head = lane.head;
      const meta = await this.deps.tangle.getMetadata(head);
      if (lane.busy || lane.head !== head) continue;
      if (meta && meta.referencedByMilestoneIndex > 0) {
        if (meta.inclusionState === InclusionState.Included) lane.head = undefined;
        else this.drop(lane);
      } else if (!meta || (await this.deps.tangle.isBelowMaxDepth(head))) {
        this.drop(lane);
      }
    }
    for (const lane of this.lanes) {
      if (lane.busy || lane.output || this.funding) continue;
      await this.readLane(lane);
    }
    this.checkedAt = index;
  }

  private drop(lane: Lane): void {
    lane.output = undefined;
    lane.head = undefined;
  }

  /** The lane's output as the ledger holds it: the first unspent basic output of either address. */
  private async readLane(lane: Lane): Promise<void> {
    // the chain lane's basic output is always its first holder's
    for (const owner of lane.index === 0 ? ([0] as const) : ([0, 1] as const)) {
      const [found] = await this.spendable(lane.holders[owner].address, 1);
      if (found && !lane.busy) {
        lane.output = found;
        lane.owner = owner;
        lane.head = undefined;
        if (lane.index === 0) this.cycle.reset(found);
        return;
      }
    }
  }

  /** Basic outputs of `address` with its address as the only condition and no native tokens. */
  private async spendable(address: Ed25519Address, pageSize: number): Promise<FaucetInput[]> {
    const page = await this.deps.indexer.outputs({
      type: OutputType.Basic,
      fields: [{ field: IndexedField.Address, value: serializeAddressBytes(address) }],
      hasNativeTokens: false,
      hasStorageDepositReturn: false,
      hasExpiration: false,
      hasTimelock: false,
      pageSize,
    });
    const records = await this.deps.outputs.getMany(page.items);
    const found: FaucetInput[] = [];
    records.forEach((record, i) => {
      if (!record || record.spent) return;
      const output = decodeOutput(record.outputBytes);
      if (output.type !== OutputType.Basic || output.unlockConditions.length !== 1) return;
      if (output.unlockConditions[0]!.type !== UnlockConditionType.Address) return;
      found.push({ outputId: page.items[i]!, amount: output.amount, outputBytes: record.outputBytes });
    });
    return found;
  }

  /** Lanes without an output, when no funding is under way. */
  get unfunded(): Lane[] {
    return this.funding ? [] : this.lanes.filter((l) => !l.output && !l.busy);
  }

  /**
   * The transaction paying `LANE_AMOUNT` to each lane without an output, from the funded key's
   * outputs (the faucet's plan and builder, src/faucet/transaction.ts); undefined when none is
   * needed or the key cannot pay. `funded(...)` records it once its block is taken.
   */
  async fundingTransaction(): Promise<{ transaction: TransactionPayload; lanes: Lane[] } | undefined> {
    const lanes = this.unfunded;
    if (lanes.length === 0) return undefined;
    const params = this.deps.tangle.protocolParameters;
    const inputs = await this.spendable(this.funder.address, 128);
    const deposit = basicOutputDeposit(this.funder.address, params.rentStructure);
    const plan = planBatch(inputs, lanes.length, LANE_AMOUNT, deposit);
    if (!plan) return undefined;
    const paid = lanes.slice(0, plan.served);
    const transaction = buildFaucetTransaction({
      networkId: networkIdFromName(params.networkName),
      keyPair: this.funder.keyPair,
      faucetAddress: this.funder.address,
      plan,
      recipients: paid.map((l) => l.holders[0].address),
      amount: LANE_AMOUNT,
      tag: SPAMMER_TAG,
    });
    return { transaction, lanes: paid };
  }

  /** The funding transaction's block was taken: its lanes hold their outputs, unconfirmed. */
  funded(transaction: TransactionPayload, lanes: readonly Lane[], blockId: Uint8Array): void {
    const txId = computeTransactionId(transaction);
    this.funding = blockId;
    lanes.forEach((lane, i) => {
      const output = transaction.essence.outputs[i]!;
      lane.output = { outputId: outputIdFromParts(txId, i), amount: output.amount, outputBytes: encodeOutput(output) };
      lane.owner = 0;
      lane.head = blockId;
      if (lane.index === 0) this.cycle.reset(lane.output);
    });
  }

  /** The next idle lane's transfer to its other address, the lane marked busy; undefined when every lane is busy or empty. */
  takeTransfer(): Transfer | undefined {
    // every other transfer is the chain lane's step when it is idle, so a low rate still runs
    // whole cycles; the rest go round the basic lanes
    const chainFirst = this.turn++ % 2 === 0;
    for (let k = 0; k < this.lanes.length; k++) {
      const lane = chainFirst && k === 0 ? this.lanes[0]! : this.lanes[(this.next + k) % this.lanes.length]!;
      if (lane.busy || !lane.output) continue;
      if (!(chainFirst && k === 0)) this.next = (lane.index + 1) % this.lanes.length;
      lane.busy = true;
      if (lane.index === 0) {
        const cycle = this.cycle.transfer();
        if (cycle) return { lane, transaction: cycle.transaction, parent: lane.head, cycle };
        lane.busy = false;
        continue;
      }
      const from = lane.holders[lane.owner];
      const to = lane.holders[lane.owner === 0 ? 1 : 0];
      const params = this.deps.tangle.protocolParameters;
      const transaction = buildFaucetTransaction({
        networkId: networkIdFromName(params.networkName),
        keyPair: from.keyPair,
        faucetAddress: from.address,
        plan: { inputs: [lane.output], served: 1, remainder: 0n },
        recipients: [to.address],
        amount: lane.output.amount,
        tag: SPAMMER_TAG,
      });
      return { lane, transaction, parent: lane.head };
    }
    return undefined;
  }

  /** The transfer's block was taken (`blockId`), or refused (undefined: the lane is read again). */
  settle(transfer: Transfer, blockId: Uint8Array | undefined): void {
    const { lane, transaction } = transfer;
    lane.busy = false;
    if (!blockId) {
      this.drop(lane);
      return;
    }
    if (transfer.cycle) {
      transfer.cycle.apply();
      lane.output = this.cycle.basicOutput;
      lane.head = blockId;
      return;
    }
    const output = transaction.essence.outputs[0]!;
    lane.output = {
      outputId: outputIdFromParts(computeTransactionId(transaction), 0),
      amount: output.amount,
      outputBytes: encodeOutput(output),
    };
    lane.owner = lane.owner === 0 ? 1 : 0;
    lane.head = blockId;
  }
}

/**
 * Parents naming `required` (a block the payload depends on) beside the tips: at most 8, sorted
 * and unique (TIP-24).
 */
export function parentsWith(required: Uint8Array | undefined, tips: readonly Uint8Array[]): Uint8Array[] {
  if (!required) return [...tips];
  const others = tips.filter((t) => !bytesEqual(t, required)).slice(0, 7);
  return [required, ...others].sort((a, b) => Buffer.compare(a, b));
}
