import { type CoreClient, iota, iotaCrypto, iotaUtil, type Json, type KeyPair, plain } from "./iota.js";
import { waitFor } from "./nodeProcess.js";

/**
 * A one-key Stardust wallet as a client application builds it with `@iota/iota.js`: it
 * assembles transaction essences, signs them with its Ed25519 key (TIP-20: the signature is
 * over BLAKE2b-256 of the serialized essence), submits the block through
 * `SingleNodeClient.blockSubmit` with no parents and nonce "0" (no local PoW provider, so the
 * node selects tips and mines), and waits for a milestone to confirm it.
 */

/** An output the wallet knows, with its ID. */
export interface OwnedOutput {
  outputId: string;
  output: Json;
}

/** A transaction the wallet submitted; `milestoneIndex` is set once a milestone included it. */
export interface SubmittedTransaction {
  label: string;
  transactionId: string;
  blockId: string;
  payload: Json;
  inputs: OwnedOutput[];
  created: OwnedOutput[];
  milestoneIndex?: number;
}

const ED25519_ADDRESS = 0;

export class StardustWallet {
  private constructor(
    readonly client: CoreClient,
    readonly keyPair: KeyPair,
    /** Ed25519 address as 0x-hex pubKeyHash. */
    readonly pubKeyHash: string,
    readonly bech32: string,
    readonly networkId: string,
    readonly rentStructure: Json,
  ) {}

  /** A wallet of the key derived from a 32-byte `seed`, on the network the node reports. */
  static async open(client: CoreClient, seedHex: string): Promise<StardustWallet> {
    const keyPair = new iota.Ed25519Seed(iotaUtil.Converter.hexToBytes(seedHex)).keyPair();
    const address = new iota.Ed25519Address(keyPair.publicKey).toAddress();
    const { protocol } = await client.info();
    return new StardustWallet(
      client,
      keyPair,
      iotaUtil.Converter.bytesToHex(address, true),
      iota.Bech32Helper.toBech32(ED25519_ADDRESS, address, protocol.bech32Hrp),
      iota.TransactionHelper.networkIdFromNetworkName(protocol.networkName),
      protocol.rentStructure,
    );
  }

  /** `{type: 0, pubKeyHash}`: this wallet's address object. */
  get address(): Json {
    return { type: ED25519_ADDRESS, pubKeyHash: this.pubKeyHash };
  }

  /** The minimum storage deposit of an output (TIP-19), as iota.js computes it. */
  storageDeposit(output: Json): bigint {
    return BigInt(iota.TransactionHelper.getStorageDeposit(output, this.rentStructure));
  }

  /**
   * A signed transaction payload spending `inputs` (all unlocked by this wallet's key: the
   * first by its signature, the others by reference to it) into `outputs`.
   */
  buildTransaction(inputs: OwnedOutput[], outputs: Json[], taggedData?: { tag: string; data: string }): Json {
    const essence: Json = {
      type: 1,
      networkId: this.networkId,
      inputs: inputs.map((i) => iota.TransactionHelper.inputFromOutputId(i.outputId)),
      inputsCommitment: iota.TransactionHelper.getInputsCommitment(inputs.map((i) => i.output)),
      outputs,
    };
    if (taggedData) {
      essence.payload = {
        type: 5,
        tag: iotaUtil.Converter.utf8ToHex(taggedData.tag, true),
        data: iotaUtil.Converter.utf8ToHex(taggedData.data, true),
      };
    }
    const hash = iota.TransactionHelper.getTransactionEssenceHash(essence);
    const signature = iotaCrypto.Ed25519.sign(this.keyPair.privateKey, hash);
    const unlocks = inputs.map((_, i) =>
      i === 0
        ? {
            type: 0,
            signature: {
              type: 0,
              publicKey: iotaUtil.Converter.bytesToHex(this.keyPair.publicKey, true),
              signature: iotaUtil.Converter.bytesToHex(signature, true),
            },
          }
        : { type: 1, reference: 0 },
    );
    return { type: 6, essence, unlocks };
  }

  /** Builds, signs and submits a transaction; the node fills parents and nonce. */
  async send(label: string, inputs: OwnedOutput[], outputs: Json[]): Promise<SubmittedTransaction> {
    const payload = this.buildTransaction(inputs, outputs, { tag: "ledger-node wallet e2e", data: label });
    const blockId = await this.client.blockSubmit({ payload });
    return this.record(label, blockId, payload, inputs);
  }

  /** The record of a transaction submitted in `payload` by block `blockId`. */
  record(label: string, blockId: string, payload: Json, inputs: OwnedOutput[]): SubmittedTransaction {
    const transactionId = iota.TransactionHelper.transactionIdFromTransactionPayload(payload);
    const created = (payload.essence.outputs as Json[]).map((output, i) => ({
      outputId: iota.TransactionHelper.outputIdFromTransactionData(transactionId, i),
      output: plain(output),
    }));
    return { label, transactionId, blockId, payload: plain(payload), inputs, created };
  }

  /**
   * Polls the block's metadata until a milestone references it; fails unless the transaction
   * was included in the ledger. Returns the milestone index.
   */
  async confirm(tx: SubmittedTransaction, timeoutMs = 10_000): Promise<number> {
    const meta = await waitFor(
      async () => {
        const m = await this.client.blockMetadata(tx.blockId);
        return m.referencedByMilestoneIndex === undefined ? undefined : m;
      },
      timeoutMs,
      `a milestone referencing ${tx.label} (block ${tx.blockId})`,
    );
    if (meta.ledgerInclusionState !== "included") {
      throw new Error(
        `${tx.label}: ledgerInclusionState ${meta.ledgerInclusionState}, conflictReason ${meta.conflictReason}`,
      );
    }
    tx.milestoneIndex = meta.referencedByMilestoneIndex as number;
    return tx.milestoneIndex;
  }
}
