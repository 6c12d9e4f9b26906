/**
 * The typed in-memory form of every Stardust wire object (TIP-18, 20, 22/32, 23, 24, 29, 34).
 * Amounts are bigint, IDs and hashes are Uint8Array; hex and decimal strings exist only in the
 * JSON layer. Discriminators are the TIP type codes, so a decoded object can be re-encoded
 * without lookups.
 */

// ---------------------------------------------------------------- type codes

/** Address types (TIP-18). */
export const AddressType = { Ed25519: 0, Alias: 8, Nft: 16 } as const;
/** Output types (TIP-18; treasury from TIP-21/34). */
export const OutputType = { Treasury: 2, Basic: 3, Alias: 4, Foundry: 5, Nft: 6 } as const;
/** Unlock condition types (TIP-18). */
export const UnlockConditionType = {
  Address: 0,
  StorageDepositReturn: 1,
  Timelock: 2,
  Expiration: 3,
  StateControllerAddress: 4,
  GovernorAddress: 5,
  ImmutableAliasAddress: 6,
} as const;
/** Feature types (TIP-18). */
export const FeatureType = { Sender: 0, Issuer: 1, Metadata: 2, Tag: 3 } as const;
/** Token scheme types (TIP-18). */
export const TokenSchemeType = { Simple: 0 } as const;
/** Input types (TIP-20). */
export const InputType = { Utxo: 0, Treasury: 1 } as const;
/** Unlock types (TIP-20). */
export const UnlockType = { Signature: 0, Reference: 1, Alias: 2, Nft: 3 } as const;
/** Signature types (TIP-20). */
export const SignatureType = { Ed25519: 0 } as const;
/** Payload types (TIP-24 registry). */
export const PayloadType = { TreasuryTransaction: 4, TaggedData: 5, Transaction: 6, Milestone: 7 } as const;
/** Transaction essence types (TIP-20). */
export const EssenceType = { Regular: 1 } as const;
/** Milestone option types (TIP-29). */
export const MilestoneOptionType = { Receipt: 0, ProtocolParams: 1 } as const;

// ---------------------------------------------------------------- addresses

export interface Ed25519Address {
  type: 0;
  pubKeyHash: Uint8Array; // 32
}
export interface AliasAddress {
  type: 8;
  aliasId: Uint8Array; // 32
}
export interface NftAddress {
  type: 16;
  nftId: Uint8Array; // 32
}
export type Address = Ed25519Address | AliasAddress | NftAddress;

// ---------------------------------------------------------------- output parts

export interface NativeToken {
  id: Uint8Array; // 38: the foundry ID
  amount: bigint; // uint256, non-zero
}

export interface AddressUnlockCondition {
  type: 0;
  address: Address;
}
export interface StorageDepositReturnUnlockCondition {
  type: 1;
  returnAddress: Address;
  amount: bigint; // u64
}
export interface TimelockUnlockCondition {
  type: 2;
  unixTime: number; // u32
}
export interface ExpirationUnlockCondition {
  type: 3;
  returnAddress: Address;
  unixTime: number; // u32
}
export interface StateControllerAddressUnlockCondition {
  type: 4;
  address: Address;
}
export interface GovernorAddressUnlockCondition {
  type: 5;
  address: Address;
}
export interface ImmutableAliasAddressUnlockCondition {
  type: 6;
  address: AliasAddress;
}
export type UnlockCondition =
  | AddressUnlockCondition
  | StorageDepositReturnUnlockCondition
  | TimelockUnlockCondition
  | ExpirationUnlockCondition
  | StateControllerAddressUnlockCondition
  | GovernorAddressUnlockCondition
  | ImmutableAliasAddressUnlockCondition;

export interface SenderFeature {
  type: 0;
  address: Address;
}
export interface IssuerFeature {
  type: 1;
  address: Address;
}
export interface MetadataFeature {
  type: 2;
  data: Uint8Array; // 1..8192 bytes
}
export interface TagFeature {
  type: 3;
  tag: Uint8Array; // 1..64 bytes
}
export type Feature = SenderFeature | IssuerFeature | MetadataFeature | TagFeature;

export interface SimpleTokenScheme {
  type: 0;
  mintedTokens: bigint; // uint256
  meltedTokens: bigint; // uint256
  maximumSupply: bigint; // uint256
}
export type TokenScheme = SimpleTokenScheme;

// ---------------------------------------------------------------- outputs

export interface TreasuryOutput {
  type: 2;
  amount: bigint;
}
export interface BasicOutput {
  type: 3;
  amount: bigint;
  nativeTokens: NativeToken[];
  unlockConditions: UnlockCondition[];
  features: Feature[];
}
export interface AliasOutput {
  type: 4;
  amount: bigint;
  nativeTokens: NativeToken[];
  aliasId: Uint8Array; // 32, zero when created
  stateIndex: number; // u32
  stateMetadata: Uint8Array; // 0..8192 bytes
  foundryCounter: number; // u32
  unlockConditions: UnlockCondition[];
  features: Feature[];
  immutableFeatures: Feature[];
}
export interface FoundryOutput {
  type: 5;
  amount: bigint;
  nativeTokens: NativeToken[];
  serialNumber: number; // u32
  tokenScheme: TokenScheme;
  unlockConditions: UnlockCondition[];
  features: Feature[];
  immutableFeatures: Feature[];
}
export interface NftOutput {
  type: 6;
  amount: bigint;
  nativeTokens: NativeToken[];
  nftId: Uint8Array; // 32, zero when created
  unlockConditions: UnlockCondition[];
  features: Feature[];
  immutableFeatures: Feature[];
}
export type Output = TreasuryOutput | BasicOutput | AliasOutput | FoundryOutput | NftOutput;

// ---------------------------------------------------------------- inputs, unlocks

export interface UtxoInput {
  type: 0;
  transactionId: Uint8Array; // 32
  transactionOutputIndex: number; // u16
}
export interface TreasuryInput {
  type: 1;
  milestoneId: Uint8Array; // 32
}
export type Input = UtxoInput | TreasuryInput;

export interface Ed25519Signature {
  type: 0;
  publicKey: Uint8Array; // 32
  signature: Uint8Array; // 64
}
export type Signature = Ed25519Signature;

export interface SignatureUnlock {
  type: 0;
  signature: Signature;
}
export interface ReferenceUnlock {
  type: 1;
  reference: number; // u16
}
export interface AliasUnlock {
  type: 2;
  reference: number; // u16
}
export interface NftUnlock {
  type: 3;
  reference: number; // u16
}
export type Unlock = SignatureUnlock | ReferenceUnlock | AliasUnlock | NftUnlock;

// ---------------------------------------------------------------- payloads

export interface TaggedDataPayload {
  type: 5;
  tag: Uint8Array; // 0..64 bytes
  data: Uint8Array; // 0..(block limit) bytes
}

export interface RegularTransactionEssence {
  type: 1;
  networkId: bigint; // u64
  inputs: UtxoInput[]; // 1..128 (only UTXO inputs in a regular essence)
  inputsCommitment: Uint8Array; // 32
  outputs: Output[]; // 1..128, no treasury outputs
  payload?: TaggedDataPayload;
}
export type TransactionEssence = RegularTransactionEssence;

export interface TransactionPayload {
  type: 6;
  essence: TransactionEssence;
  unlocks: Unlock[];
}

export interface TreasuryTransactionPayload {
  type: 4;
  input: TreasuryInput;
  output: TreasuryOutput;
}

export interface MigratedFundsEntry {
  tailTransactionHash: Uint8Array; // 49
  address: Address; // Ed25519 only per TIP-34
  deposit: bigint; // u64
}
export interface ReceiptMilestoneOption {
  type: 0;
  migratedAt: number; // u32
  final: boolean;
  funds: MigratedFundsEntry[]; // 1..127, sorted by tail transaction hash
  transaction: TreasuryTransactionPayload;
}
export interface ProtocolParamsMilestoneOption {
  type: 1;
  targetMilestoneIndex: number; // u32
  protocolVersion: number; // u8
  params: Uint8Array; // serialized ProtocolParameters, 0..8192 bytes
}
export type MilestoneOption = ReceiptMilestoneOption | ProtocolParamsMilestoneOption;

/** The signed part of a milestone (TIP-29): everything but the signatures. */
export interface MilestoneEssence {
  index: number; // u32
  timestamp: number; // u32, unix seconds
  protocolVersion: number; // u8
  previousMilestoneId: Uint8Array; // 32
  parents: Uint8Array[]; // 1..8 block IDs, sorted, unique
  inclusionMerkleRoot: Uint8Array; // 32
  appliedMerkleRoot: Uint8Array; // 32
  metadata: Uint8Array; // 0..8192 bytes
  options: MilestoneOption[]; // sorted by type, each at most once
}
export interface MilestonePayload extends MilestoneEssence {
  type: 7;
  signatures: Ed25519Signature[]; // 1..255, sorted by public key, unique
}

export type Payload = TaggedDataPayload | TransactionPayload | MilestonePayload | TreasuryTransactionPayload;

// ---------------------------------------------------------------- block, parameters

/** A block (TIP-24). */
export interface Block {
  protocolVersion: number; // u8
  parents: Uint8Array[]; // 1..8 block IDs, sorted, unique
  payload?: Payload;
  nonce: bigint; // u64
}

/** Storage deposit parameters (TIP-19). */
export interface RentStructure {
  vByteCost: number; // u32
  vByteFactorData: number; // u8
  vByteFactorKey: number; // u8
}

/** Protocol parameters (TIP-22/TIP-32). */
export interface ProtocolParameters {
  protocolVersion: number; // u8
  networkName: string; // 1..255 ASCII bytes
  bech32Hrp: string; // 1..255 ASCII bytes
  minPowScore: number; // u32
  belowMaxDepth: number; // u8
  rentStructure: RentStructure;
  tokenSupply: bigint; // u64
}
