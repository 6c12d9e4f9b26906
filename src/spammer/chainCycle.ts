import { aliasAddressOf } from "../codec/address.js";
import {
  aliasIdFromOutputId,
  computeFoundryId,
  computeTransactionId,
  essenceSigningHash,
  inputsCommitmentFromBytes,
  nftIdFromOutputId,
  outputIdFromParts,
  utxoInputOfOutputId,
} from "../codec/ids.js";
import { encodeOutput } from "../codec/outputs/output.js";
import { minStorageDeposit } from "../codec/storageDeposit.js";
import {
  type AliasOutput,
  type BasicOutput,
  type Ed25519Address,
  type FoundryOutput,
  type NftOutput,
  type Output,
  OutputType,
  PayloadType,
  type RentStructure,
  type TransactionPayload,
  type Unlock,
  UnlockConditionType,
  UnlockType,
} from "../codec/types.js";
import { type Ed25519KeyPair, ed25519Sign } from "../crypto/ed25519.js";
import type { FaucetInput } from "../faucet/transaction.js";

/**
 * The chain outputs of value spam (inx-spammer's value spam states after the basic transfers,
 * `pkg/spammer/spammer.go`): one lane runs this cycle, each step one signed transaction that
 * spends what the step before created (TIP-18 transitions, TIP-20 unlocks, TIP-44 simple token
 * scheme):
 *
 * 0. alias created from the lane's basic output (state controller and governor: holder A);
 * 1. alias state transition (state index + 1, new state metadata);
 * 2. foundry created by the alias (foundry counter + 1) minting `MINTED` native tokens into the
 *    basic output;
 * 3. the tokens melted (the foundry's melted count, the basic output without them);
 * 4. the foundry destroyed (its deposit back to the basic output);
 * 5. the alias destroyed (a governance transition: the governor's signature);
 * 6. an NFT created;
 * 7. the NFT sent to holder B;
 * 8. the NFT destroyed by B, its deposit back to A's basic output; then step 0 again.
 *
 * Each creation's storage deposit (TIP-19) comes from the basic output and goes back to it.
 */

export const CYCLE_STEPS = [
  "createAlias",
  "aliasStateTransition",
  "createFoundryMint",
  "meltNativeTokens",
  "destroyFoundry",
  "destroyAlias",
  "createNft",
  "sendNft",
  "destroyNft",
] as const;
export type CycleStep = (typeof CYCLE_STEPS)[number];

/** The chain outputs each step spends. */
const NEEDS: Record<CycleStep, ("alias" | "foundry" | "nft")[]> = {
  createAlias: [],
  aliasStateTransition: ["alias"],
  createFoundryMint: ["alias"],
  meltNativeTokens: ["alias", "foundry"],
  destroyFoundry: ["alias", "foundry"],
  destroyAlias: ["alias"],
  createNft: [],
  sendNft: ["nft"],
  destroyNft: ["nft"],
};

/** Native tokens the foundry mints (and the next step melts). */
export const MINTED = 1_000_000n;
const MAX_SUPPLY = 1_000_000_000n;

export interface Holder {
  keyPair: Ed25519KeyPair;
  address: Ed25519Address;
}

/** An output the cycle holds: its ID, decoded form and bytes. */
interface Held<O extends Output> {
  outputId: Uint8Array;
  output: O;
  bytes: Uint8Array;
}

/** Who unlocks an input: a key (a signature, or a reference to its first), or the alias input at an index. */
type Unlocker = { key: Ed25519KeyPair } | { alias: number };

/** A step's transaction and what the cycle holds once its block is taken. */
export interface CycleTransfer {
  step: CycleStep;
  transaction: TransactionPayload;
  /** Records the transaction's outputs as the cycle's (its block was taken). */
  apply(): void;
}

const held = <O extends Output>(transactionId: Uint8Array, index: number, output: O): Held<O> => ({
  outputId: outputIdFromParts(transactionId, index),
  output,
  bytes: encodeOutput(output),
});

const basicOf = (address: Ed25519Address, amount: bigint, nativeTokens: BasicOutput["nativeTokens"] = []) =>
  ({
    type: OutputType.Basic,
    amount,
    nativeTokens,
    unlockConditions: [{ type: UnlockConditionType.Address, address }],
    features: [],
  }) as BasicOutput;

/** The state metadata of the alias's `n`-th state: 8 bytes, so its storage deposit never changes. */
const metadataOf = (n: number): Uint8Array => {
  const m = new Uint8Array(8);
  new DataView(m.buffer).setBigUint64(0, BigInt(n), true);
  return m;
};

export class ChainCycle {
  private step = 0;
  private basic: Held<BasicOutput> | undefined;
  private alias: Held<AliasOutput> | undefined;
  private foundry: Held<FoundryOutput> | undefined;
  private nft: Held<NftOutput> | undefined;

  constructor(
    private readonly a: Holder,
    private readonly b: Holder,
    private readonly networkId: bigint,
    private readonly rent: RentStructure,
    private readonly tag: Uint8Array,
  ) {}

  /** Starts over from a basic output of A's (its bytes and amount): step 0, nothing else held. */
  reset(basic: FaucetInput): void {
    this.step = 0;
    this.basic = { outputId: basic.outputId, output: basicOf(this.a.address, basic.amount), bytes: basic.outputBytes };
    this.alias = this.foundry = this.nft = undefined;
  }

  /** The step the next transfer makes. */
  get next(): CycleStep {
    return CYCLE_STEPS[this.step]!;
  }

  /** A's basic output, as the lane's output. */
  get basicOutput(): FaucetInput | undefined {
    const b = this.basic;
    return b && { outputId: b.outputId, amount: b.output.amount, outputBytes: b.bytes };
  }

  /** The next step's transaction; undefined without a basic output. */
  transfer(): CycleTransfer | undefined {
    const basic = this.basic;
    if (!basic) return undefined;
    // a chain output a step needs is not held (the cycle was read back from the ledger, which
    // keeps only the basic output in view): start over
    const needs = NEEDS[this.next];
    if (needs.some((k) => this[k] === undefined)) this.step = 0;
    const step = this.next;
    const A = this.a;
    switch (step) {
      case "createAlias": {
        const alias: AliasOutput = {
          type: OutputType.Alias,
          amount: 0n,
          nativeTokens: [],
          aliasId: new Uint8Array(32),
          stateIndex: 0,
          stateMetadata: metadataOf(0),
          foundryCounter: 0,
          unlockConditions: [
            { type: UnlockConditionType.StateControllerAddress, address: A.address },
            { type: UnlockConditionType.GovernorAddress, address: A.address },
          ],
          features: [],
          immutableFeatures: [],
        };
        alias.amount = minStorageDeposit(alias, this.rent);
        const rest = basicOf(A.address, basic.output.amount - alias.amount);
        return this.build(step, [[basic, { key: A.keyPair }]], [alias, rest], (txId) => {
          const created = held(txId, 0, alias);
          this.alias = held(txId, 0, { ...alias, aliasId: aliasIdFromOutputId(created.outputId) });
          // the alias's own bytes stay those it was created with (zero ID): the inputs commitment hashes them
          this.alias.bytes = created.bytes;
          this.basic = held(txId, 1, rest);
        });
      }
      case "aliasStateTransition": {
        const alias = this.needAlias();
        const next = { ...alias.output, stateIndex: alias.output.stateIndex + 1 };
        next.stateMetadata = metadataOf(next.stateIndex);
        return this.build(step, [[alias, { key: A.keyPair }]], [next], (txId) => {
          this.alias = held(txId, 0, next);
        });
      }
      case "createFoundryMint": {
        const alias = this.needAlias();
        const nextAlias = {
          ...alias.output,
          stateIndex: alias.output.stateIndex + 1,
          stateMetadata: metadataOf(alias.output.stateIndex + 1),
          foundryCounter: alias.output.foundryCounter + 1,
        };
        const foundry: FoundryOutput = {
          type: OutputType.Foundry,
          amount: 0n,
          nativeTokens: [],
          serialNumber: nextAlias.foundryCounter,
          tokenScheme: { type: 0, mintedTokens: MINTED, meltedTokens: 0n, maximumSupply: MAX_SUPPLY },
          unlockConditions: [
            { type: UnlockConditionType.ImmutableAliasAddress, address: aliasAddressOf(alias.output.aliasId) },
          ],
          features: [],
          immutableFeatures: [],
        };
        foundry.amount = minStorageDeposit(foundry, this.rent);
        const tokenId = computeFoundryId(alias.output.aliasId, foundry.serialNumber, 0);
        const rest = basicOf(A.address, basic.output.amount - foundry.amount, [{ id: tokenId, amount: MINTED }]);
        return this.build(
          step,
          [
            [alias, { key: A.keyPair }],
            [basic, { key: A.keyPair }],
          ],
          [nextAlias, foundry, rest],
          (txId) => {
            this.alias = held(txId, 0, nextAlias);
            this.foundry = held(txId, 1, foundry);
            this.basic = held(txId, 2, rest);
          },
        );
      }
      case "meltNativeTokens": {
        const alias = this.needAlias();
        const foundry = this.needFoundry();
        const nextAlias = this.stateTransition(alias.output);
        const scheme = foundry.output.tokenScheme;
        const nextFoundry = { ...foundry.output, tokenScheme: { ...scheme, meltedTokens: scheme.mintedTokens } };
        const rest = basicOf(A.address, basic.output.amount);
        return this.build(
          step,
          [
            [alias, { key: A.keyPair }],
            [foundry, { alias: 0 }],
            [basic, { key: A.keyPair }],
          ],
          [nextAlias, nextFoundry, rest],
          (txId) => {
            this.alias = held(txId, 0, nextAlias);
            this.foundry = held(txId, 1, nextFoundry);
            this.basic = held(txId, 2, rest);
          },
        );
      }
      case "destroyFoundry": {
        const alias = this.needAlias();
        const foundry = this.needFoundry();
        const nextAlias = this.stateTransition(alias.output);
        const rest = basicOf(A.address, basic.output.amount + foundry.output.amount);
        return this.build(
          step,
          [
            [alias, { key: A.keyPair }],
            [foundry, { alias: 0 }],
            [basic, { key: A.keyPair }],
          ],
          [nextAlias, rest],
          (txId) => {
            this.alias = held(txId, 0, nextAlias);
            this.foundry = undefined;
            this.basic = held(txId, 1, rest);
          },
        );
      }
      case "destroyAlias": {
        const alias = this.needAlias();
        const rest = basicOf(A.address, basic.output.amount + alias.output.amount);
        return this.build(
          step,
          [
            [alias, { key: A.keyPair }],
            [basic, { key: A.keyPair }],
          ],
          [rest],
          (txId) => {
            this.alias = undefined;
            this.basic = held(txId, 0, rest);
          },
        );
      }
      case "createNft": {
        const nft: NftOutput = {
          type: OutputType.Nft,
          amount: 0n,
          nativeTokens: [],
          nftId: new Uint8Array(32),
          unlockConditions: [{ type: UnlockConditionType.Address, address: A.address }],
          features: [],
          immutableFeatures: [],
        };
        nft.amount = minStorageDeposit(nft, this.rent);
        const rest = basicOf(A.address, basic.output.amount - nft.amount);
        return this.build(step, [[basic, { key: A.keyPair }]], [nft, rest], (txId) => {
          const created = held(txId, 0, nft);
          this.nft = { ...created, output: { ...nft, nftId: nftIdFromOutputId(created.outputId) } };
          this.basic = held(txId, 1, rest);
        });
      }
      case "sendNft": {
        const nft = this.needNft();
        const sent: NftOutput = {
          ...nft.output,
          unlockConditions: [{ type: UnlockConditionType.Address, address: this.b.address }],
        };
        return this.build(step, [[nft, { key: A.keyPair }]], [sent], (txId) => {
          this.nft = held(txId, 0, sent);
        });
      }
      case "destroyNft": {
        const nft = this.needNft();
        const rest = basicOf(A.address, basic.output.amount + nft.output.amount);
        return this.build(
          step,
          [
            [nft, { key: this.b.keyPair }],
            [basic, { key: A.keyPair }],
          ],
          [rest],
          (txId) => {
            this.nft = undefined;
            this.basic = held(txId, 0, rest);
          },
        );
      }
    }
  }

  private stateTransition(alias: AliasOutput): AliasOutput {
    return { ...alias, stateIndex: alias.stateIndex + 1, stateMetadata: metadataOf(alias.stateIndex + 1) };
  }

  private needAlias(): Held<AliasOutput> {
    return this.alias!;
  }

  private needFoundry(): Held<FoundryOutput> {
    return this.foundry!;
  }

  private needNft(): Held<NftOutput> {
    return this.nft!;
  }

  /**
   * The signed transaction (TIP-20): a key's first input carries its signature, its later ones a
   * reference to it; a foundry input an alias unlock naming its alias's input. Its tagged-data
   * payload carries the spammer's tag.
   */
  private build(
    step: CycleStep,
    inputs: [Held<Output>, Unlocker][],
    outputs: Output[],
    apply: (transactionId: Uint8Array) => void,
  ): CycleTransfer {
    const essence = {
      type: 1 as const,
      networkId: this.networkId,
      inputs: inputs.map(([h]) => utxoInputOfOutputId(h.outputId)),
      inputsCommitment: inputsCommitmentFromBytes(inputs.map(([h]) => h.bytes)),
      outputs,
      payload: { type: PayloadType.TaggedData, tag: this.tag, data: new TextEncoder().encode(step) },
    };
    const hash = essenceSigningHash(essence);
    const signedAt = new Map<Ed25519KeyPair, number>();
    const unlocks: Unlock[] = inputs.map(([, u], i) => {
      if ("alias" in u) return { type: UnlockType.Alias, reference: u.alias };
      const at = signedAt.get(u.key);
      if (at !== undefined) return { type: UnlockType.Reference, reference: at };
      signedAt.set(u.key, i);
      return {
        type: UnlockType.Signature,
        signature: { type: 0, publicKey: u.key.publicKey, signature: ed25519Sign(u.key, hash) },
      };
    });
    const transaction: TransactionPayload = { type: PayloadType.Transaction, essence, unlocks };
    return {
      step,
      transaction,
      apply: () => {
        apply(computeTransactionId(transaction));
        this.step = (this.step + 1) % CYCLE_STEPS.length;
      },
    };
  }
}
