import { createRequire } from "node:module";

/**
 * `@iota/iota.js@2.0.0-rc.4` (with its `@iota/crypto.js` and `@iota/util.js`) as the e2e tests
 * use it: an unmodified Stardust client and an independent codec. The packages' "exports" maps
 * name no typings under NodeNext resolution, so the parts used are typed by hand here and loaded
 * through their CommonJS builds.
 */

// biome-ignore lint/suspicious/noExplicitAny: node answers and iota.js objects are JSON, asserted field by field
export type Json = Record<string, any>;

export interface KeyPair {
  publicKey: Uint8Array;
  privateKey: Uint8Array;
}

/** `SingleNodeClient`: the core API v2 as iota.js calls it. */
export interface CoreClient {
  health(): Promise<boolean>;
  routes(): Promise<{ routes: string[] }>;
  info(): Promise<Json>;
  tips(): Promise<{ tips: string[] }>;
  blockSubmit(block: Json): Promise<string>;
  blockSubmitRaw(bytes: Uint8Array): Promise<string>;
  block(id: string): Promise<Json>;
  blockRaw(id: string): Promise<Uint8Array>;
  blockMetadata(id: string): Promise<Json>;
  output(id: string): Promise<{ metadata: Json; output: Json }>;
  outputMetadata(id: string): Promise<Json>;
  outputRaw(id: string): Promise<Uint8Array>;
  transactionIncludedBlock(id: string): Promise<Json>;
  milestoneByIndex(index: number): Promise<Json>;
  milestoneByIndexRaw(index: number): Promise<Uint8Array>;
  milestoneById(id: string): Promise<Json>;
  milestoneUtxoChangesByIndex(index: number): Promise<UtxoChanges>;
  milestoneUtxoChangesById(id: string): Promise<UtxoChanges>;
  peers(): Promise<Json>;
  /** `GET /treasury` (TIP-25). */
  treasury(): Promise<{ milestoneId: string; amount: string }>;
  /** `GET /receipts[/{migratedAt}]` (TIP-25). */
  receipts(migratedAt?: number): Promise<{ receipts: { receipt: Json; milestoneIndex: number }[] }>;
}

/** A milestone's ledger changes as the core API answers them. */
export interface UtxoChanges {
  index: number;
  createdOutputs: string[];
  consumedOutputs: string[];
}

/** What `SingleNodeClient` throws for an HTTP error: the status, and the code of the error body. */
export interface ClientError extends Error {
  httpStatus: number;
  code: string;
}

/** Indexer answers: one page of output IDs. */
export interface OutputsResponse {
  ledgerIndex: number;
  pageSize?: number;
  cursor?: string;
  items: string[];
}

/** `IndexerPluginClient`: inx-indexer v1 as iota.js calls it. */
export interface IndexerClient {
  basicOutputs(filter: Record<string, unknown>): Promise<OutputsResponse>;
  alias(aliasId: string): Promise<OutputsResponse>;
  nft(nftId: string): Promise<OutputsResponse>;
  foundry(foundryId: string): Promise<OutputsResponse>;
}

export interface WriteStream {
  finalBytes(): Uint8Array;
}

export interface IotaJs {
  SingleNodeClient: new (
    endpoint: string,
    options?: { powProvider?: unknown; headers?: Record<string, string> },
  ) => CoreClient;
  IndexerPluginClient: new (client: CoreClient | string) => IndexerClient;
  Ed25519Seed: new (bytes: Uint8Array) => { keyPair(): KeyPair };
  Ed25519Address: new (publicKey: Uint8Array) => { toAddress(): Uint8Array };
  Bech32Helper: { toBech32(addressType: number, addressBytes: Uint8Array, hrp: string): string };
  TransactionHelper: {
    calculateBlockId(block: Json): string;
    transactionIdFromTransactionPayload(payload: Json): string;
    outputIdFromTransactionData(transactionId: string, index: number): string;
    inputFromOutputId(outputId: string): Json;
    getInputsCommitment(inputs: Json[]): string;
    getTransactionEssenceHash(essence: Json): Uint8Array;
    getStorageDeposit(output: Json, rent: Json): number;
    resolveIdFromOutputId(outputId: string): string;
    constructTokenId(aliasId: string, serialNumber: number, tokenSchemeType: number): string;
    networkIdFromNetworkName(networkName: string): string;
  };
  sendAdvanced(
    client: CoreClient,
    inputs: { input: Json; addressKeyPair: KeyPair; consumingOutput: Json }[],
    outputs: { address: string; addressType: number; amount: string }[],
    taggedData?: { tag?: string; data?: string },
  ): Promise<{ blockId: string; block: Json }>;
  addressBalance(
    client: CoreClient,
    addressBech32: string,
  ): Promise<{ balance: { toString(): string }; nativeTokens: Record<string, { toString(): string }> }>;
  milestoneIdFromMilestonePayload(payload: Json): string;
  serializeOutput(w: WriteStream, output: Json): void;
  serializeOutputs(w: WriteStream, outputs: Json[]): void;
  serializeInputs(w: WriteStream, inputs: Json[]): void;
  serializeTransactionEssence(w: WriteStream, essence: Json): void;
  serializeBlock(w: WriteStream, block: Json): void;
  deserializeOutput(r: unknown): Json;
  deserializeBlock(r: unknown): Json;
  deserializeMilestonePayload(r: unknown): Json;
}

export interface IotaUtil {
  ReadStream: new (bytes: Uint8Array) => unknown;
  WriteStream: new () => WriteStream;
  Converter: {
    hexToBytes(hex: string): Uint8Array;
    bytesToHex(bytes: Uint8Array, prefix?: boolean): string;
    utf8ToHex(text: string, prefix?: boolean): string;
  };
}

export interface IotaCrypto {
  Blake2b: { sum256(data: Uint8Array): Uint8Array };
  Ed25519: { sign(privateKey: Uint8Array, message: Uint8Array): Uint8Array };
  /** TIP-12 score of serialized block bytes. */
  PowHelper: { score(block: Uint8Array): number };
  /** BIP-39 and SLIP-10 (Ed25519), the key derivation of the IOTA wallets. */
  Bip39: { mnemonicToSeed(mnemonic: string): Uint8Array };
  Bip32Path: new (path: string) => unknown;
  Slip0010: {
    derivePath(seed: Uint8Array, path: unknown): { privateKey: Uint8Array };
    getPublicKey(privateKey: Uint8Array, withZeroByte?: boolean): Uint8Array;
  };
}

const require = createRequire(import.meta.url);
export const iota = require("@iota/iota.js") as IotaJs;
export const iotaUtil = require("@iota/util.js") as IotaUtil;
export const iotaCrypto = require("@iota/crypto.js") as IotaCrypto;

/** Text as the 0x-hex of its UTF-8 bytes, as tags and metadata are written in JSON (TIP-18). */
export const utf8 = (text: string): string => iotaUtil.Converter.utf8ToHex(text, true);

/** iota.js leaves absent optional fields as `undefined`; the JSON a node sends leaves them out. */
export const plain = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;

/** An output serialized by iota.js (TIP-18 bytes). */
export function outputBytes(output: Json): Uint8Array {
  const w = new iotaUtil.WriteStream();
  iota.serializeOutput(w, output);
  return w.finalBytes();
}
