import { addressFromBech32, addressToBech32, ed25519AddressOf, serializeAddressBytes } from "../codec/address.js";
import { bytesEqual, toHex } from "../codec/hex.js";
import { computeTransactionId, networkIdFromName, outputIdFromParts } from "../codec/ids.js";
import type { Address, Block, ProtocolParameters } from "../codec/types.js";
import { bech32Decode } from "../crypto/bech32.js";
import { blake2b256 } from "../crypto/blake2b.js";
import { type Ed25519KeyPair, ed25519KeyPairFromSeed } from "../crypto/ed25519.js";
import type { Indexer } from "../indexer/index.js";
import { type BlockMetadataRecord, InclusionState, type OutputRecord } from "../storage/index.js";
import { type Miner, ownMiner } from "../tangle/blockCompletion.js";
import type { MilestoneInfo } from "../tangle/events.js";
import { type BlockIntake, takenBlock } from "../tangle/intake.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { FaucetErrorCode } from "./errors.js";
import { checkFaucetOptions, type FaucetOptions, MAX_TRANSACTION_INPUTS } from "./options.js";
import { spendableInput, spendableOutputs } from "./ownOutputs.js";
import { RateLimiter } from "./rateLimiter.js";
import {
  type BatchPlan,
  basicOutputDeposit,
  buildFaucetTransaction,
  type FaucetInput,
  gatherInputs,
  planBatch,
  sweepPlan,
} from "./transaction.js";

/**
 * A faucet inside the node, as inx-faucet (`pkg/faucet/faucet.go`) serves one beside Hornet:
 * requests are checked and queued; after each confirmed milestone, when no faucet transaction
 * is pending, ONE transaction pays up to `batchSize` queued addresses `amount` each from the
 * faucet's unspent basic outputs, with the remainder back to the faucet; the node mines its
 * block and takes it in through its intake like a client's. The faucet then waits for a
 * milestone to reference that block: included, its requests are done; conflicting, or never
 * to be referenced (below max depth, dropped), they go back to the front of the queue and the
 * next transaction is built from the ledger as it then is. One transaction is in flight at a
 * time, so each spends what the previous one left (its remainder) and none conflicts with its
 * predecessor; inx-faucet chains unconfirmed remainders instead, for throughput we do not need.
 * Outputs others send the faucet's address are spent along with its own once they crowd it
 * (`CROWDED`), as inx-faucet sweeps every output it holds into each transaction.
 */

/** What the faucet reads of the node and hands to it (node/components.ts builds it). */
export interface FaucetDeps {
  tangle: {
    readonly protocolParameters: ProtocolParameters;
    readonly latestMilestone: MilestoneInfo;
    selectParents(): Uint8Array[];
    getMetadata(blockId: Uint8Array): Promise<BlockMetadataRecord | undefined>;
    isBelowMaxDepth(blockId: Uint8Array): Promise<boolean>;
  };
  indexer: Pick<Indexer, "outputs">;
  /** Output records by output ID (the repositories'). */
  outputs: { getMany(ids: readonly Uint8Array[]): Promise<(OutputRecord | undefined)[]> };
  intake: Pick<BlockIntake, "refusal" | "submitDraft">;
  /** Where failures and refused transactions are reported (the node logs them); never thrown at the node. */
  onError(e: unknown): void;
  /** Mines a nonce for block bytes to the score; the node's own miner pool by default. */
  mine?: Miner;
  /** The clock of the rate limits. */
  now?(): number;
}

/** One queued request. */
interface Request {
  /** Hex of the 33 serialized address bytes: one request per address, however it is spelt. */
  key: string;
  address: Address;
}

/** The transaction in flight and what it pays. */
interface Pending {
  blockId: Uint8Array;
  transactionId: Uint8Array;
  requests: Request[];
  /** Index of its output back to the faucet, if it has one (the last). */
  remainderIndex: number | undefined;
}

/** What `enqueue` answers (inx-faucet's `EnqueueResponse`). */
export interface EnqueueResult {
  address: string;
  waitingRequests: number;
}

/**
 * More spendable outputs than one transaction can spend (TIP-20: 128 inputs) make the faucet's
 * address crowded: anyone can send it outputs of a storage deposit each, and in the listing
 * (oldest first) enough of them would hide its funds. A crowded faucet gathers them: each
 * payment spends as many as it may have inputs, and when nobody is waiting one transaction
 * gathers them alone, so the dust is spent at 128 outputs per milestone, into the faucet's
 * own funds.
 */
export const CROWDED = MAX_TRANSACTION_INPUTS;

/** The refusal of a request, with inx-faucet's words. */
const refuse = (code: FaucetErrorCode, message: string) => new LedgerNodeError(code, message);

export class Faucet {
  readonly address: Address;
  private readonly keyPair: Ed25519KeyPair;
  private readonly queue: Request[] = [];
  /** Keys of every request queued or paid by the pending transaction. */
  private readonly waiting = new Set<string>();
  private pending: Pending | undefined;
  private readonly perAddress: RateLimiter;
  private readonly perClient: RateLimiter;
  /** The faucet's spendable outputs as of a ledger index, read once per milestone. */
  private own: { ledgerIndex: number; read: Promise<{ inputs: FaucetInput[]; total: bigint }> } | undefined;
  /**
   * The output the faucet's last included transaction sent back to it: its funds, newer than
   * anything else it holds, so read by ID rather than found in the listing (`CROWDED`).
   */
  private remainder: Uint8Array | undefined;
  private ticking: Promise<void> | undefined;
  private tickAgain = false;
  private stopped = false;
  private readonly deposit: bigint;

  constructor(
    private readonly deps: FaucetDeps,
    readonly options: FaucetOptions,
  ) {
    checkFaucetOptions(options);
    this.keyPair = ed25519KeyPairFromSeed(options.seed);
    this.address = ed25519AddressOf(blake2b256(this.keyPair.publicKey));
    const params = deps.tangle.protocolParameters;
    this.deposit = basicOutputDeposit(this.address, params.rentStructure);
    if (options.amount < this.deposit) {
      throw refuse(
        FaucetErrorCode.InvalidOptions,
        `faucet options: the amount ${options.amount} is below the storage deposit of a basic output, ${this.deposit} (TIP-19)`,
      );
    }
    const now = deps.now ?? Date.now;
    this.perAddress = new RateLimiter(options.perAddress, 100_000, now);
    this.perClient = new RateLimiter(options.perClient, 100_000, now);
  }

  /**
   * After each milestone's batch is on disk (a listener of `milestoneConfirmed`,
   * node/components.ts): settle the pending transaction, send the next.
   */
  milestoneConfirmed(): void {
    this.schedule();
  }

  /** The faucet's address in bech32 (TIP-31) with the network's HRP. */
  get bech32(): string {
    return addressToBech32(this.address, this.deps.tangle.protocolParameters.bech32Hrp);
  }

  /** Requests queued or paid by the pending transaction (inx-faucet's `waitingRequests`). */
  get waitingRequests(): number {
    return this.waiting.size;
  }

  /** Requests waiting for a transaction (not the pending one's). */
  get queued(): number {
    return this.queue.length;
  }

  /** The pending transaction's block ID, if any. */
  get pendingBlockId(): Uint8Array | undefined {
    return this.pending?.blockId;
  }

  /**
   * Counts one enqueue call of `client` (its IP address) against the per-client limit, before
   * anything else is looked at, as inx-faucet's rate limiter sits in front of its route.
   */
  takeClientRequest(client: string): void {
    if (!this.perClient.take(client)) {
      const s = Math.ceil(this.perClient.waitMs(client) / 1000);
      throw refuse(
        FaucetErrorCode.ClientRateLimited,
        `rate limit exceeded: too many requests from ${client}. Please try again in ${s} s!`,
      );
    }
  }

  /** The address a bech32 string names, refused with inx-faucet's words unless it is of this network. */
  parseAddress(bech32: string): Address {
    const hrp = this.deps.tangle.protocolParameters.bech32Hrp;
    const invalid = () => refuse(FaucetErrorCode.InvalidAddress, "Invalid bech32 address provided!");
    let given: string;
    try {
      given = bech32Decode(bech32).hrp;
    } catch {
      throw invalid();
    }
    if (given !== hrp.toLowerCase()) {
      throw refuse(
        FaucetErrorCode.InvalidAddress,
        `Invalid bech32 address provided! Address does not start with "${hrp}".`,
      );
    }
    try {
      return addressFromBech32(bech32, hrp, "address");
    } catch {
      throw invalid();
    }
  }

  /**
   * Queues a request for `bech32` (the node's health is the caller's to check first). Refused:
   * an invalid address, one already waiting, one that asked within its period, one holding
   * `maxAddressBalance` or more, a faucet that cannot pay it, a full queue.
   */
  async enqueue(bech32: string): Promise<EnqueueResult> {
    const address = this.parseAddress(bech32);
    const key = toHex(serializeAddressBytes(address));
    this.checkNotWaiting(key);
    if (!this.perAddress.allows(key)) {
      const s = Math.ceil(this.perAddress.waitMs(key) / 1000);
      throw refuse(
        FaucetErrorCode.AddressRateLimited,
        `This address already requested funds recently. Please try again in ${s} s!`,
      );
    }
    if ((await this.addressBalance(address)) >= this.options.maxAddressBalance) {
      throw refuse(FaucetErrorCode.EnoughFunds, "You already have enough funds on your address.");
    }
    if ((await this.balance()) < this.options.amount) {
      throw refuse(
        FaucetErrorCode.NoFunds,
        "Faucet does not have enough funds to process your request. Please try again later!",
      );
    }
    // the reads above let other requests in: check again what they may have changed
    this.checkNotWaiting(key);
    if (this.waiting.size >= this.options.queueSize) {
      throw refuse(FaucetErrorCode.QueueFull, "Faucet queue is full. Please try again later!");
    }
    this.perAddress.take(key);
    this.queue.push({ key, address });
    this.waiting.add(key);
    if (this.options.sendOnEnqueue && !this.pending) this.schedule();
    return { address: bech32, waitingRequests: this.waiting.size };
  }

  private checkNotWaiting(key: string): void {
    if (this.waiting.has(key)) throw refuse(FaucetErrorCode.AlreadyQueued, "Address is already in the queue.");
  }

  /**
   * The faucet's balance once every waiting request is paid (inx-faucet's `faucetBalance`):
   * its spendable outputs (the first BALANCE_PAGE) less `amount` per waiting request, never
   * below 0. While a transaction is pending its inputs are still unspent, and its requests still
   * waiting, so the figure does not jump.
   */
  async balance(): Promise<bigint> {
    const { total } = await this.ownOutputs();
    const owed = BigInt(this.waiting.size) * this.options.amount;
    return total > owed ? total - owed : 0n;
  }

  /**
   * The unspent basic outputs the faucet can spend: its address the only unlock condition
   * (inx-faucet asks the indexer for no expiration, timelock or storage deposit return), no
   * native tokens (a remainder would have to carry them). Read once per ledger index.
   */
  private ownOutputs(): Promise<{ inputs: FaucetInput[]; total: bigint }> {
    const ledgerIndex = this.deps.tangle.latestMilestone.index;
    if (this.own?.ledgerIndex === ledgerIndex) return this.own.read;
    const read = this.readOwnOutputs();
    this.own = { ledgerIndex, read };
    read.catch(() => {
      if (this.own?.read === read) this.own = undefined;
    });
    return read;
  }

  /** The remembered remainder first (the faucet's funds), then the oldest BALANCE_PAGE. */
  private async readOwnOutputs(): Promise<{ inputs: FaucetInput[]; total: bigint }> {
    const remainder = this.remainder;
    const page = await spendableOutputs(this.deps, this.address, true);
    if (!remainder || page.inputs.some((i) => bytesEqual(i.outputId, remainder))) return page;
    const [record] = await this.deps.outputs.getMany([remainder]);
    const input = record && spendableInput(remainder, record, true);
    if (!input) {
      // spent by another holder of the key, or pruned away: the listing is all there is
      if (this.remainder === remainder) this.remainder = undefined;
      return page;
    }
    return { inputs: [input, ...page.inputs], total: page.total + input.amount };
  }

  /** What `address` holds in basic outputs without conditions, as inx-faucet counts it (the first BALANCE_PAGE). */
  private async addressBalance(address: Address): Promise<bigint> {
    return (await spendableOutputs(this.deps, address, false)).total;
  }

  /** Runs one settle-and-send turn now, or once more after the one running (never two at once). */
  private schedule(): void {
    if (this.stopped) return;
    if (this.ticking) {
      this.tickAgain = true;
      return;
    }
    this.ticking = this.tick()
      .catch((e) => this.deps.onError(e))
      .finally(() => {
        this.ticking = undefined;
        if (this.tickAgain) {
          this.tickAgain = false;
          this.schedule();
        }
      });
  }

  /** Settles the pending transaction, then sends the next when there is none (tests call it directly). */
  async tick(): Promise<void> {
    if (this.pending && !(await this.settle(this.pending))) return;
    if (this.stopped) return;
    // a node behind the network (or whose disk refuses writes) sends nothing; the queue waits
    if (this.deps.intake.refusal("api")) return;
    if (this.queue.length > 0) await this.send();
    else await this.sweepIfCrowded();
  }

  /** With nobody waiting, one transaction gathering the outputs of a crowded address (`CROWDED`). */
  private async sweepIfCrowded(): Promise<void> {
    const { inputs } = await this.ownOutputs();
    if (inputs.length <= CROWDED || this.stopped) return;
    await this.submit(sweepPlan(inputs), []);
  }

  /**
   * Whether the pending transaction is settled: included (its requests are done), conflicting,
   * or never to be referenced: below max depth, so no milestone may reference it, or dropped
   * from the tangle (its requests go back to the front of the queue). Requests are re-queued
   * only when the block can no longer be included, so nobody is paid twice.
   */
  private async settle(pending: Pending): Promise<boolean> {
    const meta = await this.deps.tangle.getMetadata(pending.blockId);
    const id = toHex(pending.blockId);
    if (meta && meta.referencedByMilestoneIndex > 0) {
      this.pending = undefined;
      if (meta.inclusionState === InclusionState.Included) {
        for (const r of pending.requests) this.waiting.delete(r.key);
        if (pending.remainderIndex !== undefined) {
          this.remainder = outputIdFromParts(pending.transactionId, pending.remainderIndex);
        }
        this.own = undefined;
        return true;
      }
      this.requeue(pending.requests);
      this.deps.onError(
        new LedgerNodeError(
          FaucetErrorCode.TransactionNotIncluded,
          `faucet: transaction block ${id} conflicted (reason ${meta.conflictReason}); its requests are queued again`,
        ),
      );
      return true;
    }
    if (!meta || (await this.deps.tangle.isBelowMaxDepth(pending.blockId))) {
      this.pending = undefined;
      this.requeue(pending.requests);
      this.deps.onError(
        new LedgerNodeError(
          FaucetErrorCode.TransactionNotIncluded,
          `faucet: transaction block ${id} will not be referenced; its requests are queued again`,
        ),
      );
      return true;
    }
    return false;
  }

  /** Puts requests back at the front of the queue, in their order. */
  private requeue(requests: readonly Request[]): void {
    this.queue.unshift(...requests);
  }

  /**
   * Builds, mines and submits the transaction paying the first queued requests (as many as the
   * batch size and the faucet's outputs allow). Requests it cannot take stay queued; when the
   * faucet cannot pay even one, the queued requests are dropped (inx-faucet ignores requests it
   * has no funds for), so their addresses may ask again.
   */
  private async send(): Promise<void> {
    const own = (await this.ownOutputs()).inputs;
    // the largest first: the fewest inputs pay, whatever crowd of small ones stands in front
    const inputs = [...own].sort((a, b) => (a.amount === b.amount ? 0 : a.amount > b.amount ? -1 : 1));
    const batch = this.queue.slice(0, this.options.batchSize);
    const plan = planBatch(inputs, batch.length, this.options.amount, this.deposit);
    if (!plan && own.length > CROWDED) {
      // the 128 largest in view cannot pay: gather the oldest so the listing moves on to the
      // funds behind them; the queue waits for the next milestone
      await this.submit(sweepPlan(own), []);
      return;
    }
    if (!plan) {
      const dropped = this.queue.splice(0);
      for (const r of dropped) this.waiting.delete(r.key);
      this.deps.onError(
        new LedgerNodeError(
          FaucetErrorCode.CannotPay,
          `faucet: ${this.bech32} cannot pay ${this.options.amount}; ${dropped.length} queued requests dropped`,
        ),
      );
      return;
    }
    const served = this.queue.splice(0, plan.served);
    await this.submit(inputs.length > CROWDED ? gatherInputs(plan, inputs) : plan, served);
  }

  /** Builds, mines and submits the transaction of `plan` paying `served`; they are queued again if it fails. */
  private async submit(plan: BatchPlan, served: Request[]): Promise<void> {
    const params = this.deps.tangle.protocolParameters;
    try {
      const tx = buildFaucetTransaction({
        networkId: networkIdFromName(params.networkName),
        keyPair: this.keyPair,
        faucetAddress: this.address,
        plan,
        recipients: served.map((r) => r.address),
        amount: this.options.amount,
        tag: this.options.tag,
      });
      if (this.stopped)
        throw new LedgerNodeError(FaucetErrorCode.NotSubmitted, "faucet: stopped before its transaction was submitted");
      // the one way in (tangle/intake.ts): parents from tip selection, syntax, PoW mined on the
      // node's own pool, taken in like a client's block
      const draft = (parents: Uint8Array[]): Block => ({
        protocolVersion: params.protocolVersion,
        parents,
        payload: tx,
        nonce: 0n,
      });
      const verdict = await this.deps.intake.submitDraft(draft, "api", this.deps.mine ?? ownMiner(1));
      let blockId: Uint8Array;
      try {
        // accepted, or known already: the intake's one reading of a verdict
        ({ blockId } = takenBlock(verdict));
      } catch (e) {
        throw new LedgerNodeError(
          FaucetErrorCode.NotSubmitted,
          `faucet: the node refused its transaction block: ${(e as Error).message}`,
          undefined,
          { cause: e },
        );
      }
      this.pending = {
        blockId,
        transactionId: computeTransactionId(tx),
        requests: served,
        remainderIndex: plan.remainder > 0n ? served.length : undefined,
      };
    } catch (e) {
      this.requeue(served);
      throw e;
    }
  }

  /** Resolves once no settle-and-send turn is running (tests wait for the faucet's answer to a milestone). */
  async idle(): Promise<void> {
    while (this.ticking) await this.ticking;
  }

  /** Stops taking part in milestones and waits for the turn in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.ticking;
  }
}
