import { type CoreClient, iota, iotaCrypto, iotaUtil, type Json, type KeyPair, plain, utf8 } from "./iota.js";
import { waitForReferenced } from "./milestones.js";

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

/** The seed of the dev network's key (docs/decisions.md, The dev network), which owns the genesis output. */
export const DEV_SEED = "0x64c2f3f1072df53b06173af7aa8a4b8e794e7980fca78bf7f3472ecc57e92a3c";
/** The tag of the tagged data every transaction the wallet sends carries (TIP-23), its data the transaction's label. */
export const WALLET_TAG = "ledger-node wallet e2e";
/** The genesis output: no transaction created it, so its ID is all zeros. */
export const GENESIS_OUTPUT_ID = `0x${"00".repeat(34)}`;
/** The alias or NFT ID an output creating the chain holds (TIP-18); the chain's ID is then hashed from the output ID. */
export const ZERO_ID = `0x${"00".repeat(32)}`;

/** A basic output of `amount` to `address`, holding `nativeTokens` when there are any (TIP-18). */
export function basicOutput(address: Json, amount: bigint, nativeTokens?: Json[]): Json {
  return {
    type: 3,
    amount: amount.toString(),
    ...(nativeTokens?.length ? { nativeTokens } : {}),
    unlockConditions: [{ type: 0, address }],
  };
}

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

  /** A wallet of a key no other test uses: its seed is BLAKE2b-256 of `phrase`. */
  static fromPhrase(client: CoreClient, phrase: string): Promise<StardustWallet> {
    const seed = iotaCrypto.Blake2b.sum256(new TextEncoder().encode(phrase));
    return StardustWallet.open(client, iotaUtil.Converter.bytesToHex(seed, true));
  }

  /** The genesis output as the dev key's wallet spends it. */
  async genesis(): Promise<OwnedOutput> {
    return { outputId: GENESIS_OUTPUT_ID, output: (await this.client.output(GENESIS_OUTPUT_ID)).output };
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
   * A new alias of `amount` (zero ID, state index 0, no foundry yet) with this wallet as state
   * controller, governor, sender and issuer (TIP-18 alias output).
   */
  aliasOutput(amount: bigint): Json {
    return {
      type: 4,
      amount: amount.toString(),
      aliasId: ZERO_ID,
      stateIndex: 0,
      foundryCounter: 0,
      unlockConditions: [
        { type: 4, address: this.address },
        { type: 5, address: this.address },
      ],
      features: [{ type: 0, address: this.address }],
      immutableFeatures: [{ type: 1, address: this.address }],
    };
  }

  /**
   * Foundry `serialNumber` of alias `aliasId` with `minted` tokens minted of at most 1,000,000
   * (simple token scheme), `metadata` as its immutable metadata; its amount is its storage
   * deposit (TIP-18 foundry output, TIP-19).
   */
  foundryOutput(aliasId: string, serialNumber: number, minted: bigint, metadata: string): Json {
    const foundry: Json = {
      type: 5,
      amount: "0",
      serialNumber,
      tokenScheme: { type: 0, mintedTokens: `0x${minted.toString(16)}`, meltedTokens: "0x0", maximumSupply: "0xf4240" },
      unlockConditions: [{ type: 6, address: { type: 8, aliasId } }],
      immutableFeatures: [{ type: 2, data: utf8(metadata) }],
    };
    foundry.amount = this.storageDeposit(foundry).toString();
    return foundry;
  }

  /**
   * A new NFT (zero ID) owned and issued by this wallet, `metadata` as its immutable metadata,
   * with `features` when given; its amount is its storage deposit (TIP-18 NFT output, TIP-19).
   */
  nftOutput(metadata: string, features: Json[] = []): Json {
    const nft: Json = {
      type: 6,
      amount: "0",
      nftId: ZERO_ID,
      unlockConditions: [{ type: 0, address: this.address }],
      ...(features.length ? { features } : {}),
      immutableFeatures: [
        { type: 1, address: this.address },
        { type: 2, data: utf8(metadata) },
      ],
    };
    nft.amount = this.storageDeposit(nft).toString();
    return nft;
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
        tag: utf8(taggedData.tag),
        data: utf8(taggedData.data),
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
    const payload = this.buildTransaction(inputs, outputs, { tag: WALLET_TAG, data: label });
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

  /** Submits a transaction and waits until a milestone included it in the ledger (fails if it conflicts). */
  async sendConfirmed(
    label: string,
    inputs: OwnedOutput[],
    outputs: Json[],
    timeoutMs?: number,
  ): Promise<SubmittedTransaction> {
    const tx = await this.send(label, inputs, outputs);
    await this.confirm(tx, timeoutMs);
    return tx;
  }

  /**
   * Polls the block's metadata until a milestone references it; fails unless the transaction
   * was included in the ledger. Returns the milestone index.
   */
  async confirm(tx: SubmittedTransaction, timeoutMs = 10_000): Promise<number> {
    const meta = await waitForReferenced(
      this.client,
      tx.blockId,
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
