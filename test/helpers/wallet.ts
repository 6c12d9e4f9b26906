import { fromHex } from "../../src/codec/hex.js";
import { networkIdFromName, outputIdFromParts } from "../../src/codec/ids.js";
import type { Ed25519Address, TransactionPayload } from "../../src/codec/types.js";
import { ed25519KeyPairFromSeed } from "../../src/crypto/ed25519.js";
import type { ConsumedOutput } from "../../src/ledger/semantic/types.js";
import { DEV_KEY, DEV_TOKEN_SUPPLY, devGenesisOutput, GENESIS_OUTPUT_ID } from "../../src/node/devNetwork.js";
import { type CoreClient, iota, iotaUtil, type Json } from "./iota.js";
import { basic, buildTransaction, type Wallet } from "./txBuilder.js";

/**
 * The dev wallet (the well-known dev key, owner of the genesis output) and its payments: as the
 * tests build them in-process with txBuilder, and over HTTP as an iota.js client builds them.
 */

/** The dev wallet: the dev key and its Ed25519 address. */
export function devWallet(): Wallet & { address: Ed25519Address } {
  return {
    keyPair: ed25519KeyPairFromSeed(fromHex(DEV_KEY.seed, "seed")),
    address: { type: 0, pubKeyHash: fromHex(DEV_KEY.pubKeyHash, "pubKeyHash", 32) },
  };
}

/** The genesis output as an input. */
export function genesisInput(): ConsumedOutput {
  return { outputId: GENESIS_OUTPUT_ID, output: devGenesisOutput(), bookedMilestoneIndex: 0, bookedTimestamp: 0 };
}

/** A dev-network transaction moving `amount` of `input` to `to`, the rest back to the dev wallet. */
export function payment(
  input: ConsumedOutput,
  to: Wallet,
  amount: bigint,
): { tx: TransactionPayload; transactionId: Uint8Array; outputs: ConsumedOutput[] } {
  const dev = devWallet();
  const outputs = [basic(to.address, { amount }), basic(dev.address, { amount: input.output.amount - amount })];
  const built = buildTransaction({ networkId: networkIdFromName("dev"), inputs: [input], outputs, unlockers: [dev] });
  return {
    tx: built.tx,
    transactionId: built.ctx.transactionId,
    outputs: outputs.map((output, i) => ({
      outputId: outputIdFromParts(built.ctx.transactionId, i),
      output,
      bookedMilestoneIndex: 0,
      bookedTimestamp: 0,
    })),
  };
}

/** The genesis output's ID as iota.js writes it. */
const GENESIS_ID = `0x${"00".repeat(34)}`;

/**
 * The dev wallet over HTTP, built and signed by `@iota/iota.js` (`sendAdvanced`, no PoW
 * provider: the node mines): a chain of payments of 1 Mi each to a new address, each spending
 * the previous change output, the first the genesis output.
 */
export class DevWallet {
  static readonly PAYMENT = 1_000_000n;
  private readonly keyPair = new iota.Ed25519Seed(iotaUtil.Converter.hexToBytes(DEV_KEY.seed.slice(2))).keyPair();
  /** The change output the next payment spends, and its amount. */
  change: { id: string; output: Json; amount: bigint } = {
    id: GENESIS_ID,
    output: {},
    amount: DEV_TOKEN_SUPPLY,
  };
  /** Output IDs created by the payments (payment, change). */
  readonly created: string[] = [];
  /** The blocks the payments were submitted in, as iota.js sent them. */
  readonly blocks: Json[] = [];

  constructor(private readonly node: CoreClient) {}

  /** Pays 1 Mi to the address of 32 bytes `n % 256`; answers the block ID. */
  async pay(n: number): Promise<string> {
    if (this.created.length === 0) this.change.output = (await this.node.output(this.change.id)).output;
    const recipient = `0x${(n % 256).toString(16).padStart(2, "0").repeat(32)}`;
    const rest = this.change.amount - DevWallet.PAYMENT;
    const sent = await iota.sendAdvanced(
      this.node,
      [
        {
          input: {
            type: 0,
            transactionId: this.change.id.slice(0, 66),
            transactionOutputIndex: Number.parseInt(this.change.id.slice(68, 70) + this.change.id.slice(66, 68), 16),
          },
          addressKeyPair: this.keyPair,
          consumingOutput: this.change.output,
        },
      ],
      [
        { address: recipient, addressType: 0, amount: DevWallet.PAYMENT.toString() },
        { address: DEV_KEY.pubKeyHash, addressType: 0, amount: rest.toString() },
      ],
    );
    const txId = iota.TransactionHelper.transactionIdFromTransactionPayload(sent.block.payload);
    const next = iota.TransactionHelper.outputIdFromTransactionData(txId, 1);
    this.created.push(iota.TransactionHelper.outputIdFromTransactionData(txId, 0), next);
    this.blocks.push(sent.block);
    this.change = { id: next, output: sent.block.payload.essence.outputs[1], amount: rest };
    return sent.blockId;
  }
}
